"""DUDE as a defense: the evaluator gates every proposed click (paper 3.4, App. F.3). A click
judged L̂ = 1 executes; any other judgement (0, -1, or unreadable) rejects it, and the judgement
is fed back to the agent (Reject & Rethink). The Stage-2 experience sits in the evaluator's
guidance block; the prompt is rebuilt per call (paper 5.1)."""

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

    def __init__(self, evaluator: Evaluator, experience: str | None = None, name: str = "DUDE"):
        self.evaluator, self.experience, self.name = evaluator, experience or None, name
        # resized screenshots of recent pages; each entry holds its image, so no id is reused
        self._shots: OrderedDict[int, tuple[Image.Image, Screenshot]] = OrderedDict()

    def review_many(self, proposals: list[tuple[Observation, Click]]) -> list[Verdict]:
        views = [(self._shot(o.image), o.task, c.x, c.y) for o, c in proposals]
        _, outputs, tokens = self.evaluator.judge_views(views, self.experience)
        verdicts = []
        for output, used in zip(outputs, tokens, strict=True):
            label = predicted_label(output)
            verdicts.append(Verdict(allow=label == 1, label=label, tokens=used))
        return verdicts

    def _shot(self, image: Image.Image) -> Screenshot:
        if id(image) not in self._shots:
            self._shots[id(image)] = (image, Screenshot(image, self.evaluator.max_pixels))
            while len(self._shots) > SHOTS_KEPT:
                self._shots.popitem(last=False)
        return self._shots[id(image)][1]
