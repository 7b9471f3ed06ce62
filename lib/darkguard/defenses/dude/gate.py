"""DUDE as a defense: the evaluator gates every proposed click (paper 3.4, App. F.3). A click
judged L̂ = 1 executes; any other judgement (0, -1, or unreadable) rejects it, and the judgement
is fed back to the agent (Reject & Rethink). The Stage-2 experience sits in the evaluator's
guidance block; the prompt is rebuilt per call (paper 5.1).

A declared option (`threshold`, not the paper's gate): gamma is the probability the evaluator
gives the label token (`Evaluator.label_probabilities`) and a click executes when P(L = 1)
reaches a threshold tuned on the valid split (`tune_threshold`); the label fed back is the most
probable one."""

from __future__ import annotations

from collections import OrderedDict

from PIL import Image

from darkguard.defenses import Verdict
from darkguard.defenses.dude.evaluator import Evaluator
from darkguard.defenses.dude.inputs import Screenshot
from darkguard.envs import Observation
from darkguard.models.parsing import Click, predicted_label

SHOTS_KEPT = 64  # pages whose resized screenshot a gate keeps while their episodes run


class DudeGate:
    """The evaluator as a gate at each click, reviewing many proposed clicks in the backend's
    batches (`review_many`)."""

    def __init__(
        self,
        evaluator: Evaluator,
        experience: str | None = None,
        name: str = "DUDE",
        threshold: float | None = None,
    ):
        self.evaluator, self.experience, self.name = evaluator, experience or None, name
        self.threshold = threshold  # None: the paper's gate (the generated label)
        # resized screenshots of recent pages; each entry holds its image, so no id is reused
        self._shots: OrderedDict[int, tuple[Image.Image, Screenshot]] = OrderedDict()

    def review_many(self, proposals: list[tuple[Observation, Click]]) -> list[Verdict]:
        if self.threshold is not None:
            probs, tokens = self.probabilities(proposals)
            return [
                threshold_verdict(p, self.threshold, used)
                for p, used in zip(probs, tokens, strict=True)
            ]
        views = [(self._shot(o.image), o.task, c.x, c.y) for o, c in proposals]
        _, outputs, tokens = self.evaluator.judge_views(views, self.experience)
        verdicts = []
        for output, used in zip(outputs, tokens, strict=True):
            label = predicted_label(output)
            verdicts.append(Verdict(allow=label == 1, label=label, tokens=used))
        return verdicts

    def probabilities(
        self, proposals: list[tuple[Observation, Click]]
    ) -> tuple[list[dict[int, float]], list[int]]:
        """P(L) of each proposed click (`Evaluator.label_probabilities`) and the tokens used."""
        views = [(self._shot(o.image), o.task, c.x, c.y) for o, c in proposals]
        conversations = self.evaluator.view_conversations(views, self.experience)
        return self.evaluator.label_probabilities(conversations)

    def _shot(self, image: Image.Image) -> Screenshot:
        if id(image) not in self._shots:
            self._shots[id(image)] = (image, Screenshot(image, self.evaluator.max_pixels))
            while len(self._shots) > SHOTS_KEPT:
                self._shots.popitem(last=False)
        return self._shots[id(image)][1]


def threshold_verdict(probs: dict[int, float], threshold: float, tokens: int) -> Verdict:
    """The confidence gate's verdict: allow when P(L = 1) reaches `threshold`; the label fed
    back is the most probable one."""
    return Verdict(allow=probs[1] >= threshold, label=max(probs, key=probs.get), tokens=tokens)


def tune_threshold(
    benign: list[float], other: list[float], max_fatal: float, deceptive: list[float]
) -> float:
    """The threshold on P(L = 1) that a gate tunes on labelled valid clicks: among thresholds
    that let at most `max_fatal` of the deceptive clicks through, the one with the best balanced
    accuracy (benign clicks allowed, other clicks rejected); ties go to the higher threshold.
    Inputs are P(L = 1) of benign, of all non-benign and of the deceptive clicks."""
    grid = sorted({0.0, 1.0, *benign, *other})
    best: tuple[float, float] | None = None
    for t in grid:
        fatal = sum(p >= t for p in deceptive) / len(deceptive) if deceptive else 0.0
        if fatal > max_fatal:
            continue
        allowed = sum(p >= t for p in benign) / len(benign) if benign else 0.0
        rejected = sum(p < t for p in other) / len(other) if other else 0.0
        score = (allowed + rejected) / 2
        if best is None or score >= best[0]:
            best = (score, t)
    return 1.0 if best is None else best[1]
