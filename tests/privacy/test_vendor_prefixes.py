"""Tokens of services a coding agent's session configures, known by their vendor's
published prefix: Notion, Doppler, Pulumi, Postman, New Relic, Grafana, Supabase,
PlanetScale, Docker Hub. Each went out in clear (a note, an ``.env`` line under a name
that says nothing, a JSON config) and the real CLI pinned one. Names, hashes and words
after the same prefixes stay."""

from __future__ import annotations

import string
from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused
from tests.privacy.secret_corpus import TOKENS
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import redact

KINDS = ("notion-token", "doppler-token", "pulumi-token", "postman-key", "newrelic-key",
         "grafana-token", "supabase-token", "planetscale-token", "docker-token")
FAKES = [(kind, token) for kind, token in TOKENS if kind in KINDS]
MORE = [
    ("doppler-token", "dp.pt." + "Xk9vT2pQ7mLwR4sZ" * 2 + "abcdefghijk"),
    ("newrelic-key", "NRII-" + "Xk9vT2pQ7mLwR4sZ" * 2),
    ("grafana-token", "glc_" + "eyJvIjoiMTIzNCIsIm4iOiJzdGFjay0xMjM0LWhtLXdyaXRlIiwiayI6Ilhr"),
    ("supabase-token", "sb_secret_" + "Xk9vT2pQ7mLwR4sZ_abcd"),
    ("docker-token", "dckr_oat_" + "Xk9vT2pQ7mLwR4sZ-abcdefghijk"),
]


@pytest.mark.parametrize(("kind", "token"), FAKES + MORE)
def test_a_vendor_token_is_redacted(kind: str, token: str) -> None:
    for text in (f"The CI uses {token} for deploys.", f"SETTING_A={token}",
                 f'{{"value": "{token}"}}'):
        assert might_contain_secret(text)
        redacted, count = redact(text)
        assert token not in redacted and f"[REDACTED:{kind}]" in redacted, redacted
        assert count == 1


def test_every_new_kind_has_a_fake() -> None:
    assert {kind for kind, _ in FAKES} == set(KINDS)


@pytest.mark.parametrize("text", [
    "secret_" + string.ascii_lowercase + "abcdefghijklmnopq",  # a 43-letter name
    "see secret_key_base_for_development in config",
    "pul-" + "request-template-for-the-monorepo-v2",
    "the dp.st.example.com host",
    "PMAK-your-api-key-here",
    "NRAK-XXXXXXXXXXXXXXXXXXXXXXXXXXX is the placeholder".replace("X", "x"),
    "glsa_serviceaccount_token name",
    "sbp_" + "0" * 8,
    "pscale_tkn_",
    "dckr_pat_placeholder",
])
def test_look_alikes_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_one(tmp_path: Path) -> None:
    token = dict(FAKES)["pulumi-token"]
    assert_pin_refused(tmp_path, f"Pulumi access token for CI: {token}", token)
