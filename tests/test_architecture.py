"""The layer rules of ARCHITECTURE.md, enforced on the import graph, and the public API."""

from __future__ import annotations

import ast
from pathlib import Path

import waymarks

SRC = Path(__file__).resolve().parents[1] / "src" / "waymarks"

# package -> waymarks packages it may import (besides itself)
ALLOWED = {
    "core": set(),
    "recall": {"core"},
    "planner": {"core", "recall"},
    "ledger": {"core"},
    # the recall index stores analysed features: store may use the pure recall analysis
    # (recall imports only core, so no cycle); ARCHITECTURE.md's table predates the index
    "store": {"core", "ledger", "recall"},
    "service": {"core", "recall", "planner", "ledger", "store"},
    # the payload egress (history guard, then the pure sanitizer) lives with the tool
    "tool": {"core", "service", "planner"},
    "personal": {"core", "service"},
}
PURE = {"core", "recall", "planner"}
IMPURE_MODULES = {"sqlite3", "os", "subprocess", "socket", "httpx", "requests", "urllib",
                  "mcp", "pathlib", "io", "time", "random", "secrets", "uuid", "fcntl",
                  "shutil", "tempfile", "platformdirs"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_layers_import_only_what_they_may() -> None:
    problems = []
    for package, allowed in ALLOWED.items():
        root = SRC / package
        files = [*root.rglob("*.py")] if root.is_dir() else []
        if (SRC / f"{package}.py").is_file():
            files.append(SRC / f"{package}.py")
        for path in files:
            for name in imports_of(path):
                parts = name.split(".")
                internal = parts[0] == "waymarks" and len(parts) > 1 and parts[1] != package
                if internal and parts[1] not in allowed:
                    problems.append(f"{path.relative_to(SRC)} imports {name}")
                if package in PURE and parts[0] in IMPURE_MODULES:
                    problems.append(f"{path.relative_to(SRC)} (pure layer) imports {name}")
    assert problems == []


def test_pure_layers_do_not_read_the_clock() -> None:
    for package in PURE:
        for path in (SRC / package).rglob("*.py") if (SRC / package).is_dir() else []:
            text = path.read_text(encoding="utf-8")
            for call in ("datetime.now(", "date.today(", "time.time("):
                assert call not in text, f"{path} reads the clock"


def test_nothing_imports_the_adapters() -> None:
    for path in SRC.rglob("*.py"):
        if path.parts[len(SRC.parts)] in ("cli", "mcp", "hosts"):
            continue
        for name in imports_of(path):
            assert not name.startswith(("waymarks.cli", "waymarks.mcp", "waymarks.hosts")), path


def test_public_api_is_what_we_mean() -> None:
    assert sorted(waymarks.__all__) == sorted([
        "__version__", "Waymarks", "ItemView", "SessionInfo", "Committed", "Duplicate",
        "Rejected", "ServiceError", "WriteOutcome", "PinItem", "MemoryItem", "PinMutation",
        "MemoryMutation",
    ])
    for name in waymarks.__all__:
        assert getattr(waymarks, name) is not None
