"""[evolution] parsing: home keys, project tightening only, failing closed without echo."""

from __future__ import annotations

from pathlib import Path

import pytest

from waymarks.service.evolution_config import EvolutionConfigError, load_evolution_config

HOME = """
[evolution]
learn = true
provider = "openai"
api = "openai"
endpoint = "http://127.0.0.1:9/v1"
model = "m1"
keyEnv = "MY_KEY"
fallbackModels = ["m2"]
callsPerHour = 10
[[evolution.backups]]
provider = "anthropic"
api = "anthropic"
endpoint = "http://127.0.0.1:9"
model = "claude-x"
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_defaults_without_a_file_have_no_route(tmp_path: Path) -> None:
    config = load_evolution_config(tmp_path / "home")
    assert config.routes() == [] and config.calls_per_hour == 20
    assert (config.timeout_ms, config.source_time_ms) == (120_000, 300_000)


def test_home_routes_in_order_and_learn_is_left_to_the_other_half(tmp_path: Path) -> None:
    _write(tmp_path / "home" / "config.toml", HOME)
    config = load_evolution_config(tmp_path / "home")
    assert [(r.provider, r.model) for r in config.routes()] == [
        ("openai", "m1"), ("openai", "m2"), ("anthropic", "claude-x")]
    assert config.primary is not None and config.primary.key_env == "MY_KEY"
    assert config.calls_per_hour == 10


def test_no_endpoint_means_claude_code_headless(tmp_path: Path) -> None:
    _write(tmp_path / "home" / "config.toml", '[evolution]\napi = "claude-code"\n')
    route = load_evolution_config(tmp_path / "home").routes()[0]
    assert (route.api, route.provider, route.model) == ("claude-code", "anthropic", "default")


def test_project_may_only_tighten(tmp_path: Path) -> None:
    _write(tmp_path / "home" / "config.toml", HOME)
    project = tmp_path / "project"
    _write(project / ".waymarks" / "config.toml", """
