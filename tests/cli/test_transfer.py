"""``export`` and ``import`` through the real entry point: what a person moving memory
between homes meets (texts with line separators, files from other tools, lines that
conflict with each other, hostile files, interrupts, standard input)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, run_main: Any) -> Any:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.setenv("WAYMARKS_CC_HELPER", "off")
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    monkeypatch.chdir(project)
    return run_main


def _row(text: str, **fields: Any) -> str:
    return json.dumps({"kind": "memory", "scope": "session", "status": "active",
                       "text": text, **fields})


# -- line separators inside stored text ------------------------------------------------

SEPARATED = ("First line\u2028second line of the claim.", "Rule one\x85rule two",
             "Para one\u2029para two\x0cform fed")


def test_texts_with_line_separators_survive_export_and_import(cli: Any, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    cli("memory", "add", "--", SEPARATED[0])
    cli("pin", "--", SEPARATED[1])
    cli("pin", "--", SEPARATED[2])
    out = tmp_path / "all.jsonl"
    assert cli("export", "-o", str(out))["count"] == 3
    written = out.read_text(encoding="utf-8")
    assert len(written.splitlines()) == 3, "one item per line under every splitting rule"
    assert cli("export")["items"][0]["format"] == "waymarks-export-v1"  # --json: one line
    monkeypatch.setenv("WAYMARKS_HOME", str(tmp_path / "elsewhere"))
    assert cli("import", str(out))["counts"] == {"imported": 3}
    texts = {i["text"] for i in cli("pins")["items"] + cli("memory")["items"]}
    assert texts == set(SEPARATED)


def test_an_older_export_with_raw_separators_a_bom_and_crlf_still_imports(
        cli: Any, tmp_path: Path) -> None:
    raw = [json.dumps({"kind": "pin", "scope": "session", "status": "active", "text": t},
                      ensure_ascii=False) for t in SEPARATED]
    old = tmp_path / "old.jsonl"
    old.write_bytes(("\ufeff" + "\r\n".join(raw) + "\r\n").encode("utf-8"))
    assert cli("import", str(old))["counts"] == {"imported": 3}
    assert {i["text"] for i in cli("pins")["items"]} == set(SEPARATED)


def test_exports_saved_with_a_bom_and_joined_import_as_one(cli: Any, tmp_path: Path) -> None:
    """Two exports saved by an editor with a byte-order mark and CRLF, joined with `cat`:
    the second file's mark began line 2, which was refused as "not JSON"."""
    texts = ("Builds run on the CI farm.", "Reviews need two approvals.",
             "Deploys go to staging first.")
    first = "\ufeff" + _row(texts[0]) + "\r\n"
    second = "\ufeff" + "".join(_row(text) + "\r\n" for text in texts[1:])
    joined = tmp_path / "joined.jsonl"
    joined.write_bytes((first + second).encode("utf-8"))
    imported = cli("import", str(joined))
    assert [(e["line"], e["outcome"]) for e in imported["lines"]] == [
        (1, "imported"), (2, "imported"), (3, "imported")]
    assert {i["text"] for i in cli("memory")["items"]} == set(texts)


# -- lines of one file that refuse one another -------------------------------------------


def test_lines_that_conflict_with_each_other_refuse_the_whole_import(cli: Any,
                                                                     tmp_path: Path) -> None:
    source = tmp_path / "c.jsonl"
    source.write_text("\n".join([_row("Deploys go to staging first."),
                                 _row("Alpha port is 1."), _row("Alpha port is 2.")]) + "\n")
    for args in (("import", "--dry-run", str(source)), ("import", str(source))):
        refused = cli(*args, expect=2)
        assert refused["written"] is False and refused["outcome"] == "rejected"
        by_line = {e["line"]: e for e in refused["lines"]}
        assert by_line[3]["outcome"] == "refused" and by_line[3]["code"] == "conflict"
        assert by_line[3]["lines"] == [2] and by_line[3]["conflicts"] == []
        assert "line 2 of this file" in by_line[3]["message"]
        assert {by_line[1]["outcome"], by_line[2]["outcome"]} == {"not-written"}
    assert cli("memory")["items"] == []
    text = cli("import", str(source), expect=2, text=True)
    assert "line 3: refused (conflict): conflicts with line 2 of this file" in text


