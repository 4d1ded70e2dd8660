"""What the everyday CLI reads and prints beyond its arguments, through the real entry
point (a new ``waymarks`` process where the test is about one): files that are not
regular files (a FIFO hung, ``/dev/zero`` ate memory), standard input that is not text or
is closed, standard output that cannot be written, and command lines built to break the
parser. Each refusal is one line (one JSON document with ``--json``), exits with its
documented status and changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.inprocess import waymarks
from tests.opaque import content


def run(home: Path, project: Path, *args: str, expect: int = 0, json_out: bool = True,
        fresh: bool = False, **options: Any) -> Any:
    """``waymarks ARGS`` in ``project``: in this process (``tests/inprocess.py``), or in a
    new one when the test is about the process (``fresh``: it must not hang; or standard
    streams set up through ``options``)."""
    argv = [*(["--json"] if json_out else []), *args]
    env = {"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off", **options.pop("env", {})}
    if fresh or options:
        options.setdefault("capture_output", True)
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", *argv], cwd=project,
                              env={**os.environ, "WAYMARKS_CC_HELPER": "off", **env},
                              timeout=60, **options)
    else:
        done = waymarks(*argv, env=env, cwd=project)
    out = done.stdout.decode() if isinstance(done.stdout, bytes) else done.stdout or ""
    err = done.stderr.decode() if isinstance(done.stderr, bytes) else done.stderr or ""
    assert done.returncode == expect, (args, out, err)
    assert "Traceback" not in err
    if not json_out:
        return out + err
    lines = out.strip().splitlines()
    assert len(lines) == 1, (out, err)
    return json.loads(lines[0])


def _stored(home: Path, project: Path) -> list[str]:
    found = run(home, project, "pins")["items"] + run(home, project, "memory")["items"]
    return [i["text"] for i in found]


# -- files that are not regular files ------------------------------------------------------


@pytest.mark.parametrize("command", [["pin", "--file"], ["import"]], ids=["pin", "import"])
def test_a_fifo_or_a_device_is_refused_without_reading(home: Path, project: Path,
                                                       command: list[str]) -> None:
    fifo = project / "f"
    os.mkfifo(fifo)
    for target, kind in ((str(fifo), "a FIFO"), ("/dev/zero", "a character device")):
        refused = run(home, project, *command, target, expect=2, fresh=True)  # it hung
        assert kind in refused["message"] and target in refused["message"]
    assert not (home / "sessions").exists()


def test_a_file_too_large_to_pin_is_refused_unread(home: Path, project: Path) -> None:
    big = project / "big.md"
    big.write_text("a" * (64 * 1024 + 1))
    refused = run(home, project, "pin", "--file", str(big), expect=2)
    assert "larger than 65536 bytes" in refused["message"]
    assert not (home / "sessions").exists()
    small = project / "rules.md"
    small.write_bytes("\ufeffRun the tests first.\n".encode())  # a BOM is not content
    assert run(home, project, "pin", "--file", str(small))["outcome"] == "committed"
    assert _stored(home, project) == ["Run the tests first."]


# -- standard input --------------------------------------------------------------------------


@pytest.mark.slow
def test_import_from_standard_input_that_is_not_text_or_is_closed(home: Path,
                                                                  project: Path) -> None:
    bad = run(home, project, "import", "-", input=b"\xff\xfe{}\n", expect=2,
              env={"PYTHONIOENCODING": "utf-8:strict"})
    assert bad["message"].startswith("standard input: not UTF-8 text")
    closed = run(home, project, "import", "-", stdin=None, expect=2,
                 preexec_fn=lambda: os.close(0))
    assert "standard input is closed" in closed["message"]
    line = json.dumps({"kind": "pin", "scope": "session", "text": "Piped in."}) + "\n"
    assert run(home, project, "import", "-", input=line.encode())["counts"] == \
        {"imported": 1}


# -- standard output that cannot be written ------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("where", ["closed", "full"])
@pytest.mark.slow
def test_a_committed_write_keeps_its_exit_status_when_it_cannot_be_printed(
        home: Path, project: Path, where: str) -> None:
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"}

    def process(*args: str) -> subprocess.CompletedProcess[str]:
        if where == "closed":
            return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args],
                                  cwd=project, env=env, stdout=None, stderr=subprocess.PIPE,
                                  text=True, timeout=60, preexec_fn=lambda: os.close(1))
        with open("/dev/full", "w") as full:
            return subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args],
                                  cwd=project, env=env, stdout=full, stderr=subprocess.PIPE,
                                  text=True, timeout=60)

    for json_flag in ([], ["--json"]):
        done = process(*json_flag, "pin", "--", f"Written while output fails {json_flag}.")
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
        assert "standard output cannot be written" in done.stderr
        assert "committed" in done.stderr
    refused = process("--json", "pin", "--", "")  # a refusal: its message, its status
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "empty" in refused.stderr.lower()
    assert len(_stored(home, project)) == 2


def test_pin_refuses_a_file_and_a_text_together(home: Path, project: Path) -> None:
    (project / "rules.md").write_text("Contents of the file\n")
    refused = run(home, project, "pin", "--file", "rules.md", "--", "Different text",
                  expect=2)
    assert refused["code"] == "usage" and "not both" in refused["message"]
    assert not (home / "sessions").exists()
    pinned = run(home, project, "pin", "--file", "rules.md")
    assert pinned["outcome"] == "committed"
    [item] = run(home, project, "pins")["items"]
    assert item["text"] == "Contents of the file" and item["sourceFile"].endswith("rules.md")


def test_a_pinned_files_source_is_the_file_that_was_read(home: Path, project: Path,
                                                         tmp_path: Path) -> None:
    """`--cwd OTHER pin --file docs/rules.md` read the file where the command ran and
    recorded OTHER/docs/rules.md as its source: the plan named one file as the source of
    another's text. The source kept is the file read."""
    for folder, words in ((project, "Rules of the folder the command ran in."),
                          (tmp_path / "other", "Rules of the other folder.")):
        (folder / "docs").mkdir(parents=True)
        (folder / "docs" / "rules.md").write_text(words)
    other = str(tmp_path / "other")
    run(home, project, "--cwd", other, "pin", "--file", "docs/rules.md")
    [item] = run(home, project, "--cwd", other, "pins")["items"]
    assert item["text"] == (Path(item["sourceFile"])).read_text(), item


