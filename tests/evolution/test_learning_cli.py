"""The learning switch and the learned claims through the real CLI entry point: on/off in
the home configuration only, project may only tighten, invalid files fail closed without
echoing content; recall and the plan show learned claims in their own provisional block,
after pins and confirmed memory; exact-ID forget removes one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from waymarks.cli.main import main
from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution
from waymarks.service.learning import learning_enabled, learning_state, set_learning

AT = "2030-01-01T00:00:00.000Z"


@pytest.fixture
def cli(home: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> Callable[..., dict]:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)

    def run(*args: str, expect: int = 0) -> dict:
        code = main(["--json", *args])
        out = capsys.readouterr().out
        assert code == expect, out
        lines = out.strip().splitlines()
        assert len(lines) == 1
        return dict(json.loads(lines[0]))

    return run


def test_learning_is_off_by_default_and_on_off_edit_only_the_home_file(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    assert cli("learn", "status")["learning"] is False
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[privacy]\ndefaultProvider = "remote"\n\n[evolution]\n'
                                      'model = "claude-haiku"  # the queue\'s key\n')
    assert cli("learn", "on")["learning"] is True
    config = tomllib.loads((home / "config.toml").read_text())
    assert config["evolution"] == {"learn": True, "model": "claude-haiku"}
    assert config["privacy"] == {"defaultProvider": "remote"}
    assert cli("learn", "status")["learning"] is True
    assert cli("learn", "off")["learning"] is False
    assert tomllib.loads((home / "config.toml").read_text())["evolution"]["learn"] is False
    assert not (project / ".waymarks").exists()


def test_a_project_may_turn_learning_off_but_never_on(home: Path, project: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "config.toml").write_text("[evolution]\nlearn = true\n")
    state = learning_state(home, str(project))
    assert not state.enabled and state.ignored
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    assert learning_enabled(home, str(project))
    (project / ".waymarks" / "config.toml").write_text("[evolution]\nlearn = false\n")
    assert not learning_enabled(home, str(project))
    assert learning_enabled(home, str(home))  # elsewhere it is still on


def test_learn_on_and_off_keep_the_comment_on_the_line_they_change(
        cli: Callable[..., dict], home: Path) -> None:
    """The person's reason beside the switch (``learn = false  # until the audit``) was
    dropped with the value; the indentation and the rest of the file stay as they were."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text("# mine\n[evolution]\n  learn = false   # until the audit, ask Sam\n"
                      "model = \"x\"\n")
    assert cli("learn", "on")["learning"] is True
    assert config.read_text() == ("# mine\n[evolution]\n  learn = true   # until the audit, "
                                  "ask Sam\nmodel = \"x\"\n")
    assert cli("learn", "off")["learning"] is False
    assert config.read_text() == ("# mine\n[evolution]\n  learn = false   # until the audit, "
                                  "ask Sam\nmodel = \"x\"\n")


