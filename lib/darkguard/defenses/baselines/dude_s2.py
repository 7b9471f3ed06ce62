"""DUDE-S2 in the arena (Veer paper, App. D.4; DUDE paper 3.3-3.4): the Stage-2 experience in
the agent's context (the `${experience}` slot), and DUDE's click gate adapted to the arena's
click interface. A click on element i is the click at the centre of its box on the page's
screenshot; the built evaluator judges it with the experience in its guidance block, exactly as
`DudeGate` does (paper 3.4: only L = 1 executes). Any other judgement (0, -1, unreadable) turns
the click back, and the judgement goes to the agent (Reject & Rethink). Other actions are not
clicks and pass unreviewed, and so does a click whose point lies outside the screenshot (below the
fold, or on a scrolled page: boxes are in page coordinates, the screenshot is the viewport): the
reviewer sees pixels only.

The evaluator is the project's built one, found as the guard finds it (`stages.guard_eval`): the
model folder, the Stage-1 adapter when Stage 1 tuned that model, the Stage-2 experience file. It
is loaded on first use, once per process, so the class (or a partial of it) is a picklable
factory for worker processes."""

from __future__ import annotations

import io
import json
from functools import lru_cache
from pathlib import Path

from PIL import Image

from darkguard import paths
from darkguard.defenses.arena import RELEASE, Browser, Passive, Verdict
from darkguard.defenses.dude.evaluator import Evaluator, evaluator_aids
from darkguard.defenses.dude.gate import DudeGate
from darkguard.envs import Observation
from darkguard.envs.arena.actions import Action, Click
from darkguard.envs.arena.observation import Element, PageObservation
from darkguard.io import InputError
from darkguard.models.identity import weights_hash
from darkguard.models.parsing import Click as PointClick
from darkguard.models.spec import ModelSpec

MODEL = "data/models/evaluator-large"  # params.yaml: models.tiny.evaluator_large
ADAPTER = "data/stage1/adapter"  # the stage1_grpo stage's LoRA adapter
EXPERIENCE = "data/stage2/experience.txt"  # params.yaml: guard_eval.experience
BATCH_SIZE, MAX_NEW_TOKENS = 16, 24  # params.yaml: models.tiny.evaluator_large

EXPERIENCE_HEADING = "[IMPORTANT GUIDANCE] Experience from earlier clicks on deceptive interfaces:"
EXPERIENCE_END = "[END OF GUIDANCE]"
JUDGED = {0: "ineffective (0)", -1: "deceptive (-1)", None: "not clearly legitimate (unreadable)"}
NAME_CHARS = 80  # the longest element name quoted back to the agent


def evaluator_spec(model: str | Path = MODEL, adapter: str | Path | None = ADAPTER) -> ModelSpec:
    """The evaluator's model: the folder `model` (an error names it when absent), with the LoRA
    `adapter` (None: none). An adapter whose Stage-1 record (`trained_with.json` beside it) names
    other weights than `model`'s is refused."""
    folder = paths.resolve(model)
    if not (folder / "config.json").is_file():
        raise InputError(
            f"{folder / 'config.json'}: no built evaluator for DUDE-S2 (run the build_models "
            "stage, or pass the model folder)"
        )
    name = "evaluator_large" if folder == paths.resolve(MODEL) else folder.name
    spec = ModelSpec(name, "hf", str(folder), batch_size=BATCH_SIZE, max_new_tokens=MAX_NEW_TOKENS)
    if adapter is None:
        return spec
    tuned = paths.resolve(adapter)
    if not (tuned / "adapter_config.json").is_file():
        raise InputError(
            f"{tuned / 'adapter_config.json'}: no Stage-1 adapter (run the stage1_grpo stage, "
            "or pass adapter=None)"
        )
    record = tuned.parent / "trained_with.json"
    if record.is_file():
        trained_on = json.loads(record.read_text())["evaluator"]["path"]
        if trained_on != weights_hash(folder):
            raise InputError(
                f"{record}: the adapter {tuned} was trained on other weights than {folder}"
            )
    return ModelSpec(
        f"{name}+stage1",
        "hf",
        str(folder),
        adapter=str(tuned),
        batch_size=BATCH_SIZE,
        max_new_tokens=MAX_NEW_TOKENS,
    )