def test_memory_edit_without_a_terminal_opens_no_editor(home: Path, project: Path,
                                                        tmp_path: Path) -> None:
    claim = run(home, project, "memory", "add", "--", "The cache size is 64 MB.")
    editor = tmp_path / "editor.py"  # draws on the screen and saves a change, as vi would
    editor.write_text("import sys, pathlib\nprint('\\x1b[?1049h\\x1b[2J', flush=True)\n"
                      "p = pathlib.Path(sys.argv[1])\n"
                      "p.write_text(p.read_text().replace('64', '128'))\n")
    refused = run(home, project, "memory", "edit", claim["id"][:8], expect=2,
                  stdin=subprocess.DEVNULL, env={"EDITOR": f"{sys.executable} {editor}"})
    assert refused["code"] == "invalid_argument" and "needs a terminal" in refused["message"]
    # the command to use instead, whole, with the ID given (it said `memory supersede
    # MEMORY_ID -- NEW TEXT`: no program, no ID)
    assert refused["message"].endswith(
        f"use `waymarks memory supersede {claim['id'][:8]} -- NEW TEXT`"), refused["message"]
    assert _stored(home, project) == ["The cache size is 64 MB."]


# -- command lines built to break the parser ------------------------------------------------


@pytest.mark.parametrize("value", ["1" + "0" * 400 + "d", "9" * 5000 + "m", "\u0661\u0662d",
                                   "12345678w"], ids=["400 digits", "5000 digits",
                                                      "Arabic-Indic digits", "8 digits"])
def test_since_takes_a_bounded_ascii_number(home: Path, project: Path, value: str) -> None:
    refused = run(home, project, "pins", "--since", value, expect=2)
    assert refused["code"] == "usage" and "--since" in refused["message"]


def test_since_still_takes_its_documented_forms(home: Path, project: Path) -> None:
    run(home, project, "pin", "--", "Kept.")
    for value in ("7d", "12h", "30m", "2 w", "9999999w", "2026-11-01", "2026-11-01T14:30"):
        run(home, project, "pins", "--since", value)
    assert [i["text"] for i in run(home, project, "pins", "--since", "1d")["items"]] == \
        ["Kept."]


@pytest.mark.parametrize("inner", ["context " * 200 + "pins", "context pins",
                                   "--json context pins"], ids=["200 deep", "one", "globals"])
def test_context_inside_context_is_a_usage_error(home: Path, project: Path,
                                                 inner: str) -> None:
    refused = run(home, project, "context", inner, expect=2)
    assert refused["code"] == "usage" and "not another context" in refused["message"]
    assert run(home, project, "context", "pins")["items"] == []  # one level still runs


