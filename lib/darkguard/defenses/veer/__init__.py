"""Veer ("Before Acting, Change the State"): a runtime defense that changes task-relevant Web
state before a task-valid action realizes an unauthorized consequence.

Built so far: its structured representations (`contracts`), the task authorization A(u)
(`authorization`) and the Web state with temporal evidence (`state`). Consequence assessment,
the intervention objective, prospective trajectories and guarded execution are not built yet.
"""
