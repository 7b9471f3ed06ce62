"""darkguard: reproducible defenses for web agents against deceptive interfaces."""

__version__ = "0.1.0"
