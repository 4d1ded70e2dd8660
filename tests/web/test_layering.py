"""The inspector reads through the service, as every adapter does: no module of
``waymarks.web`` imports the ledger or the store directly (the review found ``reads.py``
reading session headers itself)."""

from __future__ import annotations

import ast
from pathlib import Path

import waymarks.web

WEB = Path(waymarks.web.__file__).parent


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_web_adapter_reaches_ledger_and_store_only_through_the_service() -> None:
    modules = sorted(WEB.glob("*.py"))
    assert any(p.name == "reads.py" for p in modules)
    for path in modules:
        direct = {n for n in _imports(path)
                  if n.startswith(("waymarks.ledger", "waymarks.store"))}
        assert not direct, f"{path.name} imports {sorted(direct)}"
