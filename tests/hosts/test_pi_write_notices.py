"""Inside Pi, a write's privacy notice is judged for Pi's active model, as plans are.

The notice said whether *the home's default provider* would receive the item: with
``[privacy.remoteProviders] fake = ["normal"]`` and Pi on ``fake``, an ``internal`` pin
got no notice though no plan would ever carry it; with ``localProviders = ["ollama"]``
and Pi on ``ollama``, a ``local-only`` pin was told "the default provider (…) will not
receive it" though every plan carried it. The bridge now serves the writes for the
provider each request names (``sync.provider``), and the notice names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hosts.fake_openai import FakeOpenAI
from tests.hosts.pi_harness import PiHome, install
from tests.hosts.test_bridge import Host, converse

REMOTE_NARROW = ('[privacy]\nremoteDefaultAllowed = ["normal", "internal"]\n'
                 '[privacy.remoteProviders]\nfake = ["normal"]\n')
LOCAL_OLLAMA = '[privacy]\nlocalProviders = ["ollama"]\n'


@pytest.mark.parametrize(("config", "provider", "level", "noted"), [
    (REMOTE_NARROW, "fake", "internal", True),  # the default admits it, Pi's model not
    (LOCAL_OLLAMA, "ollama", "local-only", False),  # Pi's local model receives it
])
def test_a_pins_privacy_notice_is_for_pis_active_model(
        tmp_path: Path, config: str, provider: str, level: str, noted: bool) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(config)
    out = converse(tmp_path, [
        {"id": 1, "method": "initialize"},
        {"id": 2, "method": "command", "params": {
            "text": f"pin --classification {level} -- Deploy from the bastion.",
            "sync": {"provider": provider}}},
        {"id": 3, "method": "shutdown"}], Host())
    [said] = [m["result"] for m in out if m.get("id") == 2]
    assert said["exitCode"] == 0, said
    if noted:
        assert f"the active model's provider ({provider}) will not receive it" \
            in said["text"], said
    else:
        assert "will not receive" not in said["text"], said


@pytest.mark.slow
def test_in_the_real_pi_an_internal_pin_is_noted_for_its_model(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        pi = PiHome(tmp_path, install("pi16"), fake.base_url)
        (pi.waymarks_home / "config.toml").write_text(REMOTE_NARROW)
        pi.run("-p", "hello")
        done = pi.run("-c", "-p", "/context pin --classification internal -- "
                      "Internal rule: deploy only from the bastion.")
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "Pinned pin" in said, said
    assert "the active model's provider (fake) will not receive it" in said, said
