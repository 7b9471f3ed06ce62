"""DUDE: the click evaluator, its training stages and the guard evaluation."""