@pytest.mark.parametrize("inner", ['memory add --key "" The cache TTL is 60 seconds.',
                                   "memory add --key '' The cache TTL is 60 seconds."])
def test_an_empty_quoted_value_in_context_is_a_value(home: Path, project: Path,
                                                     inner: str) -> None:
    """``--key ""`` is refused as the same words typed in a shell are: the empty quote was
    dropped, so the next word became the key ('the') and the text lost it."""
    typed = run(home, project, "memory", "add", "--key", "", "The", "cache", "TTL", "is",
                "60", "seconds.", expect=2)
    refused = run(home, project, "context", inner, expect=2)
    assert refused["code"] == typed["code"] == "invalid_argument"
    assert refused["message"] == typed["message"]
    assert run(home, project, "memory")["items"] == []


@pytest.mark.parametrize("args", [["pins", "--JSON", "--bogus"], ["--Json", "-h"],
                                  ["--JSON", "recall", "--bogus", "x"]], ids=repr)
def test_json_in_any_case_makes_every_answer_json(home: Path, project: Path,
                                                  args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", *args], cwd=project,
                          env={**os.environ, "WAYMARKS_HOME": str(home),
                               "WAYMARKS_CC_HELPER": "off"},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == (0 if "-h" in args else 2), done
    assert done.stderr == "" and len(done.stdout.strip().splitlines()) == 1, done
    assert isinstance(json.loads(done.stdout), dict)


# -- smaller refusals that said nothing, or the wrong thing ------------------------------------


def test_small_mistakes_are_refused_and_name_the_fix(home: Path, project: Path,
                                                     tmp_path: Path) -> None:
    run(home, project, "pin", "--", "Something stored.")
    unknown = run(home, project, "memory", "include", "zz", expect=2)
    assert unknown["code"] == "not_found" == run(home, project, "memory", "exclude", "zz",
                                                  expect=2)["code"]
    both = run(home, project, "trust", "--list", str(tmp_path), expect=2)
    assert both["code"] == "usage" and "not both" in both["message"]
    assert run(home, project, "trust", "--list")["projects"] == []
    dropped = run(home, project, "plan", "--prompt", "x", "more", "words", expect=2)
    assert dropped["code"] == "usage" and "not both" in dropped["message"]
    missing = run(home, project, "export", "-o", str(tmp_path / "no" / "dir" / "f.jsonl"),
                  expect=2)
    assert str(tmp_path / "no" / "dir" / "f.jsonl") in missing["message"]
    # (no temporary file named; the folder masked: CI's has a random name, "….tmpQ2x")
    assert ".tmp" not in content(missing["message"], str(tmp_path))
    assert "does not exist" in missing["message"]
    empty = run(home, project, "export", "-o", "", expect=2)
    assert empty["code"] == "usage" and "-o needs a FILE" in empty["message"]
    no_id = run(home, project, "unpin", "", expect=2)
    assert no_id["code"] == "invalid_argument" and "ID is empty" in no_id["message"]


def test_a_deleted_working_directory_is_named(home: Path, tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", f"import os, sys; os.chdir({str(gone)!r}); "
         f"os.rmdir({str(gone)!r}); from waymarks.cli.main import main; "
         "sys.exit(main(['--json', 'pins']))"],
        env={**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off"},
        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "working directory no longer exists" in json.loads(done.stdout)["message"]


def test_the_key_filter_is_folded_as_the_key_was(home: Path, project: Path) -> None:
    run(home, project, "memory", "add", "--key", "DB Port", "--", "Epsilon is five.")
    for given in ("DB Port", "db-port", "db port"):
        found = run(home, project, "memory", "list", "--key", given)["items"]
        assert [i["text"] for i in found] == ["Epsilon is five."], given


def test_an_ambiguous_session_prefix_lists_the_sessions(home: Path, project: Path) -> None:
    ids: list[str] = []
    while True:  # until two sessions share a first character (at most 17)
        ids.append(run(home, project, "session", "new")["session"]["id"])
        firsts = [i[0] for i in ids]
        shared = next((c for c in firsts if firsts.count(c) > 1), None)
        if shared is not None:
            break
    refused = run(home, project, "--session", shared, "pins", expect=2)
    assert refused["code"] == "bad_session" and "ambiguous" in refused["message"]
    assert all(i in refused["message"] for i in ids if i.startswith(shared))


def test_index_without_the_extra_is_not_a_usage_error(home: Path, project: Path) -> None:
    done = run(home, project, "index", "--semantic", expect=1,
               env={"WAYMARKS_SEMANTIC": "off"})
    assert done["outcome"] == "error" and done["code"] == "semantic_unavailable"


def test_several_context_words_are_the_shells_words(home: Path, project: Path) -> None:
    """``waymarks context`` given several words joined them and split them again: an
    empty word vanished and ``The`` became the key, ``--key "db port"`` the key 'db' and
    the claim gained "port", and quotes inside a word were removed (all recorded, exit
    0). They are the command's words as the shell split them now."""
    empty = run(home, project, "context", "memory", "add", "--key", "", "The", "cache",
                "is", "warm", expect=2)
    typed = run(home, project, "memory", "add", "--key", "", "The", "cache", "is", "warm",
                expect=2)
    assert empty["code"] == typed["code"] == "invalid_argument"
    run(home, project, "context", "memory", "add", "--key", "db port",
        "The database listens on 5432.")
    run(home, project, "context", "memory", "add", "--",
        'The flag is called "strict_mode" in config.')
    items = {i["text"]: i["key"] for i in run(home, project, "memory")["items"]}
    assert items["The database listens on 5432."] == "db-port"
    assert 'The flag is called "strict_mode" in config.' in items


@pytest.mark.parametrize("query", [[""], ["  "], ["", " "]], ids=repr)
def test_a_blank_recall_query_is_a_usage_error(home: Path, project: Path,
                                               query: list[str]) -> None:
    """``recall ""`` answered "Nothing recalled." with exit 0 (and ``context 'recall ""'``
    too, now that an empty quoted argument is one): a blank query is a mistake, said as
    a missing one is."""
    refused = run(home, project, "recall", *query, expect=2)
    assert refused["code"] == "usage" and "query" in refused["message"]
    assert run(home, project, "context", "recall ''", expect=2)["code"] == "usage"



def pi_session(project: Path, agent: Path) -> Path:
    """A session Pi made for ``project`` in its own folder (header and a first message)."""
    folder = agent / "sessions" / f"--{str(project).strip('/').replace('/', '-')}--"
    folder.mkdir(parents=True)
    path = folder / "2026-11-30T10-00-00-000Z_11111111-1111-4111-8111-111111111111.jsonl"
    path.write_text(json.dumps({
        "type": "session", "version": 3, "id": "11111111-1111-4111-8111-111111111111",
        "timestamp": "2026-11-30T10:00:00.000Z", "cwd": str(project)}) + "\n" + json.dumps({
            "type": "message", "id": "a1", "parentId": None,
            "timestamp": "2026-11-30T10:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}) + "\n")
    return path


@pytest.mark.parametrize("command", ["exclude", "include"])
def test_a_blank_session_id_is_refused_by_exclude_and_include(
        home: Path, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        command: str) -> None:
    """A review: ``memory exclude ""`` (a script's unset ``$SID``) took the blank as a
    prefix of every session ID: with the project's only session Pi's (the command line
    has none of its own), it excluded that one, and all of its project memory with it.
    A blank ID is refused now (include alike), and nothing changes."""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    ledger = pi_session(project.resolve(), tmp_path / "agent")
    run(home, project, "--session", str(ledger), "pins")  # now known to the database
    [only] = run(home, project, "memory", "sources")["sources"]
    if command == "include":
        run(home, project, "memory", "exclude", only["sessionId"])
    before = run(home, project, "memory", "sources")["sources"]
    for blank in ("", "  "):
        refused = run(home, project, "memory", command, blank, expect=2)
        assert refused["code"] == "invalid_argument" and "ID is empty" in refused["message"]
    assert run(home, project, "memory", "sources")["sources"] == before
    assert before[0]["excluded"] is (command == "include")


def test_an_empty_pin_source_is_refused_as_a_blank_one_is(home: Path, project: Path) -> None:
    """A review: ``pin --source "" -- x`` was stored with no source while ``--source "  "``
    was refused (as an entry off the branch). Both are an empty ID now: refused, exit 2,
    nothing stored."""
    for blank in ("", "   "):
        refused = run(home, project, "pin", "--source", blank, "--", "Use ruff.", expect=2)
        assert refused["code"] == "invalid_argument", refused
        assert "source entry ID is empty" in refused["message"]
    assert run(home, project, "pins")["items"] == []
    # memory's too (a re-read: `memory add --source ""` recorded no provenance, rc 0)
    for blank in ("", " , ", "1a2b3c4d,"):
        refused = run(home, project, "memory", "add", "--source", blank, "--",
                      "The port is 5432.", expect=2)
        assert refused["code"] == "usage" and "empty entry ID" in refused["message"]
    assert run(home, project, "memory")["items"] == []


def test_trust_with_cwd_takes_a_relative_path_from_that_directory(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``waymarks --cwd DIR trust .`` trusted the directory the process ran in, not DIR:
    a directory the person never named (trust widened)."""
    project, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    trusted = run(home, elsewhere, "--cwd", str(project), "trust", ".")
    assert trusted["project"] == str(project.resolve())
    assert run(home, elsewhere, "--cwd", str(project), "status")["projectTrusted"] is True
    assert run(home, elsewhere, "status")["projectTrusted"] is False
    run(home, elsewhere, "--cwd", str(project), "untrust", ".")
    assert run(home, elsewhere, "--cwd", str(project), "status")["projectTrusted"] is False


@pytest.mark.parametrize("args", [
    ["memory", "add", "--source", "a041ffc7", "--source", "bdf55496", "--", "Bus is Rabbit."],
    ["memory", "add", "--classification", "sensitive", "--classification=normal", "--",
     "The vault host is vault.internal."],
    ["pin", "--classification", "local-only", "--classification", "normal", "--", "Pin it."],
    ["memory", "add", "--key", "a", "--key", "b", "--", "The port is 5."],
    ["context", "memory add --scope session --scope project -- The port is 5."],
    # (a re-read) click reads option names in any case, and short ones
    ["memory", "add", "--CLASSIFICATION", "sensitive", "--classification", "normal", "--",
     "The vault host is vault.internal."],
    ["export", "-o", "a.jsonl", "--output", "b.jsonl"],
    ["export", "-o", "a.jsonl", "-ob.jsonl"],  # (a value attached to a short option)
], ids=["source", "classification", "pin-classification", "key", "context", "case", "short",
        "attached"])
def test_an_option_of_one_value_given_twice_is_refused(home: Path, project: Path,
                                                       args: list[str]) -> None:
    """A review: click kept the last of a repeated option in silence: ``--source A
    --source B`` dropped A's provenance, a second ``--classification`` lowered the level
    the person typed first."""
    refused = run(home, project, *args, expect=2)
    assert refused["code"] == "usage" and "more than once" in refused["message"]
    assert _stored(home, project) == []
    # after `--` it is text, and a flag or an option taking several values may repeat
    run(home, project, "memory", "add", "--key", "a", "--", "--key", "b")
    assert _stored(home, project) == ["--key b"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="file-size limit, SIGXFSZ")
@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_an_export_cut_short_by_a_full_disk_fails(home: Path, project: Path,
                                                   tmp_path: Path) -> None:
    """A review: on a device that filled part way (`export > backup.jsonl` on a small
    tmpfs), the buffered layer returned a short count, the text layer dropped it, and the
    export wrote a cut file with exit 0 and no word. A file-size limit makes a disk that
    is full after 64 KiB; each write's count is checked now, and the export fails."""
    import resource
    import signal

    padding = " ".join(f"word{k}" for k in range(250))  # ~1.8 KB a claim
    for n in range(100):
        run(home, project, "memory", "add", "--", f"Widget {n} runs on {n + 1000}. {padding}")
    backup = tmp_path / "backup.jsonl"

    def full_after_64k() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))

    with backup.open("wb") as out:
        done = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", "export"], cwd=project,
            env={**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
                 "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_SEMANTIC": "off"},
            stdout=out, stderr=subprocess.PIPE, text=True, timeout=60,
            preexec_fn=full_after_64k)
    assert backup.stat().st_size == 65536, done.stderr  # what the disk took
    assert done.returncode == 1, done.stderr
    assert "standard output cannot be written" in done.stderr
    assert "Traceback" not in done.stderr
    whole = run(home, project, "export", json_out=False)
    assert len(whole.encode()) > 65536 * 2  # (the case is a cut, not an empty store)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_an_export_that_cannot_be_written_fails_after_a_repair_too(home: Path,
                                                                   project: Path) -> None:
    """A re-read: the result that carries a repair (`recovered`, with --json) was built
    anew without the flag that fails an export whose output cannot be written, so a
    damaged database set aside made `export --json > /dev/full` exit 0."""
    run(home, project, "memory", "add", "--", "The deploy host is kestrel-nine.")
    (home / "waymarks.db").write_bytes(b"garbage, not a database " * 100)
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", "--json", "export"], cwd=project,
            env={**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
                 "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_SEMANTIC": "off"},
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert list(home.glob("waymarks.db.damaged-*")), "the case is a repaired database"
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    with open("/dev/full", "w") as full:  # a completion script is what it makes, too
        done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "completion",
                               "fish"], cwd=project, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60,
                              env={**os.environ, "WAYMARKS_HOME": str(home),
                                   "WAYMARKS_CLI_HELPER": "off"})
    assert done.returncode == 1, done.stderr


