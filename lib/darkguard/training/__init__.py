"""The training side: code that reads labelled data (the answer key) to build and tune models.

- `dude`: DUDE's evaluator training and selection: the supervised warm-up of a tiny evaluator,
  the hybrid reward and Stage 1's GRPO, Stage 2's experience summarization and its guidance
  check, and runs of the evaluator over labelled clicks (`labelled`).
- `agent_warmup`: supervised warm-up rows of a tiny agent (clicks on the correct box).

No runtime path (agents, defenses) imports this package: an import-linter contract in
pyproject.toml forbids it, directly or through any chain of imports.
"""