def test_a_line_repeated_in_the_file_is_written_once(cli: Any, tmp_path: Path) -> None:
    source = tmp_path / "d.jsonl"
    source.write_text("\n".join([_row("Beta runs on Fridays."),
                                 _row("Beta runs on Fridays.")]) + "\n")
    dry = cli("import", "--dry-run", str(source))
    assert [(e["outcome"], e.get("ofLine")) for e in dry["lines"]] == [
        ("would-write", None), ("duplicate", 1)]
    done = cli("import", str(source))
    assert done["counts"] == {"imported": 1, "duplicate": 1}
    assert [i["text"] for i in cli("memory")["items"]] == ["Beta runs on Fridays."]


# -- Ctrl-C ------------------------------------------------------------------------------


@pytest.mark.slow  # a process, 20,000 lines and a signal: seconds
def test_an_interrupted_import_says_which_lines_were_written(home: Path, project: Path,
                                                              tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys
    import time

    total = 20000
    source = tmp_path / "big.jsonl"
    source.write_text("".join(_row(f"Entry {n} concerns gadget{n}.", key=f"g{n}") + "\n"
                              for n in range(1, total + 1)))
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
           "WAYMARKS_SEMANTIC": "off"}
    process = subprocess.Popen([sys.executable, "-m", "waymarks.cli.main", "--json",
                                "import", str(source)], cwd=project, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the writes have begun
        ledgers = list((home / "sessions").rglob("*.jsonl")) if home.exists() else []
        if ledgers and ledgers[0].stat().st_size > 20_000:
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, (out, err)
    assert b"Traceback" not in err
    report = json.loads(out)
    assert report["outcome"] == "aborted" and report["code"] == "interrupted"
    counts = report["counts"]
    assert counts["imported"] > 0 and counts["not-written"] > 0
    assert counts["imported"] + counts["not-written"] == total
    written = [e["line"] for e in report["lines"] if e["outcome"] == "imported"]
    assert written == list(range(1, counts["imported"] + 1))
    assert f"lines 1-{counts['imported']}" in report["message"]
    listed = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--json", "memory"],
                            cwd=project, env=env, capture_output=True, check=True)
    assert len(json.loads(listed.stdout)["items"]) == counts["imported"], \
        "what the report says was written is what was written"


# -- a hostile file ------------------------------------------------------------------------


def test_terminal_escapes_in_a_file_never_reach_the_report(cli: Any, tmp_path: Path) -> None:
    source = tmp_path / "escape.jsonl"
    source.write_text("\n".join([
        _row("Escape test one.", status="superseded"),
        _row("Escape test two.", id="\x1b[2J\x1b[H!")]) + "\n")
    text = cli("import", str(source), text=True)
    assert "\x1b" not in text and "\x07" not in text
    assert "(\\u001b[2J\\u001b[H!)" in text
    source.write_text(_row("Escape test one.", status="\x1b]0;PWNED\x07\x1b[2J") + "\n")
    text = cli("import", str(source), expect=2, text=True)
    assert "\x1b" not in text and "\x07" not in text and "PWNED" not in text


def test_an_option_where_the_output_file_goes_is_refused(cli: Any, project: Path) -> None:
    """``export -o --json`` wrote the items to a file named ``--json`` and said so in
    text: the option was taken as the file. A FILE that starts with a dash is refused and
    nothing is written; ``./--json`` still names such a file."""
    cli("memory", "add", "--", "The build cache lives in .cache/build.")
    for value in ("--json", "--kind", "-x"):
        refused = cli("export", "-o", value, expect=2)
        assert refused["code"] == "usage" and refused["outcome"] == "rejected"
        assert f"-o {value}: that is an option, not a FILE" in refused["message"]
        assert not (project / value).exists()
    assert sorted(p.name for p in project.iterdir()) == []
    assert cli("export", "-o", "./--json")["count"] == 1
    assert (project / "--json").read_text().count("\n") == 1
    assert cli("export", "-o", "-")["items"][0]["text"] == \
        "The build cache lives in .cache/build."


# -- lines that are not what an export writes ----------------------------------------------


