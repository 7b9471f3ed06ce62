"""The model layer: prompts, output parsers, model specs and generation backends."""
