"""The `report` stage (notebook 11, `reports.report.write_report`): the index of every output
and the headline results, from the other stages' reports; of params.yaml it reads the profile."""

from __future__ import annotations

# The params.yaml keys the stage reads (dvc.yaml lists them as its `params`).
PARAMS = ("base.profile",)
