"""What each DVC stage runs, read from the sources: the files of lib/darkguard its code can run
(dvc.yaml's code `deps`) and the params.yaml keys it reads (dvc.yaml's `params`, its module's
`PARAMS`), which `dvc_file` writes into dvc.yaml.

A stage's code is the import closure, followed statically (nothing is imported), of its notebook's
code cells, its module `darkguard.stages.<stage>` and `darkguard.notebook` (which runs and cleans
the notebook): module-level and function-level imports, relative ones, `from pkg import name` when
`name` is a submodule, every package `__init__` on the way. Also followed: strings that name a
darkguard module (`"darkguard.training.dude.launch"`, run with `python -m`); "module:attr" strings
(`"darkguard.defenses.veer.defense:Veer"`) once a reached module imports by name (importlib);
`import_module(f"{__name__}.{x}")` (every module of the package); strings that name a path under
lib/darkguard (files read for a fingerprint). Data files beside a reached module (templates, task
files) count, as do the folders without an `__init__` below it. Imports under `if TYPE_CHECKING:`
never run and are left out.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from darkguard import paths
from darkguard.io import InputError

PACKAGE = Path(__file__).resolve().parent  # lib/darkguard
RUNNER = "darkguard.notebook"  # runs every stage's notebook and cleans the executed copy
_MODULE = re.compile(r"darkguard(\.[A-Za-z_]\w*)+(:[\w.]+)?")
_PATH = re.compile(r"(?!/)(?!.*\.\.)[\w.-]*/[\w./-]*")  # a relative path with a folder
_SKIPPED = {"__pycache__", ".ipynb_checkpoints"}


def module_file(name: str) -> Path | None:
    """The source of module `name` (`darkguard.a.b`) under lib/darkguard, or None."""
    parts = name.split(".")
    if parts[0] != "darkguard":
        return None
    base = PACKAGE.joinpath(*parts[1:])
    candidates = [base / "__init__.py", *([base.with_suffix(".py")] if len(parts) > 1 else [])]
    return next((path for path in candidates if path.is_file()), None)


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["darkguard", *parts])


def _files(folder: Path) -> Iterator[Path]:
    """Every file under `folder`, caches left out."""
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix != ".pyc" and not _SKIPPED & set(path.parts):
            yield path


def _submodules(package: str) -> set[str]:
    """Every module of `package` and of its subpackages."""
    path = module_file(package)
    if path is None or path.name != "__init__.py":
        return {package} if path else set()
    return {_module_name(p) for p in _files(path.parent) if p.suffix == ".py"}


def _longest_module(name: str) -> str | None:
    parts = name.split(".")
    for end in range(len(parts), 1, -1):
        if module_file(".".join(parts[:end])):
            return ".".join(parts[:end])
    return None


def _walk(tree: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `tree`, without the bodies of `if TYPE_CHECKING:` (imports that never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


@dataclass
class _Refs:
    modules: set[str] = field(default_factory=set)  # imported
    files: set[Path] = field(default_factory=set)  # read
    factories: set[str] = field(default_factory=set)  # named as "module:attr"
    by_name: bool = False  # imports modules by name (importlib)

    def add(self, other: _Refs) -> None:
        self.modules |= other.modules
        self.files |= other.files
        self.factories |= other.factories
        self.by_name |= other.by_name


def references(source: str, module: str | None = None, is_package: bool = False) -> _Refs:
    """The darkguard modules and package files `source` (of `module`, when given) can load."""
    refs = _Refs()
    package = module if is_package else (module.rpartition(".")[0] if module else "")
    for node in _walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            refs.modules |= {a.name for a in node.names if a.name.split(".")[0] == "darkguard"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            if base.split(".")[0] != "darkguard":
                continue
            refs.modules.add(base)
            refs.modules |= {f"{base}.{a.name}" for a in node.names if a.name != "*"}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            _string(node.value.strip(), refs)
        elif isinstance(node, ast.Call) and _imports_by_name(node):
            refs.by_name = True
            _dynamic_import(node.args[0], module, refs)
        elif isinstance(node, ast.JoinedStr) and node.values:
            _fstring_path(node, refs)
    return refs


def _imports_by_name(call: ast.Call) -> bool:
    name = ast.unparse(call.func).rpartition(".")[2]
    return name in ("import_module", "__import__", "resolve_name") and bool(call.args)


def _string(text: str, refs: _Refs) -> None:
    if _MODULE.fullmatch(text):
        found = _longest_module(text.split(":")[0])
        if found:
            (refs.factories if ":" in text else refs.modules).add(found)
    elif _PATH.fullmatch(text):
        path = PACKAGE / text
        if path.is_file():
            refs.files.add(path)
        elif path.is_dir() and text.strip("/"):
            refs.files |= set(_files(path))


def _dynamic_import(arg: ast.expr, module: str | None, refs: _Refs) -> None:
    """`import_module(f"{__name__}.{x}")` and `import_module(f"darkguard.pkg.{x}")` import any
    module of the package."""
    if not isinstance(arg, ast.JoinedStr) or len(arg.values) < 2:
        return
    first, second = arg.values[:2]
    if (
        isinstance(first, ast.FormattedValue)
        and ast.unparse(first.value) == "__name__"
        and isinstance(second, ast.Constant)
        and str(second.value).startswith(".")
        and module
    ):
        refs.modules |= _submodules(module)
    elif isinstance(first, ast.Constant) and str(first.value).startswith("darkguard."):
        refs.modules |= _submodules(str(first.value).rpartition(".")[0])


def _fstring_path(node: ast.JoinedStr, refs: _Refs) -> None:
    """`f"defenses/veer/{m}.py"` reads any file of the folder."""
    first = node.values[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and len(node.values) > 1:
        prefix = first.value
        if _PATH.fullmatch(prefix) and (PACKAGE / prefix.rpartition("/")[0]).is_dir():
            refs.files |= set(_files(PACKAGE / prefix.rpartition("/")[0]))


def _data_files(folder: Path) -> set[Path]:
    """The files beside a module that are not Python, and every file of the folders below it
    that are not packages (templates, task files)."""
    found = {p for p in folder.iterdir() if p.is_file() and p.suffix not in (".py", ".pyc")}
    for sub in folder.iterdir():
        if sub.is_dir() and sub.name not in _SKIPPED and not (sub / "__init__.py").is_file():
            found |= set(_files(sub))
    return found


def closure(modules: Iterable[str], given: _Refs | None = None) -> set[Path]:
    """The files under lib/darkguard that importing `modules` can run or read. A "module:attr"
    string counts once a reached module imports by name (importlib): only then can it load.
    `given`: what the caller's own code (a notebook's) names."""
    given = given or _Refs()
    seen: set[str] = set()
    todo = [m for m in [*modules, *given.modules] if module_file(m)]
    found = set(given.files)
    named = _Refs(factories=set(given.factories), by_name=given.by_name)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            parts = name.split(".")
            todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # packages' __init__s
            path = module_file(name)
            if path is None:
                continue
            found.add(path)
            found |= _data_files(path.parent)
            refs = references(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
            found |= refs.files
            named.add(refs)
            todo += [m for m in refs.modules if m not in seen and module_file(m)]
        if not todo and named.by_name:
            todo = sorted(named.factories - seen)
    return found


def notebook_sources(notebook: Path) -> list[str]:
    """The code cells of a notebook (IPython magics and shell lines left out)."""
    try:
        cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(f"{notebook}: cannot read the notebook ({exc})") from None
    sources = []
    for cell in cells:
        if cell.get("cell_type") == "code":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            lines = text.splitlines()
            sources.append("\n".join(x for x in lines if not x.lstrip().startswith(("%", "!"))))
    return sources


def notebook_references(notebook: Path) -> _Refs:
    """The darkguard modules (and package files) a notebook's code cells name."""
    refs = _Refs()
    for source in notebook_sources(notebook):
        refs.add(references(source))
    return refs