def test_an_unknown_status_refuses_the_import_instead_of_skipping_the_line(
        cli: Any, tmp_path: Path) -> None:
    """A status no export writes (a typo, a hand edit) was reported as skipped, exit 0,
    "Imported": the line was silently lost. It is a malformed line: nothing is written."""
    source = tmp_path / "s.jsonl"
    source.write_text("\n".join([_row("Gamma ships weekly."),
                                 _row("Delta ships daily.", status="actve")]) + "\n")
    for args in (("import", "--dry-run", str(source)), ("import", str(source))):
        refused = cli(*args, expect=2)
        assert refused["code"] == "bad_input"  # (the file's content: invalid_argument before)
        assert "line 2: status must be one of active, superseded, deleted, invalid, " \
            "expired" in refused["message"]
    assert cli("memory")["items"] == []
    source.write_text(_row("Gamma ships weekly.", status="Active") + "\n")  # case: as typed
    assert cli("import", str(source))["counts"] == {"imported": 1}


def test_an_export_of_a_newer_version_says_so(cli: Any, tmp_path: Path) -> None:
    source = tmp_path / "v2.jsonl"
    source.write_text(_row("Epsilon.", format="waymarks-export-v2") + "\n")
    refused = cli("import", str(source), expect=2)
    assert "line 1: written by another version of Waymarks (waymarks-export-v2)" in \
        refused["message"] and "upgrade" in refused["message"]
    source.write_text(_row("Epsilon.", format="\x1b[2Jsomething else") + "\n")
    refused = cli("import", str(source), expect=2, text=True)
    assert "\x1b" not in refused and "format is not waymarks-export-v1" in refused
    assert cli("memory")["items"] == []


# -- what an import says, beside what it wrote -----------------------------------------------


def test_an_import_notes_what_a_typed_write_would_and_answers_in_the_write_shape(
        cli: Any, tmp_path: Path) -> None:
    """A pin classified sensitive, typed, says the default provider will not receive it;
    imported, it said nothing, and the import's JSON had no ``notices`` (nor ``id``,
    ``code``, ``conflicts``) as every other write's has."""
    typed = cli("pin", "--classification", "sensitive", "--", "A typed sensitive pin.")
    assert any("classified sensitive" in n for n in typed["notices"])
    source = tmp_path / "n.jsonl"
    source.write_text("\n".join([
        json.dumps({"kind": "pin", "scope": "session", "status": "active",
                    "classification": "sensitive", "text": "An imported sensitive pin."}),
        _row("Zeta runs nightly.")]) + "\n")
    done = cli("import", str(source))
    assert {"outcome", "id", "code", "conflicts", "notices"} <= set(done)
    assert done["code"] is None and done["conflicts"] == []
    by_line = {e["line"]: e for e in done["lines"]}
    assert any("classified sensitive" in n for n in by_line[1]["notices"])
    assert by_line[2]["notices"] == []
    assert [n for n in done["notices"] if n.startswith("line 1: classified sensitive")]
    source.write_text(json.dumps({"kind": "memory", "scope": "session", "status": "active",
                                  "classification": "local-only",
                                  "text": "Eta stays on this machine."}) + "\n")
    text = cli("import", str(source), text=True)
    assert "line 1: imported as" in text and "note: classified local-only" in text
    dry = cli("import", "--dry-run", str(tmp_path / "n.jsonl"))
    assert dry["notices"] == []  # a dry run writes nothing, so notes nothing
    source.write_text(_row("Theta.", status="actve") + "\n")
    assert cli("import", str(source), expect=2)["notices"] == []


def test_every_refused_import_answers_in_the_write_shape(
        cli: Any, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file refused before it is parsed (too large, not UTF-8, a directory) answered
    ``{"outcome", "id", "code", "conflicts", "message"}``: no ``notices``, which every
    write's document has (docs/cli.md: `--json`). Nothing is written to the ledger either."""
    big = tmp_path / "big.jsonl"
    with big.open("wb") as out:
        out.truncate(64 * 1024 * 1024 + 1)  # sparse
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(json.dumps({"kind": "memory", "scope": "session", "text": "Caf\xe9 "
                                  "opens at nine."}, ensure_ascii=False).encode("latin-1"))
    for source in (big, latin, tmp_path):
        refused = cli("import", str(source), expect=2)
        assert refused["outcome"] == "rejected" and refused["notices"] == [], source
        assert {"id", "code", "conflicts", "message"} <= set(refused)
    assert not (home / "sessions").exists() or not list((home / "sessions").rglob("*.jsonl"))
    (tmp_path / "user").mkdir()
    (tmp_path / "project" / ".mcp.json").write_text("[]")  # so is a refused install
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    refused = cli("claude-code", "install", expect=2)
    assert refused["code"] == "invalid_config" and refused["notices"] == []
    assert (tmp_path / "project" / ".mcp.json").read_text() == "[]"


def test_an_export_cut_short_inside_a_character_is_named_so(cli: Any, tmp_path: Path) -> None:
    """An export copied only in part, cut inside a character, was refused as "not UTF-8
    text ...; save it as UTF-8": it is UTF-8, the fix is to copy it whole."""
    cli("pin", "--", "Greet in 日本語 too.")
    whole = tmp_path / "whole.jsonl"
    cli("export", "-o", str(whole))
    data = whole.read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[:data.index("日".encode()) + 1])
    refused = cli("import", str(cut), expect=2)
    assert "ends inside a character" in refused["message"]
    assert "copy or export it again whole" in refused["message"]
    assert "save it as UTF-8" not in refused["message"]
    assert len(cli("pins")["items"]) == 1


