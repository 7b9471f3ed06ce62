"""The arena: live local web apps with deceptive conditions, tasks as data, outcomes judged from
the episode (Veer paper §4.1, App. C-E; `reference/arena.md`).

- `tasks`: YAML task files (a built-in app or a user's static site) and the built-in sets;
- `predicates`: the outcome predicates T and D are written in;
- `server`: one Flask server on 127.0.0.1 with per-episode state; `apps/`: the built-in apps;
- `env`: the Playwright environment (`reset(task)`, `step(action)`, `outcome()`);
- `actions`: click, type, select, scroll, goto, back, stop.
"""