def notebook_stage(notebook: Path) -> str | None:
    """The stage a notebook runs: the one `darkguard.stages` module it imports (None: none)."""
    stages = sorted(
        {
            m.split(".")[2]
            for m in notebook_references(notebook).modules
            if m.startswith("darkguard.stages.") and module_file(m)
        }
    )
    if len(stages) > 1:
        raise InputError(f"{notebook}: imports several stages {stages}; a notebook runs one")
    return stages[0] if stages else None


def stage_params(stage: str) -> tuple[str, ...]:
    """The dotted params.yaml keys of `darkguard.stages.<stage>`: its `PARAMS` literal."""
    path = module_file(f"darkguard.stages.{stage}")
    if path is None:
        raise InputError(f"stage '{stage}': no module darkguard.stages.{stage}")
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == [
            "PARAMS"
        ]:
            try:
                return tuple(ast.literal_eval(node.value))
            except ValueError:
                break
    raise InputError(f"{paths.display(path)}: needs `PARAMS = (...)`, a tuple of literal keys")


def stage_sections(stage: str) -> list[str]:
    """The params.yaml sections a stage reads, in the order of its `PARAMS`."""
    return list(dict.fromkeys(key.split(".")[0] for key in stage_params(stage)))


def _cover(found: set[Path], folder: Path) -> list[Path]:
    """`found` with each folder all of whose files are in it named instead of its files."""
    every = list(_files(folder))
    if every and all(p in found for p in every):
        return [folder]
    out = []
    for child in sorted(folder.iterdir()):
        if child.is_dir() and child.name not in _SKIPPED:
            out += _cover(found, child)
        elif child in found:
            out.append(child)
    return out


def stage_code(stage: str, notebook: Path) -> list[str]:
    """The code deps of a stage: repository paths of its files under lib/darkguard, a folder
    named when every file in it is one of them."""
    found = stage_files(stage, notebook)
    return [p.relative_to(paths.ROOT).as_posix() for p in _cover(found, PACKAGE)]


def stage_files(stage: str, notebook: Path) -> set[Path]:
    """The files under lib/darkguard a stage runs or reads: the closure of its notebook, its
    module and the notebook runner."""
    return closure([f"darkguard.stages.{stage}", RUNNER], notebook_references(notebook))
