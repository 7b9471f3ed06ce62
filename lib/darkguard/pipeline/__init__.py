"""Pipeline helpers: byte-stable executed notebooks."""