[evolution]
learn = true
callsPerHour = 50
sourceCalls = 2
crossProviderFallback = false
endpoint = "https://evil.example/v1"
keyEnv = "STOLEN"
dailyEstimatedUsd = 0.5
""")
    config = load_evolution_config(tmp_path / "home", str(project), trusted=True)
    assert config.calls_per_hour == 10 and config.source_calls == 2
    assert config.daily_usd == 0.5 and not config.cross_provider_fallback
    assert config.primary is not None and config.primary.endpoint == "http://127.0.0.1:9/v1"
    assert config.primary.key_env == "MY_KEY"
    assert [r.provider for r in config.routes()] == ["openai", "openai"]
    assert any("endpoint" in i for i in config.ignored)
    assert any("callsPerHour above" in i for i in config.ignored)


def test_project_cannot_add_a_provider_and_untrusted_is_ignored(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _write(project / ".waymarks" / "config.toml",
           '[evolution]\nprovider = "openai"\nendpoint = "http://x/v1"\nmodel = "m"\n')
    trusted = load_evolution_config(tmp_path / "home", str(project), trusted=True)
    assert trusted.routes() == [] and trusted.ignored
    _write(project / ".waymarks" / "config.toml", "[evolution]\ncallsPerHour = 1\n")
    untrusted = load_evolution_config(tmp_path / "home", str(project), trusted=False)
    assert untrusted.calls_per_hour == 20 and "not trusted" in untrusted.ignored[0]


@pytest.mark.parametrize("body", [
    '[evolution]\nkeyEnv = "sk-live-abcdef0123456789 secret"\nendpoint = "http://x/v1"\n'
    'model = "m"\nprovider = "p"\n',
    '[evolution]\ncallsPerHour = "sk-live-abcdef0123456789"\n',
    '[evolution]\nendpoint = "sk-live-abcdef0123456789"\n',
    'evolution = "sk-live-abcdef0123456789"\n',
    '[evolution\nsk-live-abcdef0123456789 = 1\n',
    '[evolution]\nsk-live-abcdef0123456789 = 1\n',
])
def test_invalid_files_fail_closed_without_echoing_content(tmp_path: Path, body: str) -> None:
    _write(tmp_path / "home" / "config.toml", body)
    with pytest.raises(EvolutionConfigError) as caught:
        load_evolution_config(tmp_path / "home")
    message = str(caught.value)
    assert "config.toml" in message
    assert "abcdef0123456789" not in message


@pytest.mark.parametrize("endpoint", [
    "http://[::1/v1", "http://h:99999/v1", "http://h:abc/v1", "http://:8080/v1",
    "https://user@/v1", "http://[zz]/v1", "http://h\\u007f/v1",
])
def test_an_endpoint_the_client_cannot_call_is_refused_at_load(tmp_path: Path,
                                                              endpoint: str) -> None:
    """``http://[::1/v1`` passed the pattern, and every call failed as ``unknown`` (its
    sources piling up failures until they paused) where status said "not a URL"."""
    _write(tmp_path / "home" / "config.toml", '[evolution]\nprovider = "ollama"\n'
           f'endpoint = "{endpoint}"\nmodel = "m"\n')
    with pytest.raises(EvolutionConfigError, match="endpoint must be an http://"):
        load_evolution_config(tmp_path / "home")
    _write(tmp_path / "home" / "config.toml", '[evolution]\nprovider = "ollama"\n'
           'endpoint = "http://[::1]:11434/v1?api-version=1"\nmodel = "m"\n')
    assert load_evolution_config(tmp_path / "home").routes()[0].endpoint == (
        "http://[::1]:11434/v1?api-version=1")


def test_a_backup_of_the_primarys_provider_is_listed_as_ignored(tmp_path: Path) -> None:
    """It was dropped from the routes without a word."""
    _write(tmp_path / "home" / "config.toml", '[evolution]\nprovider = "ollama"\n'
           'endpoint = "http://x/v1"\nmodel = "a"\n[[evolution.backups]]\nprovider = "other"\n'
           'endpoint = "http://y/v1"\nmodel = "b"\n[[evolution.backups]]\n'
           'provider = "ollama"\nendpoint = "http://z/v1"\nmodel = "c"\n')
    project = tmp_path / "project"
    _write(project / ".waymarks" / "config.toml", "[evolution]\ncallsPerHour = 1\n")
    for config in (load_evolution_config(tmp_path / "home"),
                   load_evolution_config(tmp_path / "home", str(project), trusted=True),
                   load_evolution_config(tmp_path / "home", str(project), trusted=False)):
        assert [(r.provider, r.model) for r in config.routes()] == [("ollama", "a"),
                                                                     ("other", "b")]
        assert "backups[1] (the primary's provider" in config.ignored[0]


HF_KEY = "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH"
GROQ_KEY = "gs" + "k_8xY2kQ9mN4pL7vR3tW6zB1cD5fG0hJ2kM8nP4qS7uV9wX3yZ6aBcd"


#: Mistral's keys are 32 letters and digits: no prefix, so no credential rule knows them
MISTRAL_KEY = "x7Kp2Qm9Zr4Tv8Wb" + "3Nc6Yd1Hf5Jg0Lsa"


@pytest.mark.parametrize("pasted", [HF_KEY, GROQ_KEY, MISTRAL_KEY, MISTRAL_KEY.lower()])
def test_a_key_pasted_as_the_key_env_name_is_refused_unechoed(tmp_path: Path,
                                                              pasted: str) -> None:
    """A Hugging Face, Groq or Mistral key has the characters of a variable name: it was
    taken as one and shown by `evolution status` ("key from $hf_... (NOT set)")."""
    _write(tmp_path / "home" / "config.toml", '[evolution]\nprovider = "p"\n'
           f'endpoint = "http://x/v1"\nmodel = "m"\nkeyEnv = "{pasted}"\n')
    with pytest.raises(EvolutionConfigError, match="keyEnv must be the NAME") as caught:
        load_evolution_config(tmp_path / "home")
    assert pasted[4:] not in str(caught.value)


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "MistralKey", "my_key",
                                  "MISTRAL_API_KEY_2024", "AZURE_OPENAI_KEY_EASTUS2X"])
def test_a_conventional_key_env_name_is_kept(tmp_path: Path, name: str) -> None:
    _write(tmp_path / "home" / "config.toml", '[evolution]\nprovider = "p"\n'
           f'endpoint = "http://x/v1"\nmodel = "m"\nkeyEnv = "{name}"\n')
    primary = load_evolution_config(tmp_path / "home").primary
    assert primary is not None and primary.key_env == name


def test_oversized_file_is_refused_unread(tmp_path: Path) -> None:
    _write(tmp_path / "home" / "config.toml", "# x\n" * 70_000)
    with pytest.raises(EvolutionConfigError, match="larger than"):
        load_evolution_config(tmp_path / "home")


def test_a_table_naming_no_route_means_claude_code(tmp_path: Path) -> None:
    _write(tmp_path / "home" / "config.toml", "[evolution]\nlearn = true\ncallsPerHour = 5\n")
    config = load_evolution_config(tmp_path / "home")
    assert [(r.api, r.provider, r.model) for r in config.routes()] == [
        ("claude-code", "anthropic", "default")]
    assert config.calls_per_hour == 5


def test_a_route_declares_its_models_limits(tmp_path: Path) -> None:
    """Item 53 for configured routes: contextWindow/maxTokens belong to their route's model
    (a same-provider fallback model does not inherit them); status shows them."""
    from waymarks.core.evolution.limits import ModelLimits

    _write(tmp_path / "home" / "config.toml", HOME.replace(
        'keyEnv = "MY_KEY"\n', 'keyEnv = "MY_KEY"\ncontextWindow = 32768\nmaxTokens = 2048\n')
        + "contextWindow = 200000\n")
    config = load_evolution_config(tmp_path / "home")
    primary, fallback, backup = config.routes()
    assert primary.limits == ModelLimits(32_768, 2_048)
    assert fallback.model == "m2" and fallback.limits is None
    assert backup.limits == ModelLimits(200_000, None)
    assert primary.to_json()["contextWindow"] == 32_768
    assert primary.to_json()["maxTokens"] == 2_048


@pytest.mark.parametrize(("lines", "fix"), [
    ("contextWindow = 8192\n", "set maxTokens"),  # 12,800 reserved: no room for input
    ("contextWindow = 8192\nmaxTokens = 8192\n", "set maxTokens"),  # F3: no ceiling either
    ("contextWindow = 0\n", "whole number of tokens"),
    ("maxTokens = true\n", "whole number of tokens"),
    ('maxTokens = "4096"\n', "whole number of tokens"),
    ("contextWindow = 1e9\n", "whole number of tokens"),
])
def test_limits_that_cannot_work_are_refused_with_the_fix(tmp_path: Path, lines: str,
                                                          fix: str) -> None:
    _write(tmp_path / "home" / "config.toml",
           '[evolution]\nprovider = "ollama"\nendpoint = "http://127.0.0.1:9/v1"\n'
           f'model = "m"\n{lines}')
    with pytest.raises(EvolutionConfigError, match=fix) as caught:
        load_evolution_config(tmp_path / "home")
    assert "config.toml" in str(caught.value) and "8192" not in str(caught.value)


def test_a_small_window_with_an_output_limit_is_accepted(tmp_path: Path) -> None:
    from waymarks.core.evolution.limits import ModelLimits, input_budget

    _write(tmp_path / "home" / "config.toml",
           '[evolution]\nprovider = "ollama"\nendpoint = "http://127.0.0.1:9/v1"\n'
           'model = "m"\ncontextWindow = 8192\nmaxTokens = 1024\n')
    route = load_evolution_config(tmp_path / "home").routes()[0]
    assert route.limits == ModelLimits(8_192, 1_024)
    assert input_budget(route.limits) == 8_192 - 1_024
