"""The baseline defenses of the arena (Veer paper, Appendix D.4), each adapted only to the arena's
observation, prompt and action interfaces; none changes the page (Veer's state intervention is
not added to them), and every rejected proposal goes back to the agent for a replan within the
common step budget.

- `icp.Icp`: in-context prompting, a static dark-pattern warning in the agent's context
  (Cuvin et al. 2026);
- `guardrail.Guardrail`: a per-step deceptive-interface assessment of the observation, warning
  the agent of what it found (Cuvin et al. 2026);
- `spotlighting.Spotlighting`: the page text delimited as untrusted content (Hines et al. 2024,
  delimiting mode);
- `vigil.Vigil`: sanitize the page text, guide with constraints from the task, audit each
  proposed action (Lin et al. 2026);
- `safepred.SafePred`: a one-step world model predicts the proposal's state change, a policy
  scores its risk, and risk above 0.7 returns risk guidance (Chen et al. 2026).

The judgements of Guardrail, VIGIL and SafePred follow the same params value as Veer's reasoner
(`llm_judge`): their rule code ("offline", the tiny profile) or a chat model asked for strict JSON
under each method's contract (`guardrail_llm`, `vigil_llm`, `safepred_llm`; the paper profile).

`KIND_WORDS` names the material kinds of `veer.commitments` in the words the warnings use.
"""

from __future__ import annotations

KIND_WORDS = {
    "marketing": "marketing",
    "data_sharing": "data sharing",
    "consent": "consent",
    "add_on": "add-on",
    "subscription": "subscription",
    "payment": "payment",
    "install": "app install",
}
