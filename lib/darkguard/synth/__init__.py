"""RUC-synth: procedurally generated web pages with deceptive patterns, rendered in Chromium."""