def test_an_invalid_file_fails_closed_without_echoing_it(
        cli: Callable[..., dict], home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    secret = "sk-live-SHOULD-NOT-APPEAR"
    (home / "config.toml").write_text(f'[evolution]\nlearn = "{secret}"\n')
    out = cli("learn", "status", expect=1)
    assert secret not in json.dumps(out) and "true or false" in json.dumps(out)
    assert not learning_enabled(home)
    (home / "config.toml").write_text(f'[evolution\nkey = "{secret}"\n')
    out = cli("learn", "on", expect=1)
    assert secret not in json.dumps(out)
    assert (home / "config.toml").read_text().startswith("[evolution\n")  # unchanged


def _learn(home: Path, origin: str, text: str, claim: dict[str, object]) -> str:
    set_learning(home, True)  # (where learning is off, no plan injects a learned claim)
    with Evolution(home) as evo:
        src = evo.capture(origin, "statement", text, session="s", key=text)
        assert src is not None
        outcome = evo.apply(src.source_id, ModelReply(json.dumps({"claims": [claim]}), "f",
                                                      "m"), AT)
        assert outcome.code == "applied"
        return next(c.id for c in evo.claims(["provisional"])
                if c.content == claim["content"])


def test_recall_plan_and_forget_of_a_learned_claim(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path) -> None:
    cli("pin", "--", "Always run the full test suite before pushing")
    cli("memory", "add", "--", "The staging server is staging.example.org")
    learned = _learn(home, str(tmp_path / "elsewhere"), "Remember: we deploy with Kamal",
                     {"kind": "decision", "content": "Deployments use Kamal, not Capistrano",
                      "searchTerms": ["deploy tool", "kamal"]})
    out = cli("recall", "which deploy tool do we use?")
    [row] = out["learned"]
    assert row["id"] == learned and row["status"] == "provisional"
    assert row["kind"] == "decision" and row["evidence"] == "user_statement/model"
    assert row["origin"] == str(tmp_path / "elsewhere") and row["source"].startswith("s")
    plan = cli("plan", "--", "which deploy tool do we use for staging?")
    kinds = [m["kind"] for m in plan["messages"]]
    assert "learned" in kinds and kinds.index("learned") > kinds.index("pins")
    if "memory" in kinds:
        assert kinds.index("learned") > kinds.index("memory")
    block = next(m["content"] for m in plan["messages"] if m["kind"] == "learned")
    assert "PROVISIONAL" in block and "Deployments use Kamal" in block
    listed = cli("learn", "list")["claims"]
    assert [c["id"] for c in listed] == [learned]
    assert cli("learn", "forget", learned)["outcome"] == "forgotten"
    assert "learned" not in cli("recall", "which deploy tool do we use?")
    assert cli("learn", "forget", learned, expect=2)["code"] == "not_found"
    assert cli("learn", "list")["claims"] == []


def test_learn_forget_takes_a_claim_id_typed_in_capitals(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """``learn forget 6642A70A…`` was refused not_found while ``evolution forget`` took the
    same ID: a learned claim's hex ID may be typed in either case."""
    learned = _learn(home, str(tmp_path / "elsewhere"), "Remember: we deploy with Kamal",
                     {"kind": "decision", "content": "Deployments use Kamal, not Capistrano",
                      "searchTerms": ["deploy tool", "kamal"]})
    out = cli("learn", "forget", f" {learned.upper()} ")
    assert out["outcome"] == "forgotten" and out["id"] == learned
    assert cli("learn", "list")["claims"] == []


def test_learn_status_through_the_installed_script(home: Path, project: Path) -> None:
    env = {**os.environ, "WAYMARKS_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "learn", "status"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "learning: off" in done.stdout and "waymarks learn on" in done.stdout


def test_installers_offer_learning_and_never_turn_it_on(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path) -> None:
    out = cli("claude-code", "install")
    assert out["learning"] is False
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert {"Stop", "PreCompact", "UserPromptSubmit"} <= set(settings["hooks"])
    [group] = settings["hooks"]["Stop"]
    assert group["hooks"][0]["command"].endswith("hook claude-code Stop")
    pi = cli("pi", "install", "--create", "--agent-dir", str(tmp_path / "pi"))
    assert pi["learning"] is False
    assert not (home / "config.toml").exists()  # offered, not turned on
    assert learning_state(home).enabled is False
    cli("claude-code", "uninstall")


def test_install_prints_how_to_turn_learning_on(home: Path, project: Path) -> None:
    env = {**os.environ, "WAYMARKS_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "claude-code",
                           "install"], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    # (a home other than the default is named: the hooks use it, a bare command would not)
    assert f"waymarks --home {home} learn on" in done.stdout and "+hooks.Stop" in done.stdout


def test_a_recalled_learned_claim_says_its_age_and_the_persons_verdict(
        cli: Callable[..., dict], home: Path, project: Path) -> None:
    """A review (seed 004, EVOLUTION item 26): a recall's digest rows held neither the
    aging warning nor the accuracy verdict, and a dormant claim reaches a model only
    through them. Confirmed memory neither ages nor takes verdicts: its rows hold neither."""
    cli("memory", "add", "--", "The staging database port is 5433")
    from tests.evolution.test_aging import learn

    learned = learn(home, str(project), {"kind": "fact",
                                         "content": "The staging database runs Postgres 16",
                                         "searchTerms": ["staging database"]},
                    "2020-01-01T00:00:00.000Z")  # years ago: dormant, recallable on request
    cli("feedback", learned, "accurate")
    out = cli("recall", "what runs the staging database and on which port?")
    [row] = out["learned"]
    assert row["id"] == learned and row["accuracy"] == "accurate"
    assert str(row["aging"]).startswith("freshness 0.50: ")  # confirmed long ago (AT)
    assert out["rows"] and all("aging" not in r and "accuracy" not in r for r in out["rows"])


def test_the_same_sentence_learned_as_three_kinds_takes_one_row(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """A review (seed 004, EVOLUTION item 24): identical content of one origin filled
    the digest's three rows (a legacy import held it as a fact, a preference and a
    decision), leaving no row for the other claim asked about."""
    from tests.evolution.test_legacy_import import _memory, _write

    port = "Use port 8080 for the dev server."
    legacy = tmp_path / "legacy"
    _write(legacy, [_memory("m1", "fact", port), _memory("m2", "preference", port),
                    _memory("m3", "decision", port),
                    _memory("m4", "fact", "The dev server runs on node 20.")], [])
    cli("evolution", "import", str(legacy))
    rows = cli("recall", "which port and node version does the dev server use?")["learned"]
    assert sorted(r["excerpt"] for r in rows) == sorted([port, "The dev server runs on node 20."])


@pytest.mark.parametrize("linked", ["file", "directory"])
@pytest.mark.parametrize("target", ["[[[not toml", "[evolution]\nlearn = false\n"])
def test_a_project_configuration_linked_out_of_the_project_is_not_read(
        cli: Callable[..., dict], home: Path, project: Path, tmp_path: Path,
        target: str, linked: str) -> None:
    """`config show` says a project's ``.waymarks/config.toml`` that links out of the
    project is not read, but the learning switch read it: a link to ``/etc/passwd`` made
    `learn status` and `evolve` fail (exit 1, "not a readable TOML file"), and a link to a
    file saying ``learn = false`` turned learning off. It is ignored, and said so."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "config.toml").write_text(target)
    if linked == "file":
        (project / ".waymarks").mkdir()
        (project / ".waymarks" / "config.toml").symlink_to(elsewhere / "config.toml")
    else:  # the .waymarks directory itself
        (project / ".waymarks").symlink_to(elsewhere)
    out = cli("learn", "status")
    assert out["learning"] is True and not out["projectOff"], out
    assert any("a link out of the project: not read" in note for note in out["ignored"])
    assert learning_enabled(home, str(project))


def test_the_same_sentence_with_its_case_or_full_stop_changed_takes_one_row(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """"The CI runs on GitHub Actions" and "the CI runs on GitHub Actions." learned in one
    origin (a model re-derives a sentence so as often as verbatim) went into the plan
    side by side and took two of a recall's rows: only case and spacing were compared,
    not the closing punctuation Waymarks' duplicates ignore everywhere else."""
    from tests.evolution.test_aging import days_ago, learn

    origin = str(tmp_path / "a")
    said = [learn(home, origin, {"kind": kind, "content": text, "searchTerms": ["ci"]},
                  days_ago(days)) for kind, text, days in (
        ("fact", "The CI runs on GitHub Actions", 3),
        ("decision", "the CI runs on GitHub Actions.", 2))]
    ask = "which CI do we run on?"
    rows = cli("recall", ask)["learned"]
    assert len(rows) == 1 and rows[0]["id"] in said
    plan = cli("plan", "--", ask)
    assert [e["id"] for e in plan["manifest"]["entries"]
            if e["kind"] == "learned" and e["decision"] == "included"] == [rows[0]["id"]]
