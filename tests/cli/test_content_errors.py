"""A file whose CONTENT is wrong (not UTF-8, cut inside a character, a line that is not
JSON, ``export --json``'s one document, a binary file's NUL) is a data error, told apart
from a command line that is wrong: ``--json`` code ``bad_input`` (exit 2, nothing
written), the code ``evolution import`` gives a legacy file it cannot read. ``import`` and
``pin --file`` said ``usage`` for a file that is not UTF-8 (as for a mistyped option) and
``invalid_argument`` for a malformed line; a missing file, a path that is wrong, stays
``usage``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks


def _run(home: Path, project: Path, *args: str, expect: int = 2) -> Any:
    done = waymarks("--json", *args, env={"WAYMARKS_HOME": str(home)}, cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def _ledgers(home: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted((home / "sessions").rglob("*.jsonl"))} \
        if (home / "sessions").is_dir() else {}


ROW = json.dumps({"format": "waymarks-export-v1", "kind": "memory", "scope": "session",
                  "status": "active", "text": "Café opens at nine."}, ensure_ascii=False)

CONTENTS = {
    "not-json": (b'{"kind": "memory", "text": \n', "line 1: not JSON"),
    "not-utf8": (ROW.encode("latin-1") + b"\n", "not UTF-8 text"),
    "cut-short": (ROW.encode()[:ROW.encode().index("é".encode()) + 1],
                  "ends inside a character"),
    "json-document": (b'{"format": "waymarks-export-v1", "items": []}\n',
                      "output of `waymarks --json export`"),
    "wrong-field": (b'{"kind": "memory", "scope": "session", "text": 5}\n',
                    "line 1: text must be a string"),
}


@pytest.mark.parametrize("name", sorted(CONTENTS))
def test_an_import_of_malformed_content_is_a_data_error(home: Path, project: Path,
                                                        name: str) -> None:
    _run(home, project, "memory", "add", "--", "The cache port is 6379.", expect=0)
    before = _ledgers(home)
    data, said = CONTENTS[name]
    source = project / "in.jsonl"
    source.write_bytes(data)
    refused = _run(home, project, "import", str(source))
    assert (refused["outcome"], refused["code"]) == ("rejected", "bad_input"), refused
    assert said in refused["message"], refused
    assert _ledgers(home) == before


@pytest.mark.parametrize(("data", "said"), [
    (b"Run the tests first.\x00\n", "NUL (U+0000) at line 1, column 21"),
    ("Caf\xe9 rules".encode("latin-1"), "not UTF-8 text"),
])
def test_a_pin_file_of_malformed_content_is_a_data_error(home: Path, project: Path,
                                                         data: bytes, said: str) -> None:
    _run(home, project, "pin", "--", "seed", expect=0)
    before = _ledgers(home)
    source = project / "rules.md"
    source.write_bytes(data)
    refused = _run(home, project, "pin", "--file", str(source))
    assert (refused["outcome"], refused["code"]) == ("rejected", "bad_input"), refused
    assert said in refused["message"], refused
    assert _ledgers(home) == before


def test_a_missing_file_is_still_a_usage_error(home: Path, project: Path) -> None:
    for args in (("import", "no-such.jsonl"), ("pin", "--file", "no-such.md")):
        refused = _run(home, project, *args)
        assert refused["code"] == "usage" and "no-such" in refused["message"], refused


def test_a_new_process_says_so_on_its_streams(home: Path, project: Path) -> None:
    """The real command: the JSON document on standard output, the text on standard
    error (nothing on standard output), exit 2 both ways."""
    source = project / "in.jsonl"
    source.write_bytes(b"hello\n")
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CLI_HELPER": "off"}
    for argv, to_stdout in ((["--json", "import", str(source)], True),
                            (["import", str(source)], False)):
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", *argv], cwd=project,
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done
        if to_stdout:
            assert json.loads(done.stdout)["code"] == "bad_input" and done.stderr == ""
        else:
            assert done.stdout == "" and "(bad_input)" in done.stderr, done.stderr
    assert not (home / "sessions").exists()


@pytest.mark.parametrize(("payload", "said"), [
    ("not json\n", "standard input is not a JSON payload: Expecting value"),
    ('{"messages": ' + "[" * 3000 + "]" * 3000 + "}", "nested too deep"),
])
def test_a_payload_to_sanitize_that_is_not_json_is_a_data_error(home: Path, project: Path,
                                                                payload: str,
                                                                said: str) -> None:
    """``privacy sanitize`` answered ``usage`` for a payload on standard input that is not
    JSON, as for a mistyped option, and pointed at the help: the payload is what is
    wrong. ``bad_input`` now, the message without the help's pointer; standard output
    holds no payload."""
    done = waymarks("--json", "privacy", "sanitize", "--provider", "openai",
                    env={"WAYMARKS_HOME": str(home)}, cwd=project, input=payload)
    assert done.returncode == 2, (done.stdout, done.stderr)
    shown = json.loads(done.stdout)
    assert (shown["outcome"], shown["code"]) == ("rejected", "bad_input"), shown
    assert said in shown["message"] and "--help" not in shown["message"], shown
    text = waymarks("privacy", "sanitize", "--provider", "openai",
                    env={"WAYMARKS_HOME": str(home)}, cwd=project, input=payload)
    assert text.returncode == 2 and text.stdout == "" and "(bad_input)" in text.stderr
