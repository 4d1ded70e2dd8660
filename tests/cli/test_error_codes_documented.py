"""Every error code a command can answer with is in docs/cli.md's table of codes.

A script reads ``code`` from a failure's ``--json`` document; the table said "the codes
met most", and ``open_in_pi`` (a session a running Pi holds), ``learning_off``,
``schema_too_new``, ``home_gone`` and a score of others were raised with no word of what
they mean or what to do. This reads the codes where they are raised (``ServiceError``,
a command's ``refused``, a write's ``Rejected`` codes, learning's configuration errors)
and fails for one the table does not name, so a new code comes with its row."""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Final

from waymarks.commands.evolution import _DONE as DONE
from waymarks.commands.evolution import _TEXT as ATTEMPTS
from waymarks.core.decision_types import RejectionCode
from waymarks.service.evolution_feedback import REFUSALS

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "waymarks"
#: the errors a code is raised with: these, and every subclass of ServiceError in src
RAISERS: Final = ("ServiceError", "LearningConfigError", "Rejected", "refused", "_refuse")
SUBCLASS = re.compile(r"^class (\w+)\(ServiceError\):", re.MULTILINE)
CONSTANT = r"^{name}(?::\s*Final)?\s*=\s*[\"']([a-z_]+)[\"']"


def raised_codes() -> dict[str, str]:
    """Each code raised in src, with a file that raises it."""
    texts = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8")
             for path in sorted(SRC.rglob("*.py"))}
    names = "|".join((*RAISERS, *(n for t in texts.values() for n in SUBCLASS.findall(t))))
    # a literal first argument (over line breaks too), or a constant's name
    raised = re.compile(rf"\b(?:{names})\(\s*[\"']([a-z_]+)[\"']")
    by_name = re.compile(rf"\b(?:{names})\(\s*([A-Z_]{{3,}})\s*,")
    codes: dict[str, str] = {}
    for where, text in texts.items():
        own = SUBCLASS.search(text) is not None  # its classes' own codes
        for code in raised.findall(text) + (re.findall(
                r"super\(\)\.__init__\(\s*[\"']([a-z_]+)[\"']", text) if own else []):
            codes.setdefault(code, where)
        for name in by_name.findall(text):
            found = re.search(CONSTANT.format(name=name), text, re.MULTILINE)
            assert found, f"{where}: {name} is not a code constant of its module"
            codes.setdefault(found.group(1), where)
    for where, text in texts.items():  # a document's own code, where the CLI answers
        if where.startswith(("src/waymarks/commands/", "src/waymarks/cli/")):
            for code in re.findall(r'"code": "([a-z_]+)"', text):
                codes.setdefault(code, where)
    for code in typing.get_args(RejectionCode):
        codes.setdefault(code, "src/waymarks/core/decision_types.py")
    for code in re.findall(r'return \("([a-z_]+)",', texts[  # git's trouble: a team write's
            "src/waymarks/service/team_git.py"]):
        codes.setdefault(code, "src/waymarks/service/team_git.py")
    for code in REFUSALS:  # a learned claim's edit
        codes.setdefault(code, "src/waymarks/service/evolution_feedback.py")
    for code in set(ATTEMPTS) - DONE - {"unknown_source"}:  # `evolve`'s (that one: not_found)
        codes.setdefault(code, "src/waymarks/commands/evolution.py")
    return codes


def documented_codes() -> set[str]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    table = text[text.index("## Error codes"):]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    return {code for row in rows for code in re.findall(r"`([a-z_]+)`", row.split("|")[1])}


def test_the_scan_finds_the_codes_it_must() -> None:
    codes = raised_codes()
    for code in ("open_in_pi", "learning_off", "semantic_broken", "projection_filling",
                 "bad_config", "conflict", "changed_since", "given_up", "editor_failed",
                 "bad_state", "git_missing", "own_file_excluded", "attention"):
        assert code in codes, code


def test_every_code_raised_is_in_the_table() -> None:
    missing = {code: where for code, where in raised_codes().items()
               if code not in documented_codes()}
    assert not missing, ("codes raised but not in docs/cli.md's table of error codes: "
                         f"{missing}")
