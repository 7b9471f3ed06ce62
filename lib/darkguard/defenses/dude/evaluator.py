"""The DUDE click evaluator (`Evaluator`) at run time: its judgements of clicks on pages in
memory, and which aids and adapter a built evaluator takes. Runs over labelled clicks (training,
validation) are in `darkguard.training.dude.labelled`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from darkguard.defenses.dude.inputs import (
    PAPER_INPUTS,
    ObservationAids,
    Screenshot,
    evaluator_conversation,
    prefetch_aids,
)
from darkguard.models.backends import Backend, generate_counted
from darkguard.models.card import read_card
from darkguard.models.parsing import EvaluatorOutput, parse_judgement
from darkguard.models.spec import ModelSpec

LABELS = (1, 0, -1)


class Evaluator:
    """The DUDE click evaluator behind a model backend (the one wrapper every stage uses): one
    greedy judgement per click from what the evaluator sees (`inputs.evaluator_conversation`:
    the marked screenshot, the task, the click; the experience in the guidance block), the prompt
    rebuilt per call (paper 5.1). `system_prompt=False` sends no system message at all (paper
    5.6 (i))."""

    def __init__(
        self, backend: Backend, aids: ObservationAids = PAPER_INPUTS, system_prompt: bool = True
    ) -> None:
        self.backend, self.aids, self.system_prompt = backend, aids, system_prompt

    @property
    def max_pixels(self) -> int | None:
        return self.backend.max_pixels

    def judge(self, conversations: list) -> tuple[list[str], list[EvaluatorOutput], list[int]]:
        """Texts, parsed judgements and tokens used, one per conversation, in the backend's
        batches."""
        if not self.system_prompt:
            conversations = [c[1:] for c in conversations]
        texts, tokens = generate_counted(self.backend, conversations)
        return texts, [parse_judgement(t) for t in texts], tokens

    def label_probabilities(self, conversations: list) -> tuple[list[dict[int, float]], list[int]]:
        """P(L) for L in (1, 0, -1) per conversation: the probability of each label's token
        where the answer's label is written (teacher-forced, no generation), and the tokens
        used. Needs a backend that exposes its token distribution (`continuation_probs`: the
        local transformers backend)."""
        if not hasattr(self.backend, "continuation_probs"):
            raise TypeError(
                f"model '{self.backend.spec.name}': backend {self.backend.spec.backend!r} gives "
                "no token probabilities (the confidence gate needs the hf backend)"
            )
        if not self.system_prompt:
            conversations = [c[1:] for c in conversations]
        candidates = [f"<judge>{label}</judge>" for label in LABELS]
        rows = self.backend.continuation_probs(conversations, candidates)
        return [dict(zip(LABELS, r, strict=True)) for r in rows], list(self.backend.last_tokens)

    def view_conversations(
        self, views: list[tuple[Screenshot, str, float, float]], experience: str | None = None
    ) -> list:
        """The evaluator's input for (screenshot, task, x, y) clicks on pages in memory."""
        prefetch_aids(views, self.aids)
        return [evaluator_conversation(s, t, x, y, experience, self.aids) for s, t, x, y in views]

    def judge_views(
        self, views: list[tuple[Screenshot, str, float, float]], experience: str | None = None
    ) -> tuple[list[str], list[EvaluatorOutput], list[int]]:
        """`judge` of (screenshot, task, x, y) clicks on pages already in memory."""
        return self.judge(self.view_conversations(views, experience))


def evaluator_aids(spec: ModelSpec) -> ObservationAids:
    """The aids a built model was trained with (its card); the paper's inputs otherwise (a hub
    checkpoint or an endpoint has no card)."""
    if spec.backend == "hf" and spec.path and Path(spec.path, "darkguard.json").is_file():
        return ObservationAids(**read_card(spec.path).get("aids", {}))
    return ObservationAids()


def tuned_spec(spec: ModelSpec, adapter: Path) -> ModelSpec:
    """The evaluator with the Stage-1 adapter applied."""
    return dataclasses.replace(spec, name=f"{spec.name}+stage1", adapter=str(adapter))
