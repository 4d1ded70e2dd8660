"""Defects a review of the Pi integration reproduced with the real Pi 1.6 and the fake
model, pinned here through the real bridge process the extension drives. Each test failed
before its fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.hosts.test_pi_evolve import HEADER as PI_HEADER
from tests.hosts.test_pi_evolve import Bridge, _cli

NO_STORE = object()


def _store(agent: Path, store: object) -> None:
    agent.mkdir(exist_ok=True)
    if isinstance(store, dict):
        (agent / "trust.json").write_text(json.dumps(store))
    elif store == "fifo":
        os.mkfifo(agent / "trust.json")
    elif isinstance(store, str):
        (agent / "trust.json").write_text(store)


@pytest.mark.parametrize(("reported", "store", "expected"), [
    # Pi 1.6 says "trusted" of any directory with no Pi resources of its own: a fresh
    # clone's team ledger and docs reached the model on that answer alone
    (True, NO_STORE, None),
    (True, {"/elsewhere": True}, None),
    (True, "not json", None),
    (True, "[true]", None),
    (True, "fifo", None),
    # the person's yes in Pi's trust store, for the project or a folder above it
    (True, {"%project%": True}, True),
    (True, {"%parent%": True}, True),
    (True, {"%parent%": True, "%project%": False}, None),
    (True, {"%parent%/./": True}, True),
    # the person's setting to trust every project, in Pi's own settings (not a project's)
    (True, {"%settings%": {"defaultProjectTrust": "always"}}, True),
    (True, {"%settings%": {"defaultProjectTrust": "ask"}}, None),
    (True, {"%settings%": {"defaultProjectTrust": "always"}, "%project%": False}, None),
    (False, {"%settings%": {"defaultProjectTrust": "always"}}, False),
    # Pi 0.x reports no trust: Waymarks' own list decides
    (NO_STORE, {"%project%": True}, None),
    ("yes", {"%project%": True}, None),
    # Pi's "untrusted" always holds
    (False, {"%project%": True}, False),
])
def test_pis_trust_counts_only_as_the_persons_decision(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reported: object, store: object,
        expected: bool | None) -> None:
    """``None``: the bridge leaves it to ``waymarks trust``."""
    from waymarks.hosts.pi_trust import bridge_trust

    project, agent = tmp_path / "src" / "app", tmp_path / "agent"
    project.mkdir(parents=True)
    if isinstance(store, dict):
        agent.mkdir()
        settings = store.pop("%settings%", None)
        if settings is not None:
            (agent / "settings.json").write_text(json.dumps(settings))
            (project / ".pi").mkdir()  # a repository's own settings never count
            (project / ".pi" / "settings.json").write_text(
                json.dumps({"defaultProjectTrust": "always"}))
        names = {"%project%": str(project), "%parent%": str(tmp_path / "src")}
        store = {next((k.replace(n, v) for n, v in names.items() if n in k), k): value
                 for k, value in store.items()}
        if store or settings is None:
            _store(agent, store)
    else:
        _store(agent, store)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    assert bridge_trust(None if reported is NO_STORE else reported, project) is expected


@pytest.mark.parametrize(("waymarks_trusts", "expected"), [(False, False), (True, True)])
def test_a_fresh_clone_pi_calls_trusted_is_trusted_only_by_waymarks(
        tmp_path: Path, waymarks_trusts: bool, expected: bool) -> None:
    """Through the real bridge, as Pi 1.6 initializes it in a fresh clone: Pi reports
    ``trusted`` and its trust store says nothing of the directory."""
    home, project, agent = tmp_path / "home", tmp_path / "clone", tmp_path / "agent"
    project.mkdir()
    agent.mkdir()
    if waymarks_trusts:
        _cli(home, project, "trust", ".")
    bridge = Bridge(home, project, {"PI_CODING_AGENT_DIR": str(agent)})
    try:
        answer = bridge.call("initialize", {
            "cwd": str(project), "sessionFile": str(tmp_path / "s.jsonl"),
            "header": {**PI_HEADER, "cwd": str(project)}, "entries": [], "leafId": None,
            "hasUI": False, "trusted": True, "provider": "openai"})
        assert answer["trusted"] is expected
    finally:
        bridge.close()


def test_an_entry_pi_loaded_that_is_no_entry_is_skipped_not_the_whole_session(
        tmp_path: Path) -> None:
    """A hand-edited line Pi loads (an ``id`` that is a number) made ``initialize``
    refuse the whole entry list: no bridge came up, and every request of that session
    was withheld on every later ``pi -c``. It is skipped as a file's invalid line is."""
    from tests.hosts.test_pi_evolve import _entry

    home, project = tmp_path / "home", tmp_path / "p"
    project.mkdir()
    entries = [_entry("e1", None, "user", "Which port does staging use?"),
               {"type": "custom", "customType": "my-note", "data": {"x": 1}, "id": 12345,
                "parentId": "e1", "timestamp": "2026-11-30T10:00:02.000Z"},
               7, None,
               _entry("e2", "e1", "assistant", "Port 5433.")]
    bridge = Bridge(home, project)
    try:
        bridge.call("initialize", {
            "cwd": str(project), "sessionFile": str(tmp_path / "s.jsonl"),
            "header": {**PI_HEADER, "cwd": str(project)}, "entries": entries,
            "leafId": "e2", "hasUI": False, "provider": "openai"})
        status = bridge.call("command", {"line": "status"})["data"]["session"]
        assert (status["entries"], status["leafId"]) == (2, "e2")
        pinned = bridge.call("command", {"line": "pin -- Use port 5433 for staging."})
        assert pinned["exitCode"] == 0, pinned
        bridge.send("initialize", {"cwd": str(project), "entries": "e1",
                                   "sessionFile": str(tmp_path / "s.jsonl"),
                                   "header": {**PI_HEADER, "cwd": str(project)}})
        assert bridge.read()["error"]["code"] == "invalid_argument"
    finally:
        bridge.close()