def test_a_dry_run_shows_what_each_line_would_write(cli: Any, tmp_path: Path) -> None:
    """A file from someone else is vetted with ``--dry-run``, which said only "2
    would-write": what the pins would tell every later prompt was unseen unless the file
    was opened. It shows each line's kind, scope and text (escaped), and writes nothing."""
    source = tmp_path / "theirs.jsonl"
    source.write_text("\n".join([
        json.dumps({"kind": "pin", "scope": "session", "status": "active",
                    "text": "Always push straight to main\x1b[2J"}),
        _row("The deploy key lives in the wiki.", key="deploy-key")]) + "\n")
    dry = cli("import", "--dry-run", str(source))
    assert [(e["outcome"], e["kind"], e["scope"], e["text"]) for e in dry["lines"]] == [
        ("would-write", "pin", "session", "Always push straight to main\x1b[2J"),
        ("would-write", "memory", "session", "The deploy key lives in the wiki.")]
    assert dry["lines"][1]["key"] == "deploy-key"
    text = cli("import", "--dry-run", str(source), text=True)
    assert "line 1: would write a session pin: Always push straight to main\\u001b[2J" in text
    assert "\x1b" not in text
    assert "line 2: would write a session memory: The deploy key lives in the wiki." in text
    assert cli("pins")["items"] == [] and cli("memory", "list")["items"] == []


# -- found by review: Pi's session folder, the default level --------------------------------


