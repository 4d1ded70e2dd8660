"""evolution status: counts, why jobs wait, at most five failures with next due times,
routes with cooldowns and key presence (never the key), budgets; read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.opaque import content
from waymarks.core.model_port import SourceRef
from waymarks.core.privacy import ProviderPolicy
from waymarks.service.evolution_config import EvolutionConfig, RouteConfig
from waymarks.service.evolution_status import evolution_status
from waymarks.store.jobs import JobStore

NOW = 1_800_000_000_000
ROUTE = RouteConfig("openai", "openai", "m1", "http://127.0.0.1:9/v1", "EVO_STATUS_KEY")


def test_status_of_a_busy_queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVO_STATUS_KEY", "sk-status-secret-0123456789")
    home = tmp_path / "home"
    store = JobStore.open(home)
    store.add_jobs([SourceRef(f"s{n}", "/a", "normal", f"t{n}") for n in range(9)], NOW)
    for n in range(7):
        lease = store.lease(f"s{n}", "A", NOW, NOW + 150_000)
        assert lease is not None
        store.fail(lease, "overloaded", NOW, output=False, pause=n == 6,
                   retry_at=lambda f, n=n: NOW + 60_000 * (n + 1))
    store.mark_waiting("s7", "privacy", NOW)
    store.cool_down("openai", "m1", NOW + 900_000, "timeout", NOW)
    store.close()
    config = EvolutionConfig(primary=ROUTE, calls_per_hour=7)
    data = evolution_status(home, config, ProviderPolicy.from_config({}), NOW,
                            available=lambda r: True, learning=True)
    assert data["blocked"] is None
    assert data["counts"] == {"pending": 2, "retrying": 6, "leased": 0, "paused": 1,
                              "settled": 0, "given_up": 0}
    assert [w["reason"] for w in data["waiting"]] == ["privacy"]
    assert len(data["failed"]) == 5
    first = data["failed"][0]
    assert (first["sourceId"], first["lastError"], first["nextDueAt"]) == (
        "s0", "overloaded", "2027-01-15T08:01:00.000Z")
    route = data["routes"][0]
    assert route["keySet"] is True and route["keyEnv"] == "EVO_STATUS_KEY"
    assert route["cooldownUntil"] == "2027-01-15T08:15:00.000Z"
    assert route["receives"] == ["normal"]
    assert data["cooldowns"][0]["reason"] == "timeout"
    assert data["budgets"]["callsPerHour"] == 7 and data["budgets"]["callsLastHour"] == 0
    assert "sk-status-secret" not in repr(data)


def test_a_lease_that_ended_is_not_in_flight(tmp_path: Path) -> None:
    """A killed `evolve` leaves its job leased: status said "1 in flight" long after the
    lease ended (the next check records it as an interrupted failure)."""
    home = tmp_path / "home"
    store = JobStore.open(home)
    store.add_jobs([SourceRef("s1", "/a", "normal", "t1"), SourceRef("s2", "/a", "normal",
                                                                     "t2")], NOW)
    assert store.lease("s1", "dead", NOW, NOW + 150_000) is not None
    assert store.lease("s2", "alive", NOW, NOW + 900_000) is not None
    store.close()
    data = evolution_status(home, EvolutionConfig(primary=ROUTE), ProviderPolicy.from_config(
        {}), NOW + 200_000, available=lambda r: True, learning=True)
    assert (data["counts"]["leased"], data["counts"]["retrying"]) == (1, 1)
    # counted as retrying, it is listed as one too: "1 retrying" came with no "Failed:"
    # line saying which source, nor why (its process died mid-attempt), nor when it is due
    assert [(j["sourceId"], j["state"], j["lastError"], j["nextDueAt"])
            for j in data["failed"]] == [("s1", "retrying", "interrupted",
                                          "2027-01-15T08:02:30.000Z")]


@pytest.mark.parametrize("pasted", ["hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH",
                                    "x7Kp2Qm9Zr4Tv8Wb" + "3Nc6Yd1Hf5Jg0Lsa"])
def test_status_never_shows_a_key_in_the_place_of_its_variable_name(
        tmp_path: Path, pasted: str) -> None:
    """A second guard behind the loader's refusal: the name of a variable that is not set
    (a pasted key is not one: a Mistral key has no prefix a credential rule knows) is not
    shown, in the JSON or the text ("key from $x7Kp... (NOT set)")."""
    from waymarks.commands.evolution import _status_text

    route = RouteConfig("hf", "openai", "m1", "http://127.0.0.1:9/v1", pasted)
    data = evolution_status(tmp_path / "home", EvolutionConfig(primary=route),
                            ProviderPolicy.from_config({}), NOW, available=lambda r: True,
                            learning=True)
    row = data["routes"][0]
    assert (row["keyEnv"], row["keyNamed"], row["keySet"]) == (None, True, False)
    text = _status_text(data)
    assert "(the variable named by keyEnv is not set)" in text
    assert pasted[4:] not in repr(data) and pasted[4:] not in text


def test_status_names_an_unset_variable_written_as_variables_are(tmp_path: Path) -> None:
    """The person must know which variable to set: OPENAI_API_KEY is named, set or not."""
    from waymarks.commands.evolution import _status_text

    route = RouteConfig("openai", "openai", "m1", "http://127.0.0.1:9/v1", "WM_UNSET_KEY_9")
    data = evolution_status(tmp_path / "home", EvolutionConfig(primary=route),
                            ProviderPolicy.from_config({}), NOW, available=lambda r: True,
                            learning=True)
    assert data["routes"][0]["keyEnv"] == "WM_UNSET_KEY_9"
    assert "key from $WM_UNSET_KEY_9 (NOT set)" in _status_text(data)


def test_status_names_a_key_variable_that_is_set(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from waymarks.commands.evolution import _status_text

    monkeypatch.setenv("EVO_STATUS_KEY", "sk-status-secret")
    data = evolution_status(tmp_path / "home", EvolutionConfig(primary=ROUTE),
                            ProviderPolicy.from_config({}), NOW, available=lambda r: True,
                            learning=True)
    assert "key from $EVO_STATUS_KEY (set)" in _status_text(data)
    assert "sk-status-secret" not in _status_text(data)


def test_status_creates_nothing_and_names_the_blocker(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = evolution_status(home, EvolutionConfig(), ProviderPolicy.from_config({}), NOW,
                            available=lambda r: True, learning=True)
    assert "no model route" in data["blocked"] and data["routes"] == []
    assert not home.exists()
    cc = RouteConfig("anthropic", "claude-code", "default")
    data = evolution_status(home, EvolutionConfig(primary=cc), ProviderPolicy.from_config({}),
                            NOW, available=lambda r: False, learning=True)
    assert data["routes"][0]["available"] is False and "no model route" in data["blocked"]


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.slow
def test_status_never_shows_a_credential_embedded_in_the_endpoint(
        tmp_path: Path, as_json: bool) -> None:
    """`evolution status --json` printed `https://bob:S3cret…@host/v1?key=AIza…` as
    configured. Both outputs show the endpoint through one function: no userinfo, a
    credential-named query value redacted, the rest of the address kept."""
    import json
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    key = "AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tUvW"
    (home / "config.toml").write_text(
        '[evolution]\nprovider = "gw"\napi = "openai"\nmodel = "m"\nendpoint = '
        f'"https://bob:S3cretPassw0rd@gw.example.com:8443/v1?key={key}&region=eu#x"\n',
        encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           *(["--json"] if as_json else []), "evolution", "status"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = content(done.stdout + done.stderr, str(tmp_path))  # (CI's folder: "….bobQ2x")
    for secret in ("S3cretPassw0rd", "bob", key, "AIza"):
        assert secret not in said
    shown = "https://gw.example.com:8443/v1?key=[REDACTED]&region=eu"
    if as_json:
        assert json.loads(done.stdout)["routes"][0]["endpoint"] == shown
    else:
        assert f"Route: gw/m via openai at {shown}" in done.stdout


def test_a_source_that_waited_for_learning_is_not_said_to_wait_once_it_is_on(
        tmp_path: Path) -> None:
    """After `learn off` stopped an attempt and `learn on` turned it back, `evolution
    status` still said the source waited because "learning is off for its directory
    (`waymarks learn on` ...)": the reason its last check recorded, read as the present."""
    from waymarks.service.learning import set_learning

    home = tmp_path / "home"
    store = JobStore.open(home)
    store.add_jobs([SourceRef("s1", str(tmp_path / "a"), "normal", "t1")], NOW)
    store.mark_waiting("s1", "learning_off", NOW)
    store.close()
    set_learning(home, False)
    off = evolution_status(home, EvolutionConfig(primary=ROUTE), ProviderPolicy.from_config(
        {}), NOW, available=lambda r: True, learning=False)
    assert "learning is off" in off["waiting"][0]["why"]
    set_learning(home, True)
    on = evolution_status(home, EvolutionConfig(primary=ROUTE), ProviderPolicy.from_config(
        {}), NOW, available=lambda r: True, learning=True)
    [waiting] = on["waiting"]
    assert waiting["reason"] == "learning_off" and "learning is off" not in waiting["why"]
    assert "on now" in waiting["why"]


