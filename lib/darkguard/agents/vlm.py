"""A model-backed agent: the agent prompt, the screenshot and the goal, then each rejected click
with the evaluator's feedback; the answer parsed in the model's coordinate convention."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image

from darkguard.agents import Rejection, Stateless
from darkguard.envs import Observation
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
class VLMAgent(Stateless):
    name: str
    backend: Backend
    react: bool = False

    def act(self, obs: Observation, rejected: Sequence[Rejection] = ()) -> AgentOutput:
        return self.act_many([(obs, list(rejected))])[0][0]

    def act_many(
        self, requests: list[tuple[Observation, list[Rejection]]]
    ) -> list[tuple[AgentOutput, int]]:
        """The next action for many (observation, rejected) at once, in the backend's batches,
        with the tokens each used."""
        convention = self.backend.spec.coordinates
        conversations = [
            agent_conversation(
                o.image, o.task, rejected, o.image.width, o.image.height, convention, self.react
            )
            for o, rejected in requests
        ]
        texts, tokens = generate_counted(self.backend, conversations)
        return [
            (parse_action(text, o.image.width, o.image.height, convention), used)
            for (o, _), text, used in zip(requests, texts, tokens, strict=True)
        ]