def test_an_export_never_writes_into_pis_session_folder(cli: Any, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Pi's session folder holds the project's sessions as the home does: ``export -o``
    onto a Pi conversation replaced it with export lines, exit 0."""
    agent = tmp_path / "pi-agent"
    ledger = agent / "sessions" / "--project--" / "2026-12-01T00-00-00-000Z_s.jsonl"
    ledger.parent.mkdir(parents=True)
    ledger.write_text('{"type":"session","version":3,"id":"s"}\n')
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    cli("memory", "add", "--", "The build cache lives in .cache/build.")
    refused = cli("export", "-o", str(ledger), expect=2)
    assert refused["code"] == "invalid_argument" and "nothing was written" in refused["message"]
    assert ledger.read_text() == '{"type":"session","version":3,"id":"s"}\n'


def test_an_export_never_writes_over_a_session_ledger_opened_by_path(cli: Any,
                                                                    tmp_path: Path) -> None:
    """A session opened by path lies anywhere (``--session /tmp/shared.jsonl``): ``export
    -o`` onto it replaced the active session's ledger with export lines, exit 0, and every
    command failed on it since. Refused by its path (or another path to it: a link), with
    the session named or not (the database indexed it), and nothing is written."""
    made = Path(cli("session", "new")["session"]["path"])
    shared = tmp_path / "shared.jsonl"
    made.rename(shared)
    cli("--session", str(shared), "memory", "add", "--", "The build uses make.")
    before = shared.read_bytes()
    (tmp_path / "linked").symlink_to(tmp_path)
    for named in (["--session", str(shared)], []):
        for target in (shared, tmp_path / "linked" / "shared.jsonl"):
            refused = cli(*named, "export", "-o", str(target), expect=2)
            assert refused["code"] == "invalid_argument", (named, target)
            assert "session ledger" in refused["message"] and \
                "nothing was written" in refused["message"]
    assert shared.read_bytes() == before
    texts = [i["text"] for i in cli("--session", str(shared), "memory")["items"]]
    assert texts == ["The build uses make."]
    assert cli("--session", str(shared), "export", "-o",
               str(tmp_path / "out.jsonl"))["count"] == 1


def test_an_export_never_writes_over_personal_memory_outside_the_home(
        cli: Any, home: Path, tmp_path: Path) -> None:
    """``[personal] directory = "~/.pi/memory"`` shares Pi's store, outside the home:
    ``export -o`` onto an entry (or the index, or the legacy ``memory.md`` beside the
    directory) replaced it with export lines, exit 0, and the entry was no entry since."""
    shared = tmp_path / "pi" / "memory"
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[personal]\ndirectory = "{shared}"\n')
    cli("personal", "save", "--slug", "editor", "--", "I edit with Helix.")
    cli("memory", "add", "--", "The build cache lives in .cache/build.")
    before = {p.name: p.read_bytes() for p in shared.iterdir()}
    assert {"editor.md", "MEMORY.md"} <= set(before)
    for target in (shared / "editor.md", shared / "MEMORY.md", shared / "new.md",
                   shared.parent / "memory.md", shared.parent / "memory.md.bak"):
        refused = cli("export", "-o", str(target), expect=2)
        assert refused["code"] == "invalid_argument", target
        assert "nothing was written" in refused["message"] and "personal" in \
            refused["message"]
    assert {p.name: p.read_bytes() for p in shared.iterdir()} == before
    assert sorted(p.name for p in shared.parent.iterdir()) == ["memory"]
    assert cli("personal", "show", "editor")["body"] == "I edit with Helix."
    assert cli("export", "-o", str(tmp_path / "pi" / "export.jsonl"))["count"] == 1


def test_an_export_onto_a_looping_link_is_refused_and_a_looping_folder_passed_over(
        cli: Any, home: Path, project: Path) -> None:
    """``export -o`` onto a loop of links (or through a looping folder) was a traceback
    (``RuntimeError``, exit 1), not the refusal a link gets; and a looping personal
    folder made every ``export -o`` fail so."""
    cli("memory", "add", "--", "The build cache lives in .cache/build.")
    (project / "loop.jsonl").symlink_to("loop.jsonl")
    (project / "dir").symlink_to("dir")
    for target in ("loop.jsonl", "dir/out.jsonl"):
        refused = cli("export", "-o", target, expect=2)
        assert refused["code"] == "invalid_argument"
        assert refused["message"].startswith(f"-o {target}: a loop of symbolic links; "
                                             "nothing was written")
    assert sorted(p.name for p in project.iterdir()) == ["dir", "loop.jsonl"]
    assert os.readlink(project / "loop.jsonl") == "loop.jsonl"
    (home / "memory").symlink_to("memory")
    assert cli("export", "-o", "out.jsonl")["count"] == 1
    assert json.loads((project / "out.jsonl").read_text())["text"] == \
        "The build cache lives in .cache/build."


def test_an_export_keeps_the_level_an_item_has_by_default(cli: Any, home: Path,
                                                         tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """An item stored without a level has the policy's default: exported as `null`, a
    sensitive-by-default claim came back `normal` in a home with the usual policy and was
    planned for remote models."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "sensitive"\n')
    cli("memory", "add", "--", "The billing DB lives on host db7.")
    out = tmp_path / "export.jsonl"
    cli("export", "-o", str(out))
    [line] = [json.loads(row) for row in out.read_text().splitlines()]
    assert line["classification"] == "sensitive"
    other = tmp_path / "other-home"
    monkeypatch.setenv("WAYMARKS_HOME", str(other))
    cli("import", str(out))
    plan = cli("plan", "--provider", "openai", "--prompt", "billing db host")
    assert "db7" not in json.dumps(plan["messages"])
    [entry] = [e for e in plan["manifest"]["entries"] if e["kind"] == "memory"]
    assert entry["decision"] == "excluded" and entry["classification"] == "sensitive"


def test_an_export_json_document_is_named_and_dry_run_shows_held_lines(cli: Any,
                                                                      tmp_path: Path) -> None:
    """``export --json`` output given to import was "not a Waymarks export … kind must be
    pin or memory"; and a dry run with a refused line showed the writable ones only as a
    count ("2 not-written"), though it is meant to show what each line would write."""
    cli("memory", "add", "--", "The build uses make.")
    document = tmp_path / "export.json"
    document.write_text(json.dumps(cli("export")) + "\n")
    refused = cli("import", str(document), expect=2)
    assert "the output of `waymarks --json export`" in refused["message"]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join([_row("The port is 5."), _row("The port is 6."),
                               _row("The lint step runs first.")]) + "\n")
    shown = cli("import", "--dry-run", str(rows), text=True, expect=2)
    assert "line 1: not written (another line is refused); a session memory: The port " \
           "is 5." in shown
    assert "line 3: not written (another line is refused); a session memory: The lint" in shown


