"""Speed machinery: faster ways to compute exactly what the method code computes, each with an
equivalence test against the plain path (`grpo_prompts`: GRPO's repeated prompts computed once).
The method modules read as the papers; they switch these on through a parameter. Judging's
shared prompt prefix is a backend's own business (`darkguard.models.backends.shared_prefix`)."""