def test_a_session_file_whose_header_cwd_holds_a_nul_is_no_session(home: Path,
                                                                  project: Path) -> None:
    """A re-read: a foreign session file in the project's own folder, its header's cwd
    holding a NUL, ended every command there (`pins`, `status`) in a traceback (each
    place resolving the path raised); it is no session header, passed over."""
    import uuid

    run(home, project, "pin", "--", "Always run the tests.")
    [folder] = [p for p in (home / "sessions").iterdir() if p.is_dir()]
    sid = str(uuid.uuid4())
    (folder / f"2030-01-01T00-00-00-000Z_{sid}.jsonl").write_text(json.dumps(
        {"type": "session", "version": 3, "id": sid, "timestamp": "2030-01-01T00:00:00.000Z",
         "cwd": f"{project}\u0000"}) + "\n")
    assert [p["text"] for p in run(home, project, "pins")["items"]] == ["Always run the tests."]
    run(home, project, "status", fresh=True)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["--help"], ["pins", "--help"], ["help", "memory"],
                                  ["--version"], ["--json", "--version"]])
@pytest.mark.parametrize("closed", [False, True], ids=["full", "closed"])
def test_help_or_the_version_that_cannot_be_written_fails(tmp_path: Path, args: list[str],
                                                          closed: bool) -> None:
    """``waymarks --help > /dev/full`` exited 0, ``--version`` with a traceback: help and
    the version are what those commands make, as ``completion``'s script is, and nothing
    of them was shown. So with standard output closed (``>&-``)."""
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", *args], cwd=tmp_path,
            env={**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"),
                 "WAYMARKS_CLI_HELPER": "off"},
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
            preexec_fn=(lambda: os.close(1)) if closed else None)
    assert done.returncode == 1, done.stderr
    assert "standard output cannot be written" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_empty_or_too_long_text_names_the_fix(tmp_path: Path) -> None:
    """`waymarks memory add -- <100,000 characters>` said "Memory claim has 100000
    characters; the limit is 2000" and `waymarks pin` with no text "Pin content must not
    be empty (nor only invisible characters)": what was wrong, not what to do. Each says
    what to do now, and that nothing was written (exit 2, as before)."""
    from tests.inprocess import waymarks as run

    env = {"WAYMARKS_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    long = run("--json", "memory", "add", "--", "x" * 100_000, env=env, cwd=tmp_path)
    said = json.loads(long.stdout)
    assert (long.returncode, said["code"]) == (2, "too_long")
    assert said["message"] == ("Memory claim has 100000 characters; the limit is 2000: "
                               "shorten it (one fact a claim); nothing was written")
    empty = run("--json", "pin", env=env, cwd=tmp_path)
    said = json.loads(empty.stdout)
    assert (empty.returncode, said["code"]) == (2, "empty")
    assert said["message"] == ("Pin content must not be empty (nor only invisible "
                               "characters): give its text; nothing was written")
    listed = json.loads(run("--json", "memory", env=env, cwd=tmp_path).stdout)
    assert listed["items"] == []


def test_a_key_of_no_letter_names_the_fix(tmp_path: Path) -> None:
    """`memory add --key '$$$' -- …` said "Memory key must contain letters or numbers",
    where `memory list --key ''` gives an example and the way out: the write does too."""
    from tests.inprocess import waymarks as run

    env = {"WAYMARKS_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}
    for key in ("", "$$$"):
        done = run("--json", "memory", "add", "--key", key, "--", "The port is 5433.",
                   env=env, cwd=tmp_path)
        said = json.loads(done.stdout)
        assert (done.returncode, said["code"]) == (2, "invalid_argument"), said
        assert said["message"] == ("Memory key needs a letter or a digit (e.g. db-port); "
                                   "give none to derive it from the text"), said
