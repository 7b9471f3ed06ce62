"""A model-backed agent: the agent prompt, the screenshot and the goal, then each rejected click
with the evaluator's feedback; the answer parsed in the model's coordinate convention."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from darkguard.agents import Rejection
from darkguard.models import prompts
from darkguard.models.backends import Backend, Conversation, generate_counted
from darkguard.models.parsing import AgentOutput, from_pixels, parse_action


def agent_conversation(
    image: Image.Image,
    task: str,
    rejected: list[Rejection],
    width: int,
    height: int,
    coordinates: str = "pixels",
    react: bool = False,
) -> Conversation:
    """What an agent model sees: the agent prompt, the screenshot and the goal, then each rejected
    click (in the model's coordinate convention for a width x height screenshot) with the
    evaluator's feedback."""
    system = prompts.REACT_AGENT_SYSTEM if react else prompts.AGENT_SYSTEM
    user: list[dict] = [
        {"type": "image", "image": image},
        {"type": "text", "text": f"Goal: {task}"},
    ]
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    for r in rejected:  # the rejection is fed back to the agent
        x, y = from_pixels(r.x, r.y, width, height, coordinates)
        messages += [
            {"role": "assistant", "content": f"<action>click({x}, {y})</action>"},
            {"role": "user", "content": prompts.rejection_feedback(x, y, r.label)},
        ]
    return messages


@dataclass
class VLMAgent:
    name: str
    backend: Backend
    react: bool = False

    def propose(self, image: Image.Image, task: str, rejected: list[Rejection]) -> AgentOutput:
        return self.propose_many([(image, task, rejected)])[0][0]

    def propose_many(
        self, requests: list[tuple[Image.Image, str, list[Rejection]]]
    ) -> list[tuple[AgentOutput, int]]:
        """`propose` for many (screenshot, task, rejected) at once, in the backend's batches,
        with the tokens each used."""
        convention = self.backend.spec.coordinates
        conversations = [
            agent_conversation(
                image, task, rejected, image.width, image.height, convention, self.react
            )
            for image, task, rejected in requests
        ]
        texts, tokens = generate_counted(self.backend, conversations)
        return [
            (parse_action(text, image.width, image.height, convention), used)
            for (image, _, _), text, used in zip(requests, texts, tokens, strict=True)
        ]
