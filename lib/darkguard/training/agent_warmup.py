"""Supervised warm-up data of a tiny VLM agent (trl `SFTTrainer`, via `models.tiny.sft.warm_up`).

The tiny agent sees what `VLMAgent` sends any model: the agent system prompt, the screenshot and
the goal, and, after a rejection, its rejected click and the evaluator's feedback (Reject &
Rethink). It learns to answer `<action>click(x, y)</action>` at the centroid of the correct box in
its coordinate convention. A share `rejection_rate` of the rows carries one rejected click of the
same page (its deceptive or null click from the train clicks), so that the agent also learns to
propose again after a rejection.
"""

from __future__ import annotations

import random
from pathlib import Path

from darkguard import cache
from darkguard.agents import Rejection
from darkguard.agents.vlm import agent_conversation
from darkguard.models.parsing import Click, format_click
from darkguard.models.tiny.sft import vision_prompt
from darkguard.ruc import schema


def agent_rows(
    records: list[dict],
    clicks: list[dict],
    data_dir: Path,
    max_pixels: int | None,
    coordinates: str,
    rejection_rate: float,
    seed: int,
) -> list[dict]:
    """Prompt-completion rows (trl's vision format), one per record: the conversation the agent
    sees and the click on the correct box's centroid as the completion."""
    if not 0.0 <= rejection_rate <= 1.0:
        raise ValueError(f"rejection rate {rejection_rate} is not in [0, 1]")
    rng = random.Random(seed)
    wrong: dict[str, list[dict]] = {}
    for c in clicks:
        if c["label"] != 1:
            wrong.setdefault(c["sample_id"], []).append(c)
    rows = []
    for record in sorted(records, key=lambda r: str(r["id"])):
        image = cache.fitted(Path(data_dir) / record["image_path"], max_pixels)[0]
        w, h = record["image_width"], record["image_height"]
        rejected = []
        candidates = wrong.get(str(record["id"]), [])
        if candidates and rng.random() < rejection_rate:
            c = rng.choice(candidates)
            rejected = [Rejection(Click(c["x"], c["y"]), c["label"])]
        conversation = agent_conversation(
            image, schema.task_text(record), rejected, w, h, coordinates
        )
        x, y = schema.centroid(schema.correct_bbox(record))
        answer = format_click(x, y, w, h, coordinates)
        rows.append(
            {
                **vision_prompt(conversation),
                "completion": [
                    {"role": "assistant", "content": [{"type": "text", "text": answer}]}
                ],
            }
        )
    return rows
