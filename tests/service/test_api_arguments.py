"""Arguments the Python API takes that the CLI never passes: refused with a clear error,
before anything is written (the Python API review)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected, ServiceError


def _ledger_bytes(home: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted((home / "sessions").rglob("*.jsonl"))}


@pytest.mark.parametrize("status", ["deleted", "active", "bogus", None, ["invalid"], {"x": 1}])
def test_a_memory_status_outside_invalid_or_expired_is_refused_and_appends_nothing(
        app: Waymarks, home: Path, status: object) -> None:
    claim = app.remember("The staging database listens on port 5433.")
    assert isinstance(claim, Committed)
    before = _ledger_bytes(home)
    outcome = app.set_memory_status(claim.id, status, "gone")  # type: ignore[arg-type]
    assert isinstance(outcome, Rejected) and outcome.code == "invalid_argument"
    assert "give expired or invalid" in outcome.message
    assert _ledger_bytes(home) == before  # nothing reached the ledger
    assert app.health()["ok"] is True  # (a bad line made every later health fail)
    [item] = app.items("memory")
    assert item.status == "active"


def test_a_pin_status_other_than_deleted_is_refused(app: Waymarks, home: Path) -> None:
    from waymarks.service import write_path
    from waymarks.service.writes import decide_status

    pin = app.pin("Run the tests with tox.")
    assert isinstance(pin, Committed)
    before = _ledger_bytes(home)
    outcome = app._write(lambda ctx: decide_status(ctx, "pin", pin.id, "invalid", None))
    assert isinstance(outcome, Rejected) and outcome.code == "invalid_argument"
    assert _ledger_bytes(home) == before
    assert isinstance(write_path.dry_run(app, lambda ctx: decide_status(
        ctx, "pin", pin.id, "expired", None)), Rejected)
    assert isinstance(app.unpin(pin.id), Committed)  # "deleted", the pin's one status


@pytest.mark.parametrize(("source_file", "code"), [
    ("docs/" + "x" * 70_000 + ".md", "too_long"),
    ("/srv/ghp_1234567890abcdefghijklmnopqrstuvwxyzAB/rules.md", "credential"),
    ("bad\udcffname.md", "invalid_argument"),
    ("", "empty"),  # was recorded as the project's directory (`--file ""` is refused)
    ("  ", "empty"),
    ("\u200b", "empty"),
])
def test_a_pins_source_file_is_checked_as_stored_text_is(
        app: Waymarks, home: Path, source_file: str, code: str) -> None:
    app.session_new()
    before = _ledger_bytes(home)
    outcome = app.pin("Follow the rules in the rules file.", source_file=source_file)
    assert isinstance(outcome, Rejected) and outcome.code == code
    assert "ghp_" not in outcome.message  # a refusal never echoes the credential
    assert _ledger_bytes(home) == before
    assert app.items("pin") == []
    kept = app.pin("Follow the rules in the rules file.", source_file="docs/rules.md")
    assert isinstance(kept, Committed)
    [pin] = app.items("pin")
    assert pin.source_file is not None and pin.source_file.endswith("/docs/rules.md")


def test_items_counts_of_zero_list_none_and_negative_counts_are_refused(app: Waymarks) -> None:
    from waymarks.service.outcomes import ServiceError

    made = [app.remember(f"Fact number {n} is about the lighthouse {n}.") for n in range(3)]
    assert all(isinstance(m, Committed) for m in made)
    app.set_memory_status(made[0].id, "expired")  # type: ignore[union-attr]
    assert app.items("memory", recent=0) == []
    assert app.items("memory", recent_active=0) == []  # (was every active item)
    assert app.items("memory", recent_active=0, recent=2) == []  # the active count rules
    assert [v.id for v in app.items("memory", recent=2)] == [m.id for m in made[:0:-1]]
    assert [v.id for v in app.items("memory", recent_active=5)] == [m.id for m in made[:0:-1]]
    for bad in ({"recent": -1}, {"recent_active": -3}, {"recent": 1.5}, {"recent": True}):
        with pytest.raises(ServiceError) as refused:
            app.items("memory", **bad)  # type: ignore[arg-type]
        assert refused.value.code == "invalid_argument"
        assert "at least 0" in str(refused.value)


def _refused(home: object, cwd: object) -> str:
    from waymarks.service.outcomes import ServiceError

    with pytest.raises(ServiceError) as refused:
        Waymarks(home, cwd=cwd)  # type: ignore[arg-type]
    assert refused.value.code == "invalid_argument"
    return str(refused.value)


def test_the_constructor_refuses_a_home_or_cwd_the_command_line_refuses(
        tmp_path: Path, project: Path) -> None:
    import os

    a_file = tmp_path / "a-file"
    a_file.write_text("not a home\n")
    assert "not a directory" in _refused(a_file, str(project))
    assert a_file.read_text() == "not a home\n"
    assert "relative path" in _refused(Path("relative/home"), str(project))
    assert not (project / "relative").exists() and not Path("relative").exists()
    not_text = Path(os.fsdecode(tmp_path / "home") + os.fsdecode(b"\xff"))
    assert "not a UTF-8 path" in _refused(not_text, str(project))
    assert not os.path.lexists(not_text)
    assert "must be a directory's path" in _refused(123, str(project))
    home = tmp_path / "home"
    # a file named as the project: its items went to a project of that name
    assert f"cwd {a_file}: not a directory" in _refused(home, str(a_file))
    assert "must be a directory's path" in _refused(home, 5)
    assert not home.exists()  # nothing was made


def test_the_constructor_takes_a_home_and_cwd_as_text_or_pathlike(
        tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    with Waymarks(str(home), cwd=project) as app:
        assert app.home == home and app.cwd == str(project.resolve())
        assert isinstance(app.remember("The text home is kept as a path."), Committed)
    gone = tmp_path / "deleted-project"  # a host's project may be gone: its items read
    with Waymarks(home, cwd=str(gone), project_may_be_gone=True) as app:
        assert app.items("memory") == []


def test_the_constructor_refuses_a_cwd_that_does_not_exist_as_the_command_line_does(
        tmp_path: Path) -> None:
    """It was taken, and a write went to a phantom project (its session folder made),
    while ``waymarks --cwd /nonexistent/proj`` exits 2."""
    import subprocess
    import sys

    home, gone = tmp_path / "home", tmp_path / "nonexistent" / "proj"
    assert f"cwd {gone}: no such directory" in _refused(home, str(gone))
    assert not home.exists()  # nothing was made
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src"),
           "WAYMARKS_HOME": str(home), "HOME": str(tmp_path)}
    command = "import sys; from waymarks.cli.main import main; sys.exit(main())"
    done = subprocess.run([sys.executable, "-c", command,
                           "--cwd", str(gone), "memory", "add", "The port is 5433."],
                          env=env, capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 2, done.stderr  # what the constructor now matches
    assert f"{gone}: no such directory" in done.stderr
    assert not (home / "sessions").exists()


def _session_files(home: Path) -> list[Path]:
    return sorted((home / "sessions").rglob("*.jsonl")) if (home / "sessions").exists() else []


@pytest.mark.parametrize("say", [
    lambda app: app.session_say("bad \udcff text"),
    lambda app: app.session_say("x" * (4 * 1024 * 1024 + 1)),
    lambda app: app.append_record("example-note-v1", {"note": "bad \udcff text"}),
    lambda app: app.append_record("example-note-v1", {"note": object()}),
])
def test_a_message_or_record_that_cannot_be_written_is_refused_before_a_session_is_made(
        app: Waymarks, home: Path, say: Callable[[Waymarks], object]) -> None:
    from waymarks.service.outcomes import ServiceError

    with pytest.raises(ServiceError) as refused:
        say(app)
    assert refused.value.code == "invalid_argument"
    assert _session_files(home) == []  # (a session file was made, then the append failed)
    entry = app.session_say("A message that can be written.")
    [path] = _session_files(home)
    assert entry in path.read_text()


_CREDENTIAL = "The deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"


@pytest.mark.parametrize(("custom_type", "data"), [
    ("ds4-context-memory-v1", {"schemaVersion": 1, "mutationId": "m1", "createdAt": 1,
                               "operation": "add", "item": {
                                   "id": "11111111-1111-4111-8111-111111111111",
                                   "scope": "session", "createdAt": 1, "claim": _CREDENTIAL,
                                   "sourceEntryIds": []}}),
    ("ds4-context-memory-v1", {"garbage": 1}),
    ("ds4-context-pin-v1", {"schemaVersion": 1}),
    ("ds4-context-pin-v2", {"schemaVersion": 2}),  # the family's future types too
])
def test_a_pin_or_memory_mutation_is_refused_as_a_custom_record(
        app: Waymarks, home: Path, custom_type: str, data: dict[str, object]) -> None:
    """``append_record`` skipped every check of a write: a credential ``remember`` refuses
    was stored and active, and a malformed mutation was acknowledged with an entry ID."""
    from waymarks.service.outcomes import ServiceError

    refused_write = app.remember(_CREDENTIAL)
    assert isinstance(refused_write, Rejected) and refused_write.code == "credential"
    assert isinstance(app.remember("The database port is 5433."), Committed)
    before = _ledger_bytes(home)
    with pytest.raises(ServiceError) as refused:
        app.append_record(custom_type, data)
    assert refused.value.code == "invalid_argument"
    assert "nothing was written" in str(refused.value)
    assert _ledger_bytes(home) == before
    assert [view.text for view in app.items("memory")] == ["The database port is 5433."]
    assert app.health()["ok"] is True
    assert app.append_record("example-note-v1", {"note": "kept"})  # other types still go


def test_a_branch_summary_is_checked_before_anything_is_appended(
        app: Waymarks, home: Path) -> None:
    from waymarks.service.outcomes import ServiceError

    first = app.session_say("The first message.")
    [path] = _session_files(home)
    before = path.read_bytes()
    for summary in ("bad \udcff summary", "y" * (4 * 1024 * 1024 + 1)):
        with pytest.raises(ServiceError) as refused:
            app.session_branch(first, summary)
        assert refused.value.code == "invalid_argument"
    assert path.read_bytes() == before
    assert app.session_branch(first, "tried the other parser")


#: each write given one argument that is not text (as the review found them), by name
NOT_TEXT: list[tuple[str, Callable[[Waymarks, str, str], object]]] = [
    ("reason", lambda app, m, p: app.set_memory_status(m, "invalid", reason=["x"])),
    ("memory_id", lambda app, m, p: app.set_memory_status([m], "invalid")),
    ("reason", lambda app, m, p: app.unpin(p, reason=["x"])),
    ("pin_id", lambda app, m, p: app.unpin([p])),
    ("scope", lambda app, m, p: app.remember("Deploys freeze on Fridays.", scope=["project"])),
    ("classification", lambda app, m, p: app.remember("Deploys freeze on Fridays.",
                                                       classification=["sensitive"])),
    ("key", lambda app, m, p: app.remember("Deploys freeze on Fridays.", key=["k"])),
    ("claim", lambda app, m, p: app.remember(None)),
    ("sources", lambda app, m, p: app.remember("Deploys freeze on Fridays.", sources="e1")),
    ("sources", lambda app, m, p: app.remember("Deploys freeze on Fridays.", sources=[1])),
    ("memory_id", lambda app, m, p: app.supersede_memory([m], "The exporter runs hourly.")),
    ("claim", lambda app, m, p: app.supersede_memory(m, ["The exporter runs hourly."])),
    ("classification", lambda app, m, p: app.supersede_memory(
        m, "The exporter runs hourly.", classification=["sensitive"])),
    ("content", lambda app, m, p: app.pin(["Lint before pushing."])),
    ("scope", lambda app, m, p: app.pin("Lint before pushing.", scope=["session"])),
    ("source", lambda app, m, p: app.pin("Lint before pushing.", source=["e1"])),
    ("source_file", lambda app, m, p: app.pin("Lint before pushing.", source_file=["f"])),
    ("supersedes", lambda app, m, p: app.pin("Lint before pushing.", supersedes=[p])),
]


@pytest.mark.parametrize(("name", "write"), NOT_TEXT,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(NOT_TEXT)])
def test_a_write_given_something_other_than_text_is_refused_and_appends_nothing(
        app: Waymarks, home: Path, name: str,
        write: Callable[[Waymarks, str, str], object]) -> None:
    """Only the status was checked: a list as an ID, a reason, a scope, a classification
    or a key raised a raw AttributeError from inside the write, and a string of sources was
    taken for one entry ID per character."""
    memory, pin = app.remember("The exporter runs nightly."), app.pin("Run the tests.")
    assert isinstance(memory, Committed) and isinstance(pin, Committed)
    before = _ledger_bytes(home)
    outcome = write(app, memory.id, pin.id)
    assert isinstance(outcome, Rejected) and outcome.code == "invalid_argument", outcome
    assert outcome.message.startswith(f"{name} must be")
    assert _ledger_bytes(home) == before
    assert {(i.id, i.status) for i in [*app.items("memory"), *app.items("pin")]} == {
        (memory.id, "active"), (pin.id, "active")}


_NOT_UTF8 = "\udcff"  # what sys.argv holds for a byte that is not UTF-8


@pytest.mark.parametrize("write", [
    lambda app, claim: app.unpin(_NOT_UTF8),
    lambda app, claim: app.set_memory_status(claim, "invalid", "gone " + _NOT_UTF8),
    lambda app, claim: app.set_memory_status(_NOT_UTF8, "invalid"),
    lambda app, claim: app.supersede_memory(_NOT_UTF8, "The port is 1."),
    lambda app, claim: app.supersede_memory(claim, "The port is 1.", sources=(_NOT_UTF8,)),
    lambda app, claim: app.pin("Use tabs.", supersedes=_NOT_UTF8),
    lambda app, claim: app.remember("The cache port is 6379.", key="cache" + _NOT_UTF8),
])
def test_an_id_or_text_argument_that_is_not_unicode_is_the_writes_refusal(
        app: Waymarks, home: Path, write: Callable[[Waymarks, str], object]) -> None:
    """An ID holding a lone surrogate raised a raw ``UnicodeEncodeError`` from deep in the
    write (a database query, the ledger's encoding), a source one was looked for, and a
    key one was folded away; the command line refuses such an argument (not UTF-8)."""
    claim = app.remember("The database port is 5433.")
    assert isinstance(claim, Committed)
    before = _ledger_bytes(home)
    outcome = write(app, claim.id)
    assert isinstance(outcome, Rejected) and outcome.code == "invalid_argument", outcome
    assert "not valid Unicode" in outcome.message
    assert _ledger_bytes(home) == before


def test_items_refuses_an_id_that_is_not_unicode(app: Waymarks) -> None:
    from waymarks.service.outcomes import ServiceError

    claim = app.remember("The database port is 5433.")
    assert isinstance(claim, Committed)
    for ids in ([_NOT_UTF8], [claim.id, 5]):
        with pytest.raises(ServiceError) as refused:  # was UnicodeEncodeError, TypeError
            app.items("memory", ids=ids)  # type: ignore[list-item]
        assert refused.value.code == "invalid_argument"
    assert [view.id for view in app.items("memory", ids=[claim.id])] == [claim.id]


@pytest.mark.parametrize("call", [
    lambda app: app.recall(None),  # type: ignore[arg-type]
    lambda app: app.recall(["port"]),  # type: ignore[arg-type]
    lambda app: app.recall("port", provider=5),  # type: ignore[arg-type]
    lambda app: app.trust(None),  # type: ignore[arg-type]
    lambda app: app.untrust(7),  # type: ignore[arg-type]
])
def test_a_read_or_trust_argument_of_the_wrong_kind_is_refused(
        app: Waymarks, home: Path, call: Callable[[Waymarks], object]) -> None:
    """Each raised a raw ``AttributeError`` (or ``UnicodeEncodeError``) from deep inside."""
    from waymarks.service.outcomes import ServiceError

    assert isinstance(app.remember("The database port is 5433."), Committed)
    with pytest.raises(ServiceError) as refused:
        call(app)
    assert refused.value.code == "invalid_argument"
    assert app.trusted_projects() == []
    assert len(app.recall("database port", provider="anthropic").selected) == 1


def test_the_constructor_refuses_a_nul_in_a_path_and_a_timeout_that_is_no_number(
        tmp_path: Path, project: Path) -> None:
    """A NUL in the home or cwd was taken, then the first use raised a raw ``ValueError``;
    a timeout given as text raised a raw ``TypeError`` there."""
    home = tmp_path / "home"
    assert "no NUL" in _refused(Path(f"{home}/x\0y"), str(project))
    assert "no NUL" in _refused(home, f"{project}\0b")
    for timeout in ("5", -1, 2.5, None):
        with pytest.raises(ServiceError) as refused:
            Waymarks(home, cwd=str(project), busy_timeout_ms=timeout)  # type: ignore[arg-type]
        assert refused.value.code == "invalid_argument"
    assert not home.exists()  # nothing was made
    with Waymarks(Path(home), cwd=project, busy_timeout_ms=0) as app:
        assert isinstance(app.remember("The database port is 5433."), Committed)
        assert app.trust(project) == (str(project.resolve()), True)  # a path, as the home


def test_items_refuses_an_unknown_kind_and_one_id_given_as_a_string(app: Waymarks) -> None:
    """``items("pins")`` listed nothing, as if there were none, and ``ids="<an ID>"`` was
    taken per character (matching none)."""
    claim = app.remember("The database port is 5433.")
    assert isinstance(claim, Committed)
    for call in (lambda: app.items("pins"),  # type: ignore[arg-type]
                 lambda: app.items("memory", ids=claim.id)):
        with pytest.raises(ServiceError) as refused:
            call()
        assert refused.value.code == "invalid_argument"
    assert [v.id for v in app.items("memory", ids={claim.id})] == [claim.id]


def test_a_recall_history_given_as_one_string_is_refused(app: Waymarks) -> None:
    """Taken for one turn per character: the follow-up inherited nothing."""
    assert isinstance(app.remember("The database port is 5433."), Committed)
    for history in ("which database?", ["which database?", 5]):
        with pytest.raises(ServiceError) as refused:
            app.recall("and the port?", history=history)  # type: ignore[arg-type]
        assert refused.value.code == "invalid_argument"
    assert app.recall("and the port?", history=["which database?"]).plan.reason == "followup"


@pytest.mark.parametrize("write", [
    lambda app: app.remember("The cache port is 6379.", scope=""),
    lambda app: app.pin("Use tabs.", scope="  "),
])
def test_an_empty_scope_is_refused_not_taken_for_the_default(
        app: Waymarks, home: Path, write: Callable[[Waymarks], object]) -> None:
    """Committed as a session item, while `--scope ""` is refused (exit 2)."""
    assert isinstance(app.remember("The database port is 5433."), Committed)
    before = _ledger_bytes(home)
    outcome = write(app)
    assert isinstance(outcome, Rejected) and outcome.code == "invalid_argument", outcome
    assert "scope is empty" in outcome.message
    assert _ledger_bytes(home) == before


def test_a_request_begun_before_the_first_session_reads_what_its_write_made(
        app: Waymarks) -> None:
    """Inside ``begin()`` in a project with no session yet, a committed claim was not
    listed until the request ended (the request's session stayed ``None``)."""
    with app.begin():
        assert app.items("memory") == []
        assert isinstance(app.remember("The database port is 5433."), Committed)
        assert [v.text for v in app.items("memory")] == ["The database port is 5433."]
        assert len(app.recall("database port").selected) == 1
    assert [v.text for v in app.items("memory")] == ["The database port is 5433."]


def test_a_home_or_cwd_that_is_a_looping_link_is_named_so(tmp_path: Path,
                                                          project: Path) -> None:
    """`WAYMARKS_HOME` or `--cwd` naming a symbolic link that leads back to itself was
    "not a directory" (it looks like one in `ls`), and a loop inside the home ("sessions"
    pointing at itself) "Too many levels of symbolic links (…/sessions)" with no fix."""
    from waymarks.files.errors import fix_for

    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "back")
    (tmp_path / "back").symlink_to(loop)
    assert f"{loop}: a symbolic link that loops; give a directory" in _refused(
        loop, str(project))
    assert f"cwd {loop}: a symbolic link that loops" in _refused(tmp_path / "home", str(loop))
    try:
        (loop / "sessions").stat()
    except OSError as exc:
        assert "leads back to itself: remove it or point it at a real folder" in fix_for(exc)
    else:
        raise AssertionError("the loop was followed")
