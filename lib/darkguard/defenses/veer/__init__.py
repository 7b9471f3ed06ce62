"""Veer ("Before Acting, Change the State"): a runtime defense that changes task-relevant Web
state before a task-valid action realizes an unauthorized consequence.

Built so far: its structured representations (`contracts`), the task authorization A(u)
(`authorization`), the Web state with temporal evidence (`state`) and what a control commits
the user to (`commitments`). Consequence assessment,
the intervention objective, prospective trajectories and guarded execution are not built yet.
"""
