"""A vendor token glued to the letters before it, a paste that lost its space
(``xxxxghp_…``, ``tokenghp_…``, ``Bearerghp_…``): every token rule wanted nothing of a
token's characters before its prefix, so the token was pinned by the real CLI and shown to
a remote provider in clear. A distinctive prefix after letters now starts a token when
what follows reads as random (a capital, a small letter and a digit); names and words
glued to the same prefixes stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import redact

R = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAB7c"  # 36 random-looking characters
GH = "gh" + "p_" + R

GLUED = [
    ("github-token", "xxxx", GH),
    ("github-token", "Bearer", GH),
    ("github-token", "xxxx", "github" + "_pat_11ABCDEFG0123456789abc_" + R + R[:23]),
    ("gitlab-token", "key", "gl" + "pat-" + R[:20]),
    ("slack-token", "token", "xo" + "xb-123456789012-1234567890123-" + R[:24]),
    ("anthropic-key", "key", "sk-" + "ant-api03-" + R + R),
    ("stripe-key", "key", "sk_" + "live_" + R[:24]),
    ("google-api-key", "key", "AI" + "za" + R[:35]),
    ("npm-token", "token", "np" + "m_" + R),
    ("huggingface-token", "token", "h" + "f_" + R[:34]),
]


@pytest.mark.parametrize(("kind", "before", "token"), GLUED)
def test_a_token_glued_to_letters_is_redacted(kind: str, before: str, token: str) -> None:
    for text in (f"{before}{token}", f"CI reads {before}{token} from the vault"):
        assert might_contain_secret(text)
        redacted, count = redact(text)
        assert token not in redacted and f"{before}[REDACTED:{kind}]" in redacted, redacted
        assert count == 1


@pytest.mark.parametrize("text", [
    "risk_live_monitoring_dashboard",
    "the methodghp_helper_function_name_here_x",
    "thisghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "makeAIzaFooBarBazQuxQuuxCorgeGraultGarplyWaldo",
    "task-ant-api-gateway-for-the-company-2024x",
    "myhf_abcdefghijklmnopqrstuvwxyzabcdefgh",
    "deltaxoxb-1234-helper",
    "catalognpm_packages_for_the_monorepo_build_v2",
    "useglpat-token-from-the-ci-variables",
])
def test_words_glued_to_a_prefix_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"CI reads the token from xxxx{GH} in the vault", GH)


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"The CI token is xxxx{GH} for deploys", GH,
                              "CI token", "[REDACTED:github-token]")
