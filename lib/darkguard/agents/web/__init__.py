"""The `offline` base web agent for the arena: a generic scripted policy (no LLM) over what a
user's agent sees of a live page.

- `goal`: the goal parsed into a plan (kind and slots); warnings parsed into an avoid list.
- `grounding`: goal phrases scored against element names (MiniLM embeddings + token overlap).
- `reading`: answers read off page text, written to the scratchpad.
- `vocabulary`: the role sets, the words looked for (regex patterns) and the habits' numbers.
- `agent`: the policy, `OfflineWebAgent`: the core loop, dialogs, bookkeeping; it mixes in
  - `shopping` (`buy`), `booking` (`book`), `forms` (`cancel`, `settings`, `signup`) and
    `answering` (`collect`, `answer`): the task-kind handlers;
  - `listing`: listed things (cards) and the one the goal asks for;
  - `navigation`: links, search and the fallback when a page offers nothing for the goal.
"""

from __future__ import annotations

from darkguard.agents.web.agent import OfflineWebAgent
from darkguard.agents.web.goal import Avoid, Plan, parse_goal, parse_warnings

__all__ = ["Avoid", "OfflineWebAgent", "Plan", "parse_goal", "parse_warnings"]
