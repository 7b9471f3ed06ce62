"""DUDE's training (paper 3.2-3.3): warm-up, reward, Stage 1, Stage 2, labelled-click runs."""
