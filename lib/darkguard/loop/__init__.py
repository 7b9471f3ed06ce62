"""The one agent x defense x environment loop (`episode`: step by step, as both papers define an
episode) and how it executes: in lockstep batches (`episode.drive`), on worker pools (`pool`),
journaled so that an interrupted run resumes. `ruc` runs RUC's static screenshots, `arena` the
arena's live pages; both are the same loop with their own episode records.
"""
