"""One check for every provider ID, wherever it comes from (``core/provider_ids.py``).

Before: a configuration's ``localProviders``, ``defaultProvider`` and ``remoteProviders``
took any string (``privacy`` printed ``oll\\u001bama`` as a local provider, and a
``defaultProvider`` of ``re\\u200bmote`` was the default); ``--provider`` and the tools
refused control characters only, so a bidi override (``olla\\u202ema``) was planned for;
and a Pi model whose provider held a control character made every plan of the bridge
fail until the model changed. Now the configuration's is ``bad_config`` naming the file
and the line, the command line's ``invalid_argument``, and Pi's is taken as an unknown
model's (a remote one: the strictest), said in the plan's answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hosts.test_bridge import Host, converse
from tests.inprocess import waymarks

BAD = [("oll\x1bama", "control character (U+001B)"),
       ("olla\u202ema", "(bidirectional or zero-width) formatting character (U+202E)"),
       ("ollama\u200b", "(bidirectional or zero-width) formatting character (U+200B)"),
       ("x\u2028y", "line separator (U+2028)")]


def _run(home: Path, project: Path, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    done = waymarks("--json", *args, env={"WAYMARKS_HOME": str(home),
                                          "HOME": str(home.parent / "user")}, cwd=project)
    return done.returncode, json.loads(done.stdout)


def _toml(value: str) -> str:
    return json.dumps(value)  # a TOML basic string: JSON's escapes are TOML's


@pytest.mark.parametrize(("provider", "said"), BAD)
@pytest.mark.parametrize("where", ["local", "default", "remote"])
def test_a_configured_provider_id_that_hides_characters_is_refused_naming_its_line(
        home: Path, project: Path, provider: str, said: str, where: str) -> None:
    home.mkdir()
    line = {"local": f"localProviders = [\n  \"ollama\",\n  {_toml(provider)},\n]",
            "default": f"defaultProvider = {_toml(provider)}",
            "remote": f"[privacy.remoteProviders]\n{_toml(provider)} = \"internal\""}[where]
    text = f"# my settings\n[privacy]\n{line}\n"
    (home / "config.toml").write_text(text, encoding="utf-8")
    number = 1 + next(n for n, row in enumerate(text.splitlines()) if _toml(provider) in row)
    for args in (("privacy",), ("config", "show"), ("plan", "--prompt", "hi")):
        code, answer = _run(home, project, *args)
        assert (code, answer["code"]) == (1, "bad_config"), answer
        assert f"config.toml line {number}: " in answer["message"], answer
        assert said in answer["message"] and provider not in answer["message"], answer
    assert (home / "config.toml").read_text(encoding="utf-8") == text  # nothing changed


def test_a_trusted_projects_provider_id_is_refused_naming_the_projects_file(
        home: Path, project: Path) -> None:
    (project / ".waymarks").mkdir()
    (project / ".waymarks" / "config.toml").write_text(
        '[privacy]\ndefaultProvider = "ollama\\u200b"\n', encoding="utf-8")
    assert _run(home, project, "trust", ".")[0] == 0
    code, answer = _run(home, project, "privacy")
    assert (code, answer["code"]) == (1, "bad_config"), answer
    assert answer["message"].startswith(f"{project}/.waymarks/config.toml line 2: "), answer


@pytest.mark.parametrize(("provider", "said"), BAD)
def test_a_provider_id_on_the_command_line_is_checked_alike(
        home: Path, project: Path, provider: str, said: str) -> None:
    for args in (("plan", "--provider", provider, "--prompt", "hi"),
                 ("recall", "--provider", provider, "port")):
        code, answer = _run(home, project, *args)
        assert (code, answer["code"]) == (2, "invalid_argument"), answer
        assert said in answer["message"], answer
    code, kept = _run(home, project, "manifest")
    assert "provider" not in kept, kept  # no plan was made


def test_pi_naming_a_provider_id_that_hides_characters_plans_as_for_an_unknown_model(
        tmp_path: Path) -> None:
    """``ollama\\u200b`` is not the local ``ollama``: a local-only pin stays out, the plan
    is made (a control character refused every plan), and the answer says why."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text(
        '[privacy]\nlocalProviders = ["ollama"]\n')
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize", "params": {"provider": "oll\x1bama"}},
        {"id": 2, "method": "command", "params": {"text": "pin --classification local-only "
                                                          "-- Home is 12 Elm Street"}},
        {"id": 3, "method": "command", "params": {"text": "pin -- Run the linters"}},
        {"id": 4, "method": "plan", "params": {"prompt": "lint", "provider": "oll\x1bama"}},
        {"id": 5, "method": "plan", "params": {"prompt": "lint", "provider": "ollama\u200b",
                                               "sync": {"provider": "ollama\u200b"}}},
        {"id": 6, "method": "plan", "params": {"prompt": "lint", "provider": "ollama",
                                               "sync": {"provider": "ollama"}}},
        {"id": 7, "method": "shutdown"}], Host())
    results = {m["id"]: m.get("result", m.get("error")) for m in out}
    for n, hidden in ((4, "U+001B"), (5, "U+200B")):
        planned = json.dumps(results[n]["messages"])
        assert "Run the linters" in planned and "Elm Street" not in planned, results[n]
        assert hidden in results[n]["providerRefused"], results[n]
        assert "models.json" in results[n]["providerRefused"]
    assert "Elm Street" in json.dumps(results[6]["messages"])  # the local one: everything
    assert results[6]["providerRefused"] is None


@pytest.mark.parametrize("backup", [False, True])
def test_a_learning_routes_provider_id_is_checked_alike(home: Path, project: Path,
                                                        backup: bool) -> None:
    """``[evolution]``'s ``provider`` (and a backup's) names a provider as ``[privacy]``
    does: ``open\\u200bai`` was taken, a route whose provider no rule could ever match."""
    home.mkdir()
    route = 'api = "openai"\nendpoint = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
    bad, good = _toml("open\u200bai"), _toml("openai")
    text = (f"[evolution]\nprovider = {good if backup else bad}\n{route}"
            + (f"[[evolution.backups]]\nprovider = {bad}\n{route}" if backup else ""))
    (home / "config.toml").write_text(text, encoding="utf-8")
    code, answer = _run(home, project, "evolution", "status")
    assert (code, answer["code"]) == (1, "bad_config"), answer
    number = 7 if backup else 2
    assert f"provider (line {number}): the provider ID 'open\\u200bai' holds an invisible " \
        "(bidirectional or zero-width) formatting character (U+200B)" in answer["message"]
