"""Stage-2 summarizers: turn failure cases (paper App. C.3: task, screenshot, mistake, persistence
count) and the previous experience into a new experience.

`ModelSummarizer` asks any multimodal backend (hf or openai) with the summarizer prompt of
`darkguard.models.prompts`. `OfflineSummarizer`, the `tiny` profile's default, derives guidance
deterministically from the same case information: the kind of mistake, where the click sits on the
screenshot, what lies under it (a coloured control or plain page) and the task's verb, each
weighted by the case's persistence count.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image

from darkguard import cache
from darkguard.defenses.dude.inputs import Screenshot
from darkguard.models import prompts
from darkguard.models.backends import Backend

LABEL_WORDS = {1: "legitimate (1)", 0: "ineffective (0)", -1: "deceptive (-1)", None: "unreadable"}


def click_band(x: float, y: float, width: float, height: float) -> str:
    """Where the click sits: top/middle/bottom x left/centre/right of the screenshot."""
    rows = ("top", "middle", "bottom")[min(2, int(3 * y / max(height, 1)))]
    cols = ("left", "centre", "right")[min(2, int(3 * x / max(width, 1)))]
    return f"{rows} {cols}"


def under_click(image: Image.Image, x: float, y: float, radius: int = 6) -> str:
    """`a coloured control` when the pixels under the click are saturated, else `plain page`."""
    w, h = image.size
    left, top = max(0, int(x) - radius), max(0, int(y) - radius)
    right, bottom = min(w, int(x) + radius + 1), min(h, int(y) + radius + 1)
    patch = np.asarray(image.crop((left, top, right, bottom)).convert("RGB").convert("HSV"))
    if patch.size == 0:
        return "plain page"
    saturation = float(patch[..., 1].mean())
    return "a coloured control" if saturation > 60 else "plain page"


def click_facts(image: Image.Image, x: float, y: float, task: str) -> dict:
    """What a case shows: where the click is, what lies under it, the task's verb."""
    return {
        "band": click_band(x, y, image.width, image.height),
        "under": under_click(image, x, y),
        "verb": (task or "").split(" ", 1)[0].lower() or "the",
    }


def case_features(case: dict, data_dir: Path) -> dict:
    """The facts the offline summarizer reads from one case (its screenshot and its mistake)."""
    image = cache.decoded(Path(data_dir) / case["image_path"])  # decoded once per process
    facts = click_facts(image, case["x"], case["y"], case.get("task", ""))
    return {"mistake": (case.get("predicted"), case["label"]), **facts}


def rule_line(predicted: int | None, truth: int, facts: dict, weight: int) -> str:
    """One guidance rule in the offline summarizer's wording."""
    return (
        f"- Clicks on {facts['under']} in the {facts['band']} of the page "
        f"(tasks like '{facts['verb']} ...') were judged {LABEL_WORDS[predicted]} but "
        f"were {LABEL_WORDS[truth]}: judge such clicks {truth}. [persistence {weight}]"
    )


class OfflineSummarizer:
    """Deterministic guidance mined from the failure batch, merged with the previous experience:
    one rule per kind of mistake, the most persistent first; older rules about other mistakes are
    kept below the new ones."""

    def __init__(self, data_dir: Path, max_rules: int = 4) -> None:
        self.data_dir = Path(data_dir)
        self.max_rules = max_rules

    def summarize(self, failures: list[dict], kappa: list[int], experience: str) -> str:
        weights: Counter = Counter()
        places: dict[tuple, Counter] = {}
        looks: dict[tuple, Counter] = {}
        verbs: dict[tuple, Counter] = {}
        for case, k in zip(failures, kappa, strict=True):
            f = case_features(case, self.data_dir)
            m = f["mistake"]
            weights[m] += k
            places.setdefault(m, Counter())[f["band"]] += k
            looks.setdefault(m, Counter())[f["under"]] += k
            verbs.setdefault(m, Counter())[f["verb"]] += k
        rules = []
        for m, weight in sorted(weights.items(), key=lambda kv: (-kv[1], str(kv[0]))):
            facts = {"under": _top(looks[m]), "band": _top(places[m]), "verb": _top(verbs[m])}
            rules.append(rule_line(m[0], m[1], facts, weight))
        new_kinds = {f"were {LABEL_WORDS[t]}: judge such clicks {t}" for (_, t) in weights}
        kept = [
            line
            for line in experience.splitlines()
            if line.strip() and not any(kind in line for kind in new_kinds)
        ]
        return "\n".join((rules + kept)[: self.max_rules])


def _top(counter: Counter) -> str:
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


class ModelSummarizer:
    """A multimodal model summarizes (hf or openai backend): the summarizer prompt, the previous
    experience, and each case in the format of App. C.3 with its marked screenshot."""

    def __init__(self, backend: Backend, data_dir: Path, max_words: int = 300) -> None:
        self.backend = backend
        self.data_dir = Path(data_dir)
        self.max_words = max_words

    def conversation(self, failures: list[dict], kappa: list[int], experience: str) -> list:
        parts: list[dict] = [
            {"type": "text", "text": f"Current experience:\n{experience or '(empty)'}\n\nCases:"}
        ]
        for case, k in zip(failures, kappa, strict=True):
            with Image.open(self.data_dir / case["image_path"]) as img:
                shot = Screenshot(img, getattr(self.backend, "max_pixels", None))
            text = prompts.SUMMARIZER_CASE.format(
                case_id=case["click_id"],
                task=case.get("task", ""),
                pred_label=case.get("predicted"),
                gt_label=case["label"],
                kappa=k,
            )
            before, after = text.split("<image>", 1)
            parts += [
                {"type": "text", "text": before},
                {"type": "image", "image": shot.marked(case["x"], case["y"])},
                {"type": "text", "text": after},
            ]
        system = prompts.SUMMARIZER_SYSTEM.format(max_words=self.max_words)
        return [{"role": "system", "content": system}, {"role": "user", "content": parts}]

    def summarize(self, failures: list[dict], kappa: list[int], experience: str) -> str:
        return self.backend.generate([self.conversation(failures, kappa, experience)])[0].strip()