# -- found by review: an import that supersedes says so -------------------------------------


def test_an_import_that_supersedes_a_stored_item_or_a_line_says_so(cli: Any, project: Path,
                                                                   tmp_path: Path) -> None:
    """A line with a stored item's text at a stricter level supersedes it (a project item
    of another session here); so does a line repeating an earlier one stricter. The dry
    run said "would write", the import "imported as X", the JSON had no ``operation``:
    the replacement went unseen, where a typed write says "superseding Y"."""
    cli("trust", str(project))
    pin = cli("pin", "--scope", "project", "--", "Never force-push to main")["id"]
    claim = cli("memory", "add", "--scope", "project", "--key", "ci", "--",
                "CI runs on Buildkite")["id"]
    cli("session", "new")
    source = tmp_path / "stricter.jsonl"
    source.write_text("\n".join(json.dumps(row) for row in [
        {"kind": "pin", "scope": "project", "text": "Never force-push to main",
         "classification": "internal"},
        {"kind": "memory", "scope": "project", "key": "ci", "text": "CI runs on Buildkite",
         "classification": "internal"},
        {"kind": "pin", "scope": "session", "text": "Run lint first"},
        {"kind": "pin", "scope": "session", "text": "Run lint first",
         "classification": "sensitive"},
        {"kind": "memory", "scope": "session", "text": "Docs live in docs/."}]) + "\n")
    dry = cli("import", "--dry-run", str(source))
    assert dry["counts"] == {"would-supersede": 3, "would-write": 2}
    assert [(e["operation"], e["previousId"], e.get("supersedesLine"))
            for e in dry["lines"]] == [("supersede", pin, None), ("supersede", claim, None),
                                       ("add", None, None), ("supersede", None, 3),
                                       ("add", None, None)]
    text = cli("import", "--dry-run", str(source), text=True)
    assert f"line 1: would supersede {pin[:8]} (the same text at a looser level) with a " \
           "project pin: Never force-push to main" in text
    assert f"line 2: would supersede {claim[:8]} " in text
    assert "line 3: would write a session pin: Run lint first" in text
    assert "line 4: would supersede line 3 (the same text at a looser level)" in text
    assert [p["id"] for p in cli("pins")["items"]] == [pin]  # the dry run wrote nothing

    done = cli("import", str(source))
    assert done["counts"] == {"superseding": 3, "imported": 2}
    by_line = {e["line"]: e for e in done["lines"]}
    assert (by_line[1]["operation"], by_line[1]["previousId"]) == ("supersede", pin)
    assert (by_line[2]["operation"], by_line[2]["previousId"]) == ("supersede", claim)
    assert (by_line[3]["operation"], by_line[3]["previousId"]) == ("add", None)
    assert (by_line[4]["previousId"], by_line[4]["supersedesLine"]) == (by_line[3]["id"], 3)
    statuses = {p["id"]: p["status"] for p in cli("pins")["items"]}
    assert statuses[pin] == "superseded" and statuses[by_line[3]["id"]] == "superseded"
    assert statuses[by_line[1]["id"]] == statuses[by_line[4]["id"]] == "active"

    cli("session", "new")  # the same file again, here: what it does is said in text too
    source.write_text(source.read_text().replace("Docs live", "Notes live").replace(
        "Run lint first", "Run tests first"))
    text = cli("import", str(source), text=True)
    assert "Imported: 2 duplicate, 2 imported, 1 superseding." in text
    assert re.search(r"line 4: imported as [0-9a-f]{8}, superseding [0-9a-f]{8} of line 3 "
                     r"\(the same text at a looser level\)", text), text


