"""The `offline` base web agent for the arena: a generic scripted policy (no LLM) over what a
user's agent sees of a live page.

- `goal`: the goal parsed into a plan (kind and slots); warnings parsed into an avoid list.
- `grounding`: goal phrases scored against element names (MiniLM embeddings + token overlap).
- `reading`: answers read off page text, written to the scratchpad.
- `agent`: the policy, `OfflineWebAgent`.
"""

from __future__ import annotations

from darkguard.agents.web.agent import OfflineWebAgent
from darkguard.agents.web.goal import Avoid, Plan, parse_goal, parse_warnings

__all__ = ["Avoid", "OfflineWebAgent", "Plan", "parse_goal", "parse_warnings"]
