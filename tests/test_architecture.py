"""The import rules of docs/architecture.md, enforced on the import graph: the layer table
(read from the document, compared with the code both ways), pure layers, no import cycles,
no adapter importing another (the CLI's launcher module aside), a lean hook path, and the
public API."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import waymarks

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "waymarks"
DOC = ROOT / "docs" / "architecture.md"
PURE = {"core", "recall", "planner"}
ADAPTERS = {"cli", "hosts", "mcp", "web"}
LAUNCHER = SRC / "cli" / "launchers.py"
IMPURE_MODULES = {"sqlite3", "os", "subprocess", "socket", "httpx", "requests", "urllib",
                  "mcp", "pathlib", "io", "time", "random", "secrets", "uuid", "fcntl",
                  "shutil", "tempfile", "platformdirs"}


def layer_table() -> dict[str, set[str]]:
    """The table of docs/architecture.md: package -> packages it may import."""
    text = DOC.read_text(encoding="utf-8")
    body = text[text.index("<!-- layer-table"):text.index("<!-- end layer-table -->")]
    table: dict[str, set[str]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        table[cells[0].strip("`")] = set(re.findall(r"`([a-z]+)`", cells[2]))
    return table


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """Nodes under ``if TYPE_CHECKING:`` (imports for type checkers only: never run)."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return hidden


def imports_of(path: Path, *, runtime_only: bool = False) -> set[str]:
    """Every module ``path`` imports (``from m import n`` also counts ``m.n``), in
    functions too; ``runtime_only`` leaves out imports for type checkers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = _type_checking_nodes(tree) if runtime_only else set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def package_of(path: Path) -> str:
    """``cli`` for ``src/waymarks/cli/app.py``; ``waymarks`` for the package's own files."""
    parts = path.relative_to(SRC).parts
    return parts[0] if len(parts) > 1 else "waymarks"


def internal(name: str) -> str | None:
    """The Waymarks package ``name`` belongs to (``waymarks`` for the public API)."""
    parts = name.split(".")
    if parts[0] != "waymarks":
        return None
    if len(parts) == 1 or not ((SRC / parts[1]).is_dir() or (SRC / f"{parts[1]}.py").exists()):
        return "waymarks"
    return parts[1]


@pytest.mark.slow
def test_the_layer_table_is_the_code_both_ways() -> None:
    table = layer_table()
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    assert set(table) == packages, "every package has exactly one row"
    used: dict[str, set[str]] = {package: set() for package in table}
    problems = []
    for path in SRC.rglob("*.py"):
        package = package_of(path)
        for name in imports_of(path):
            target = internal(name)
            if target is None or target == package or package == "waymarks":
                continue
            used[package].add(target)
            if target not in table[package]:
                problems.append(f"{path.relative_to(SRC)} imports {name}")
    assert problems == []
    unused = {p: sorted(table[p] - used[p]) for p in table if table[p] - used[p]}
    assert unused == {}, "the table allows imports no module makes: update docs/architecture.md"


@pytest.mark.slow
def test_pure_layers_do_no_io() -> None:
    problems = []
    for package in PURE:
        for path in (SRC / package).rglob("*.py"):
            problems += [f"{path.relative_to(SRC)} imports {name}" for name in imports_of(path)
                         if name.split(".")[0] in IMPURE_MODULES]
            text = path.read_text(encoding="utf-8")
            problems += [f"{path.relative_to(SRC)} reads the clock" for call in
                         ("datetime.now(", "date.today(", "time.time(") if call in text]
    assert problems == []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@pytest.mark.slow
def test_no_import_cycles_among_waymarks_modules() -> None:
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {m: {t for n in imports_of(p, runtime_only=True)
                 if (t := resolve(n)) is not None and t not in (m, "waymarks")}
             for m, p in modules.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert cycles == []


@pytest.mark.slow
def test_no_adapter_imports_another_but_the_launchers() -> None:
    problems = []
    for path in SRC.rglob("*.py"):
        package = package_of(path)
        for name in imports_of(path):
            target = internal(name)
            if target not in ADAPTERS or target == package:
                continue
            if path == LAUNCHER and target in ("hosts", "mcp", "web"):
                continue  # the CLI's one launcher module starts hosts, the MCP server and
                # the web inspector
            problems.append(f"{path.relative_to(SRC)} imports {name}")
    assert problems == []


def test_the_hook_path_imports_no_cli_library_nor_the_command_table(tmp_path: Path) -> None:
    """``waymarks hook claude-code EVENT`` runs on every prompt: it must stay lean. The
    prompt is recorded and planned in this process (no helper), the whole path; msgspec
    came without ``typing_extensions`` (``spawn/imports.py``), and no dataclass is declared
    (``inspect``, ``ast`` and ``dis`` come with either)."""
    import json
    import uuid

    project = tmp_path / "project"
    project.mkdir()
    payload = json.dumps({"session_id": str(uuid.uuid4()), "cwd": str(project),
                          "hook_event_name": "UserPromptSubmit", "prompt": "lint this"})
    probe = ("import sys, io; from waymarks.cli.main import main;"
             f"sys.stdin = io.TextIOWrapper(io.BytesIO({payload.encode()!r}));"
             f"main(['--home', {str(tmp_path / 'home')!r}, 'hook', 'claude-code', "
             "'UserPromptSubmit']);"
             "print('\\nloaded', sorted({m for m in sys.modules if m.split('.')[0] in "
             "('click', 'rich', 'typing_extensions', 'dataclasses', 'inspect')"
             " or m.startswith(('waymarks.commands', 'waymarks.cli.app'))}),"
             " 'waymarks.service.app' in sys.modules)")
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120, check=True)
    assert done.stdout.strip().splitlines()[-1] == "loaded [] True"
    assert list((tmp_path / "home" / "sessions").rglob("*.jsonl")), "the prompt was recorded"


def test_public_api_is_what_we_mean() -> None:
    assert sorted(waymarks.__all__) == sorted([
        "__version__", "Waymarks", "ItemView", "SessionInfo", "Committed", "Duplicate",
        "Rejected", "ServiceError", "WriteOutcome", "PinItem", "MemoryItem", "PinMutation",
        "MemoryMutation",
    ])
    for name in waymarks.__all__:
        assert getattr(waymarks, name) is not None


def test_no_benchmark_script_shadows_the_standard_library() -> None:
    """``python benchmarks/NAME.py`` puts benchmarks/ first on the import path: a script
    named like a stdlib module (``secrets.py``) breaks every other benchmark's imports."""
    import sys

    scripts = (SRC.parents[1] / "benchmarks").glob("*.py")
    assert [p.name for p in scripts if p.stem in sys.stdlib_module_names] == []


def _copies_with_dataclasses_replace(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
        return any(alias.name == "replace" for alias in node.names)
    return (isinstance(node, ast.Attribute) and node.attr == "replace"
            and isinstance(node.value, ast.Name) and node.value.id == "dataclasses")


@pytest.mark.slow
def test_records_are_copied_with_the_one_replace() -> None:
    """``dataclasses.replace`` on a msgspec Struct fails only at run time (type checkers
    accept it: a Struct is a dataclass transform), and records change declaration for
    speed: every module copies a record with ``waymarks.core.records.replace``."""
    offenders = sorted({str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
                        if path != SRC / "core" / "records.py"
                        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                        if _copies_with_dataclasses_replace(node)})
    assert offenders == []
