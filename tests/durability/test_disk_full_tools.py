"""The model's tools on a full disk and over a session file cut short: what they read is
said to be read as it is, as the command line says it (``tests/durability/test_disk_full``
mounts the small file system and fills it)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.durability.test_disk_full import fill, small_fs  # noqa: F401 (the fixture)
from tests.tool.test_persistence import Person
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.tool.persistence import ContextPersistence


def test_context_persistence_reads_on_a_full_disk_say_they_may_be_stale(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """On a full disk `context_persistence`'s lists and finds answered `ok` from the
    database as it is without a word, a memory not yet indexed for recall missing from
    `memory_find` (the model told, in effect, that no such memory exists), where
    `memory_recall` and the command line say the answer may be stale. Each read now says
    so (``stale``: a code, the result being metadata only), and none once room is
    freed."""
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = Waymarks(small_fs / "home", cwd=str(project))
    app.session_say("Please keep track of the build")
    assert isinstance(app.remember("The build command is make ship."), Committed)
    tool = ContextPersistence(app)
    assert "stale" not in tool.call({"action": "memory_list"}, Person()).details
    app.close()
    filler = fill(small_fs)
    for arguments in ({"action": "memory_list"}, {"action": "pins_list"},
                      {"action": "memory_find", "query": "build command"},
                      {"action": "memory_sources"}):
        answer = tool.call(arguments, Person())
        assert answer.outcome == "ok" and answer.details.get("stale") == "disk-full", answer
        assert "may be stale" in answer.text and str(small_fs) not in answer.text
    filler.unlink()
    answer = tool.call({"action": "memory_find", "query": "build command"}, Person())
    assert answer.details["items"] and "stale" not in answer.details, answer.details
    app.close()


def test_context_persistence_reads_name_a_newer_session_file_cut_short(
        tmp_path: Path, project: Path) -> None:
    """A newer session file of the project cut short is passed over for the older one,
    and every command and `memory_recall` say so (``passedOver``); the tool's lists
    answered from the older session without a word. They now count the files passed
    over (no path: a result is metadata only), none once the file is gone."""
    from waymarks.ledger.discovery import canonical_project_path, session_dir

    home = tmp_path / "home"
    with Waymarks(home, cwd=str(project)) as app:
        assert isinstance(app.remember("The deploy day is Tuesday."), Committed)
    [ledger] = session_dir(home, canonical_project_path(str(project))).glob("*.jsonl")
    cut = ledger.parent / ("9" + ledger.name[1:])  # sorts after it: the newer one
    cut.write_bytes(ledger.read_bytes()[:40])
    with Waymarks(home, cwd=str(project)) as server:  # a server started now
        answer = ContextPersistence(server).call({"action": "memory_list"}, Person())
    assert answer.outcome == "ok" and answer.details["passedOver"] == 1, answer.details
    assert answer.details["items"] and "older session" in answer.text
    assert str(cut) not in answer.text
    cut.unlink()
    with Waymarks(home, cwd=str(project)) as server:
        answer = ContextPersistence(server).call({"action": "memory_list"}, Person())
    assert "passedOver" not in answer.details


class _Between(io.StringIO):
    """Pi's requests, ``before[n]`` run before the n-th line is read (the disk filled or
    freed between two requests of one long-lived bridge)."""

    def __init__(self, requests: list[dict[str, Any]],
                 before: dict[int, Callable[[], object]]) -> None:
        super().__init__("".join(json.dumps(r) + "\n" for r in requests))
        self.before, self.lines = before, 0

    def readline(self, size: int | None = -1) -> str:
        self.lines += 1
        if self.lines in self.before:
            self.before[self.lines]()
        return super().readline(size)


def test_pis_plan_on_a_full_disk_says_it_may_be_stale(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Pi's plan on a full disk was made from the database as it is and answered without a
    word, where the command line, the Claude Code hook and memory_recall say it may be
    stale and that nothing can be written until space is freed: the person using Pi never
    heard that their pins and memory stopped being stored. The plan's answer carries the
    note (``stale``, which the extension shows once), and one bridge's next plan after
    room is freed none."""
    from waymarks.hosts.pi_bridge import Bridge

    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    home = small_fs / "home"
    with Waymarks(home, cwd=str(project)) as app:
        assert isinstance(app.pin("Always run the linters"), Committed)
    plan = {"method": "plan", "params": {"prompt": "how do we lint?"}}
    requests = [{"id": 1, "method": "initialize", "params": {"cwd": str(project)}},
                {"id": 2, **plan}, {"id": 3, **plan}, {"id": 4, "method": "shutdown"}]

    def plans(between: dict[int, Callable[[], object]]) -> list[dict[str, Any]]:
        stdout = io.StringIO()
        Bridge(home, _Between(requests, between), stdout).serve()
        return [json.loads(line)["result"] for line in stdout.getvalue().splitlines()[1:3]]

    assert [answer["stale"] for answer in plans({})] == [None, None]
    filler = fill(small_fs)  # then Pi starts (its bridge with it), and room is freed
    full, freed = plans({3: filler.unlink})
    assert any("Always run the linters" in m["content"] for m in full["messages"])
    assert "is full" in full["stale"] and "space is freed" in full["stale"], full
    assert freed["stale"] is None and freed["messages"], freed


