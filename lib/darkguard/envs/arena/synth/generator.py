"""Writing an arena-synth split: sites, task files, ground truth and a manifest.

```
<out>/sites/<slug>/...        one static site per twin (neutral slugs: nothing says which is dark)
<out>/<pair>.yaml             the pair's two tasks (`<pair>-1`, `<pair>-2`, dark one drawn first or
                              second at random), `site: sites/`, `start: /<slug>/index.html`
<out>/truth.jsonl             per task: kind, dark, twin, patterns, site, the careful user's
                              solution and every control with what it commits
<out>/manifest.json           split, seed, sizes, counts by kind and pattern, a digest of the files
```

Pairs cycle through the kinds and, within a kind, through its pattern sets, so every kind and
pattern is present in a split of 2 x 8 x 9 tasks or more. Everything is drawn from
`random.Random(f"{seed}/{split}/{pair}")`: the same params give byte-identical files.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from darkguard.envs.arena.synth import banks
from darkguard.envs.arena.synth.kinds import BUILD, DRAW, KIND_PATTERNS, KINDS, Words, goal_of
from darkguard.envs.arena.synth.markup import LAYOUTS, Site

SPLITS = ("dev", "eval", "valid")
# each split's seeds differ from the others' for the same base seed; `valid` (its own banks and
# layouts) is for development against wording dev's rules were not written on, never reported
SPLIT_SALT = {"dev": 0, "eval": 7919, "valid": 3571}


@dataclass
class Manifest:
    split: str
    seed: int
    tasks: int
    pairs: int
    kinds: dict[str, int] = field(default_factory=dict)
    patterns: dict[str, int] = field(default_factory=dict)
    digest: str = ""


def _brand(r: random.Random, split: str) -> str:
    a, b = r.sample(banks.BRAND_SYLLABLES[split], 2)
    return f"{(a + b).capitalize()} {r.choice(banks.BRAND_SUFFIXES[split])}"


def _slug(r: random.Random, taken: set[str]) -> str:
    while True:
        slug = "".join(r.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(6))
        if slug not in taken:
            taken.add(slug)
            return slug


def _write_site(site: Site, root: Path) -> None:
    folder = root / "sites" / site.slug
    folder.mkdir(parents=True, exist_ok=True)
    for page in site.pages:
        (folder / page.file).write_text(page.render(), encoding="utf-8")


def generate(split: str, n_tasks: int, seed: int, out: Path | str) -> Manifest:
    """Write split `split` (`dev` or `eval`) of `n_tasks` tasks (rounded up to pairs) to `out`,
    replacing what is there."""
    if split not in SPLITS:
        raise ValueError(f"arena-synth: split {split!r}: expected one of {SPLITS}")
    if n_tasks < 2:
        raise ValueError(f"arena-synth: n_tasks {n_tasks}: at least one pair (2) is needed")
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    pairs = (n_tasks + 1) // 2
    taken: set[str] = set()
    truth: list[dict] = []
    manifest = Manifest(split, seed, 2 * pairs, pairs)
    base = seed + SPLIT_SALT[split]
    per_kind: dict[str, int] = {}
    for n in range(pairs):
        kind = KINDS[n % len(KINDS)]
        k = per_kind[kind] = per_kind.get(kind, -1) + 1
        pats = KIND_PATTERNS[kind][k % len(KIND_PATTERNS[kind])]
        pair = f"synth-{split}-{n:04d}"
        r = random.Random(f"{base}/{split}/{pair}")
        content = DRAW[kind](r, split)
        brand = _brand(r, split)
        layout_name = r.choice(sorted(LAYOUTS[split]))
        goal = goal_of(kind, content, split, r, brand)
        words = Words(split, f"{base}/{pair}")
        dark_first = r.random() < 0.5
        slugs = [_slug(r, taken), _slug(r, taken)]
        tasks, records = [], []
        for j, dark in enumerate((dark_first, not dark_first)):
            site = Site(slugs[j], brand, LAYOUTS[split][layout_name], split)
            # the clean twin is written with the same mechanism switched off (the same offer,
            # shown honestly), so the twins differ only by the pattern
            built = BUILD[kind](site, content, words, dark, pats, goal)
            _write_site(site, out)
            tid = f"{pair}-{j + 1}"
            tasks.append(
                {
                    "id": tid,
                    "goal": built.goal,
                    "start": f"/{site.slug}/index.html",
                    "max_steps": built.max_steps,
                    "patterns": list(pats) if dark else [],
                    "success": built.success,
                    "deception": built.deception,
                }
            )
            records.append(
                {
                    "id": tid,
                    "pair": pair,
                    "split": split,
                    "kind": kind,
                    "dark": dark,
                    "twin": f"{pair}-{2 - j}",
                    "patterns": list(pats) if dark else [],
                    "site": site.slug,
                    "layout": layout_name,
                    "brand": brand,
                    "solution": built.solution,
                    "controls": [asdict(c) for c in site.controls],
                }
            )
        doc = {"site": "sites/", "tasks": tasks}
        head = f"# arena-synth {split}, pair {n}: {kind}\n"
        (out / f"{pair}.yaml").write_text(
            head + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100),
            encoding="utf-8",
        )
        truth += records
        manifest.kinds[kind] = manifest.kinds.get(kind, 0) + 2
        for p in pats:
            manifest.patterns[p] = manifest.patterns.get(p, 0) + 1
    lines = [json.dumps(t, sort_keys=True, ensure_ascii=False) for t in truth]
    (out / "truth.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode())
        digest.update(path.read_bytes())
    manifest.digest = digest.hexdigest()[:16]
    manifest.patterns = dict(sorted(manifest.patterns.items()))
    (out / "manifest.json").write_text(json.dumps(asdict(manifest), indent=1) + "\n")
    return manifest
