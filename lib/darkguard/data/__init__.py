"""The RUC benchmark: schema, validation, loading, splits and click generation."""