def test_the_manifest_on_a_full_disk_does_not_pass_for_the_last_plans(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    """A plan on a full disk saves no manifest (490f0cfa), and `manifest` then described the
    plan before it as "the last plan", its memory included and not the one this plan
    included, saying only that the database may be stale. The plan now says its
    manifest was not saved, and `manifest` that it shows the last one saved before the
    disk filled, which a plan made since is not."""
    from tests.durability.test_disk_full import _full_after_a_plan
    from waymarks.cli.main import main

    home, filler = _full_after_a_plan(small_fs, project, monkeypatch, capsys)
    database = (home / "waymarks.db").read_bytes()
    assert main(["--json", "plan", "written before"]) == 0
    assert "manifest was not saved" in json.loads(capsys.readouterr().out)["stale"]
    for command in ("manifest", "included", "excluded", "tokens"):
        assert main(["--json", command]) == 0
        said = json.loads(capsys.readouterr().out)["stale"]
        assert "last plan saved before the disk filled" in said, (command, said)
    assert (home / "waymarks.db").read_bytes() == database
    filler.unlink()
    assert main(["--json", "manifest"]) == 0
    assert "stale" not in json.loads(capsys.readouterr().out)


def test_a_server_whose_disk_fills_still_recalls_what_is_indexed(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A long-lived process (the MCP server) that opened the database with room, recorded a
    memory, then the disk filled: every `memory_recall` answered `unavailable`
    (database_error), the build command it had recalled a moment before too, until room
    was freed: the recall indexes what it is behind on first, a write. It now answers
    from what is indexed, saying the disk is full and how many memories it could not
    search; the next request once room is freed recalls the new memory, no note."""
    from waymarks.tool.recall import memory_recall

    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = Waymarks(small_fs / "home", cwd=str(project))
    assert isinstance(app.remember("The build command is make ship."), Committed)
    assert memory_recall(app, "build command")["claims"]  # (indexed for recall)
    assert isinstance(app.remember("The deploy day is Tuesday."), Committed)
    filler = fill(small_fs)
    for _ in range(2):
        answer = memory_recall(app, "build command")
        assert answer["outcome"] == "ok" and answer["claims"], answer
        assert "is full" in answer["stale"] and "1 memory" in answer["stale"], answer
    filler.unlink()
    answer = memory_recall(app, "deploy day")
    assert answer["claims"] and "stale" not in answer, answer
    app.close()


def test_the_model_hears_of_a_full_disk_without_the_homes_path(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """On a full disk the note that an answer may be stale named the home's path ("the
    disk holding /home/alice/.waymarks is full ...") to the model too: in the Claude Code
    prompt hook's context and in `memory_recall`'s ``stale`` (MCP, Pi), where
    ``context_persistence`` says a code and a text without it. The person still hears
    the path (the hook's ``systemMessage``); the model gets the note without it."""
    from tests.durability.test_disk_full import _session_with_a_pin
    from tests.hosts.test_claude_code import hook
    from waymarks.tool.recall import memory_recall

    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    home, asked = _session_with_a_pin(small_fs, project)
    app = Waymarks(home, cwd=str(project))
    assert isinstance(app.remember("The deploy day is Tuesday."), Committed)
    app.close()
    filler = fill(small_fs)
    recalled = memory_recall(app, "deploy day")
    app.close()
    assert "is full" in recalled["stale"] and "not indexed" in recalled["stale"], recalled
    assert str(small_fs) not in json.dumps(recalled), recalled
    answer = json.loads(hook(home, "UserPromptSubmit", asked).stdout)
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert str(home) in answer["systemMessage"], answer  # the person: where to free space
    assert "is full" in context and "may be stale" in context, context
    assert str(small_fs) not in context, context
    filler.unlink()


def test_the_manifest_says_when_its_plan_was_made_once_room_is_freed(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    """A plan made while the disk was full saves no manifest; once room was freed,
    `manifest` showed the plan before it as the last plan, without a word: nothing says
    it is older than the one the person just made. A manifest now says when its plan was
    made (``madeAt``; the text's first line), the same before and after the unsaved plan."""
    from tests.durability.test_disk_full import _full_after_a_plan
    from waymarks.cli.main import main
    from waymarks.core.codec import iso_to_ms, utc_text

    _home, filler = _full_after_a_plan(small_fs, project, monkeypatch, capsys)
    filler.unlink()
    assert main(["--json", "manifest"]) == 0
    made = json.loads(capsys.readouterr().out)["madeAt"]
    filler = fill(small_fs)
    assert main(["plan", "written before"]) == 0
    filler.unlink()
    capsys.readouterr()
    assert main(["--json", "manifest"]) == 0
    assert json.loads(capsys.readouterr().out)["madeAt"] == made
    assert main(["manifest"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f"made {utc_text(iso_to_ms(made), '%Y-%m-%d %H:%M:%S')} UTC" in first, first


def test_a_long_lived_process_whose_disk_fills_still_plans(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """A long-lived process (a Claude Code hook's helper, Pi's bridge) that opened the
    database with room, then the disk filled: its next plan failed whole ("the disk
    holding … is full", database_error), since saving the plan's manifest, a cache, could
    not commit; every prompt then got no context, pins included, where a process started
    on the full disk plans from the database as it is. The plan is now made all the same,
    its manifest not saved, and the note says so; once room is freed it saves it again."""
    from waymarks.service.planning import plan_request

    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = Waymarks(small_fs / "home", cwd=str(project))
    assert isinstance(app.pin("Always run the linters"), Committed)
    with app.begin():
        assert not plan_request(app, "lint my change").fallback
    filler = fill(small_fs)
    with app.begin():
        plan = plan_request(app, "lint my change")
    assert "Always run the linters" in plan.messages[0].content
    assert app.stale_note is not None and "manifest was not saved" in app.stale_note
    assert "is full" in app.stale_note, app.stale_note
    filler.unlink()
    with app.begin():
        plan_request(app, "lint my change again")
    assert app.stale_note is None
    app.close()


def test_a_long_lived_process_behind_its_session_when_the_disk_fills_still_plans(
        small_fs: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The same process, its session's ledger grown since its last request (another
    prompt the hook recorded as the disk filled), then the disk full: bringing the
    database up to the ledger is a write, and it failed the request whole (the real
    Claude Code helper: "Waymarks added no context and did not record this prompt: the
    disk holding … is full"), where a process started on the full disk reads the database
    as it is. The process now reads it as it is from there, saying so, and plans."""
    from waymarks.service.planning import plan_request

    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = Waymarks(small_fs / "home", cwd=str(project))
    assert isinstance(app.pin("Always run the linters"), Committed)
    with app.begin():
        plan_request(app, "lint my change")
    assert isinstance(app.remember("The deploy day is Tuesday."), Committed)
    filler = fill(small_fs)
    # the hook records the prompt first: the ledger's last page takes it, the database
    # cannot (best effort there), so the next request finds the database behind
    app.session_say("lint my change")
    with app.begin():
        plan = plan_request(app, "lint my change")
    assert "Always run the linters" in plan.messages[0].content
    assert app.read_only and app.stale_note is not None and "is full" in app.stale_note
    filler.unlink()
    with app.begin():
        plan = plan_request(app, "which day do we deploy?")
    assert not app.read_only and app.stale_note is None
    assert any("Tuesday" in m.content for m in plan.messages), plan.messages
    app.close()
