"""Veer ("Before Acting, Change the State"): a runtime defense that changes task-relevant Web
state before a task-valid action realizes an unauthorized consequence (paper Algorithm 1).

- `contracts`: the structured representations (paper Figures 5-7);
- `authorization`: A(u), each entry citing the task's words; `state`: the grounded Web state and
  temporal evidence; `commitments`, `prices`: what a control commits the user to;
- `assessment`: the consequence of a proposed action at its commit boundary, from what the page
  shows (`page_reading`), and whether the task authorizes it (`coverage`);
- `intervention`: the objective, the prospective trajectory, guarded execution;
- `reasoner`: the four decisions behind one interface, `offline` (deterministic code) or `llm`
  (`llm`: any OpenAI-compatible endpoint, the contracts as prompts);
- `defense`: `Veer`, the loop of Algorithm 1 and the ablation variants.
"""