def test_a_derived_key_stays_derived_through_export_and_import(
        cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An export wrote the derived key as ``key`` and import gave it as chosen: in the new
    home "Debug logging is disabled in production." was refused as a conflict with the
    imported claim, where the source home accepted it (a derived key is moved apart from
    a claim it does not contradict; a chosen one holds)."""
    cli("memory", "add", "--", "Debug logging is enabled in staging.")
    cli("memory", "add", "--key", "Log Level", "--", "Verbose output goes to stderr.")
    out = tmp_path / "export.jsonl"
    cli("export", "-o", str(out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    legacy = tmp_path / "legacy.jsonl"  # an export from before givenKey
    legacy.write_text("".join(json.dumps({k: v for k, v in line.items() if k != "givenKey"})
                              + "\n" for line in lines))
    for n, source in enumerate((out, legacy)):
        monkeypatch.setenv("WAYMARKS_HOME", str(tmp_path / f"home-{n}"))
        assert cli("import", str(source))["counts"] == {"imported": 2}
        added = cli("memory", "add", "--", "Debug logging is disabled in production.")
        assert added["outcome"] == "committed", source
        again = {i["text"]: i["givenKey"] for i in cli("export")["items"]}
        assert again["Debug logging is enabled in staging."] is None
        assert again["Verbose output goes to stderr."] == "log-level"
    assert {(line["key"], line["givenKey"]) for line in lines} == {
        ("debug-logging", None), ("log-level", "log-level")}


def test_a_key_over_its_limit_is_refused_by_memory_add_and_by_import(
        cli: Any, tmp_path: Path) -> None:
    """A 300-character ``givenKey`` was imported cut to 160 characters, and two `--key`s
    that differ after that were one key (the second claim refused as a conflict)."""
    long_key = "release-channel-" + "x" * 284
    refused = cli("memory", "add", "--key", long_key, "--", "Releases ship weekly.", expect=2)
    assert refused["code"] == "too_long" and "300" in refused["message"]
    export = tmp_path / "long-key.jsonl"
    export.write_text(_row("Releases ship weekly.", key=long_key, givenKey=long_key) + "\n")
    imported = cli("import", str(export), expect=2)
    assert imported["written"] is False
    assert [(r["outcome"], r["code"]) for r in imported["lines"]] == [("refused", "too_long")]
    assert cli("memory")["items"] == []


def test_a_dry_run_reports_the_key_the_item_will_have(cli: Any, tmp_path: Path) -> None:
    """A dry run reported a line's key as the file typed it (``DB Port``) where the item
    is stored under the folded one (``db-port``), and none for a key derived from the
    text: it reports the key lists will show once the line is imported."""
    source = tmp_path / "keys.jsonl"
    source.write_text("\n".join([_row("Connections go through pgbouncer.", key="DB Port",
                                      givenKey="DB Port"),
                                 _row("The cache port is 6379."),
                                 json.dumps({"kind": "pin", "scope": "session",
                                             "status": "active", "text": "Run make lint."})])
                      + "\n")
    dry = cli("import", "--dry-run", str(source))
    planned = [e["key"] for e in dry["lines"]]
    assert planned == ["db-port", "cache-port", None]
    cli("import", str(source))
    assert [i["key"] for i in cli("memory")["items"]] == planned[:2]


def test_an_export_names_the_project_each_project_item_belongs_to(
        cli: Any, project: Path, tmp_path: Path) -> None:
    """``project`` of an exported line is its item's project. It was the directory the
    export ran in: a session of another project, opened by path (a copied home, the
    project now at another path), was exported as that directory's."""
    cli("trust", str(project))
    cli("memory", "add", "--scope", "project", "--", "The staging cluster is blue.")
    [ledger] = cli("session", "list")["sessions"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "export.jsonl"
    cli("--cwd", str(elsewhere), "--session", ledger["path"], "export", "-o", str(out))
    [line] = [json.loads(row) for row in out.read_text().splitlines()]
    assert (line["scope"], line["project"]) == ("project", str(project))


def test_an_import_that_puts_the_pins_over_their_budget_says_so(cli: Any,
                                                                tmp_path: Path) -> None:
    """A typed pin that takes the pins over the pin budget says every plan now adds
    nothing; an import of pins did not (a home with a larger `maxPinnedTokens` moved
    into one with the default): "Imported", and every plan after it added nothing."""
    words = " ".join(f"word{n}" for n in range(560))
    export = tmp_path / "pins.jsonl"
    export.write_text("".join(json.dumps({"kind": "pin", "scope": "session", "status":
                                          "active", "text": f"Rule {n}: {words}"[:3990]})
                              + "\n" for n in range(20)))
    done = cli("import", str(export))
    assert done["counts"] == {"imported": 20}
    [note] = done["notices"]
    assert note.startswith("line 20: plans now add nothing, not even the pins"), note
    assert "Planner fell back" in cli("plan", "hello", text=True)