def read_experience(path: str | Path | None) -> str | None:
    """The Stage-2 experience text, stripped (None: no path, or an empty file)."""
    if path is None:
        return None
    file = paths.resolve(path)
    if not file.is_file():
        raise InputError(f"{file}: no Stage-2 experience (run the stage2_summarize stage)")
    return file.read_text(encoding="utf-8").strip() or None


@lru_cache(maxsize=4)
def load_evaluator(spec: ModelSpec) -> Evaluator:
    """The evaluator of `spec` with the aids it was built with, loaded once per process."""
    from darkguard.models.backends import load_backend

    return Evaluator(load_backend(spec), evaluator_aids(spec))


def click_point(element: Element) -> tuple[float, float]:
    """Where a click on `element` lands: the centre of its box."""
    x, y, w, h = element.box
    return x + w / 2, y + h / 2


def named(element: Element) -> str:
    """The element as the agent knows it: its name (else its visible text) in double quotes,
    inner quotes removed, at most NAME_CHARS characters; an element with neither is its index and
    role as the page listing shows them (`[3] img`)."""
    text = element.name or element.text
    for mark in "\"'“”":
        text = text.replace(mark, " ")
    text = " ".join(text.split())[:NAME_CHARS].strip()
    return f'"{text}"' if text else f"[{element.index}] {element.role}"


def rejection_message(element: str, label: int | None) -> str:
    """What the agent is told when its click on `element` (as `named` words it) is turned back
    (Reject & Rethink)."""
    return f"The click on {element} was judged {JUDGED[label]}: choose another action."


def decode_png(data: bytes) -> Image.Image:
    """A screenshot's PNG bytes as an RGB image."""
    with Image.open(io.BytesIO(data)) as image:
        return image.convert("RGB")


class DudeS2(Passive):
    """The Stage-2 experience for the agent, and the evaluator gating every click."""

    name = "dude-s2"
    needs_screenshots = True

    def __init__(
        self,
        model: str | Path = MODEL,
        adapter: str | Path | None = ADAPTER,
        experience: str | Path | None = EXPERIENCE,
    ) -> None:
        self.spec = evaluator_spec(model, adapter)
        self.experience = read_experience(experience)
        self._gate: DudeGate | None = None
        self._shot: tuple[bytes, Image.Image] | None = None  # the last screenshot decoded

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_gate": None, "_shot": None}  # the model loads again there

    @property
    def gate(self) -> DudeGate:
        """DUDE's gate on the evaluator (loaded on first use)."""
        if self._gate is None:
            self._gate = DudeGate(load_evaluator(self.spec), self.experience, self.name)
        return self._gate

    def reset(self, goal: str, episode_key: str) -> None:
        self.gate  # noqa: B018  (the model loads before the first step, not during it)
        self._shot = None

    def brief(self) -> list[str]:
        if not self.experience:
            return []
        return [f"{EXPERIENCE_HEADING}\n{self.experience}\n{EXPERIENCE_END}"]

    def review(self, obs: PageObservation, action: Action, browser: Browser) -> Verdict:
        if not isinstance(action, Click) or not 0 <= action.index < len(obs.elements):
            return RELEASE
        if obs.screenshot is None:
            raise ValueError(
                "DUDE-S2 judges clicks on the page's screenshot: run its episodes with screenshots"
            )
        element = obs.elements[action.index]
        x, y = click_point(element)
        image = self._image(obs.screenshot)
        if not (0 <= x < image.width and 0 <= y < image.height):
            # the element lies outside the screenshot (below the fold, or the page is scrolled:
            # boxes are in page coordinates): the reviewer sees pixels only, so it cannot judge
            return RELEASE
        (judged,) = self.gate.review_many([(Observation(image, obs.goal), PointClick(x, y))])
        name = named(element)
        trace = {
            "label": judged.label,
            "x": x,
            "y": y,
            "element": name,
            "tokens": judged.tokens,
        }
        if judged.allow:
            return Verdict("release", trace=(trace,))
        return Verdict("replan", rejection_message(name, judged.label), trace=(trace,))

    def _image(self, png: bytes) -> Image.Image:
        """The screenshot decoded, the same image object for the same bytes (the gate keeps one
        resized copy per image)."""
        if self._shot is None or self._shot[0] != png:
            self._shot = (png, decode_png(png))
        return self._shot[1]