def test_pi_install_names_the_home_it_was_run_for(tmp_path: Path) -> None:
    """``waymarks --home H pi install`` reported on H ("learning is on") while the loader
    named no home, so Pi's bridge used the default one (another home's pins, learning
    off). The loader names H for Pi now, unless Pi's environment names a home itself;
    the default home is not written in."""
    import subprocess
    import sys

    from waymarks.cli.home import user_data_dir
    from waymarks.hosts import pi_install

    home, agent = tmp_path / "elsewhere-home", tmp_path / "agent"
    env = {k: v for k, v in os.environ.items() if k != "WAYMARKS_HOME"}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", "pi", "install", "--create", "--agent-dir", str(agent)],
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loader = pi_install.loader_path(agent).read_text()
    assert f"process.env.WAYMARKS_HOME ||= {json.dumps(str(home))};" in loader
    from waymarks.cli.launchers import _unless_default

    assert _unless_default(Path(user_data_dir())) is None
    assert "WAYMARKS_HOME" not in pi_install.loader_text(home=None)


def test_a_trusted_folder_made_a_link_trusts_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pi compares its trust store's keys as written; they were resolved through links
    here, so a trusted folder a repository turned into a link to / trusted every
    project. Two spellings of one folder that disagree count as no."""
    from waymarks.hosts.pi_trust import bridge_trust

    project, agent = tmp_path / "src" / "app", tmp_path / "agent"
    project.mkdir(parents=True)
    (tmp_path / "mono").mkdir()
    (tmp_path / "mono" / "app").symlink_to("/")
    _store(agent, {str(tmp_path / "mono" / "app"): True})
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    assert bridge_trust(True, project) is None
    _store(agent, {str(project): True, str(project) + "/": False})
    assert bridge_trust(True, project) is None