def test_a_source_that_waited_for_the_hourly_ceiling_is_not_said_to_wait_once_there_is_room(
        tmp_path: Path) -> None:
    """A source the hourly ceiling held back kept "the shared hourly call ceiling
    (callsPerHour) is spent" beside "Calls in the last hour: 21 of 500" once the ceiling
    was raised (or the hour's calls aged out), with no process left to check it again:
    the reason its last check recorded, read as the present."""
    home = tmp_path / "home"
    store = JobStore.open(home)
    store.add_jobs([SourceRef("s0", "/a", "normal", "t0"),
                    SourceRef("s1", str(tmp_path / "a"), "normal", "t1")], NOW)
    lease = store.lease("s0", "A", NOW, NOW + 150_000)  # the hour's one call
    assert lease is not None
    assert isinstance(store.reserve_call(lease, "openai", "m1", NOW, hourly_cap=1,
                                         source_calls=4, source_models=2, daily_usd=None), int)
    store.mark_waiting("s1", "hourly_cap", NOW)
    store.close()
    for ceiling, spent in ((1, True), (500, False)):
        status = evolution_status(
            home, EvolutionConfig(primary=ROUTE, calls_per_hour=ceiling),
            ProviderPolicy.from_config({}), NOW, available=lambda r: True, learning=True)
        [waiting] = status["waiting"]
        assert waiting["reason"] == "hourly_cap"
        assert ("is spent" in waiting["why"]) is spent, waiting["why"]
        assert ("room now" in waiting["why"]) is not spent, waiting["why"]
