"""The same text written again at a stricter level tightens the stored item.

It was a duplicate ("Existing memory …", exit 0, nothing appended), so `memory add
--classification local-only` of a stored claim, or an export line marked local-only, was
dropped with success and the claim kept going to remote providers. Now the stored item is
superseded by the same text at the stricter level; the same text at the same or a looser
level is still a duplicate (a looser one never loosens what is stored).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.inprocess import waymarks as run_waymarks

CLAIM = "The VPN gateway is vpn3.corp."


def _json(home: Path, project: Path, *args: str, expect: int = 0) -> Any:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def _planned(home: Path, project: Path, prompt: str) -> str:
    plan = _json(home, project, "plan", "--provider", "openai", "--prompt", prompt)
    return json.dumps(plan["messages"])


def test_a_stricter_level_supersedes_and_a_looser_one_is_a_duplicate(home: Path,
                                                                    project: Path) -> None:
    first = _json(home, project, "memory", "add", "--", CLAIM)
    assert "vpn3.corp" in _planned(home, project, "vpn gateway")
    tightened = _json(home, project, "memory", "add", "--classification", "local-only", "--",
                      CLAIM)
    assert tightened["outcome"] == "committed" and tightened["operation"] == "supersede"
    assert tightened["previousId"] == first["id"]
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    for looser in ("sensitive", None):
        extra = ("--classification", looser) if looser else ()
        again = _json(home, project, "memory", "add", *extra, "--", CLAIM)
        assert again["outcome"] == "duplicate" and again["id"] == tightened["id"]
    active = [i for i in _json(home, project, "memory")["items"] if i["status"] == "active"]
    assert [(i["id"], i["classification"]) for i in active] == [(tightened["id"],
                                                                 "local-only")]


def test_a_pin_and_an_import_line_tighten_too(home: Path, project: Path,
                                              tmp_path: Path) -> None:
    pin = _json(home, project, "pin", "--", "Run the linter first.")
    tightened = _json(home, project, "pin", "--classification", "internal", "--",
                      "Run the linter first.")
    assert tightened["operation"] == "supersede" and tightened["previousId"] == pin["id"]
    _json(home, project, "memory", "add", "--", "The cache is at /srv/cache.")
    line = {"format": "waymarks-export-v1", "kind": "memory", "scope": "session",
            "status": "active", "classification": "local-only",
            "text": "The cache is at /srv/cache."}
    export = tmp_path / "lo.jsonl"
    export.write_text(json.dumps(line) + "\n")
    _json(home, project, "import", str(export))
    assert "/srv/cache" not in _planned(home, project, "where is the cache")
    again = _json(home, project, "import", str(export))  # now the same level: a duplicate
    assert [r["outcome"] for r in again["lines"]] == ["duplicate"]
