"""arena-synth: a seeded family of small deceptive sites with clean twins, in disjoint splits
(`dev` to develop and train on, `eval` to report, `valid` to develop against unseen wording), in
the arena's task-file format."""

from darkguard.envs.arena.synth.generator import SPLITS, Manifest, generate
from darkguard.envs.arena.synth.kinds import KIND_PATTERNS, KINDS

__all__ = ["KINDS", "KIND_PATTERNS", "SPLITS", "Manifest", "generate"]
