"""Report outputs: tables (CSV + Markdown), figures (PNG) and metrics (JSON)."""
