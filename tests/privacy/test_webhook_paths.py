"""A webhook whose secret is in its URL's path (anyone holding it posts): a Zapier catch
hook, a Mattermost or Rocket.Chat incoming webhook, a self-hosted service's
``…/webhooks/incoming/<token>``. Each went out in clear, and the real CLI pinned one.
Documentation URLs, a UUID, a date, digits alone and a template stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import redact

MM = "xk9vt2pq7mlwr4sz" + "3abcd5efgh"  # Mattermost's 26 random characters


@pytest.mark.parametrize(("text", "secret", "kind"), [
    ("https://hooks.zapier.com/hooks/catch/1234567/abcd123/", "1234567/abcd123",
     "zapier-webhook"),
    (f"alerts: https://mattermost.example.com/hooks/{MM}", MM, "webhook-secret"),
    ("https://hooks.example.com/services/incoming/Xk9vT2pQ7mLwR4sZXk9vT2pQ7mLw",
     "Xk9vT2pQ7mLwR4sZXk9vT2pQ7mLw", "webhook-secret"),
    ("curl -X POST https://ci.example.com/webhook/v1/Xk9vT2pQ7mLwR4sZab12 -d @build.json",
     "Xk9vT2pQ7mLwR4sZab12", "webhook-secret"),
    ('{"url": "https://chat.example.com/HOOKS/Xk9vT2pQ7mLwR4sZab12"}', "Xk9vT2pQ7mLwR4sZab12",
     "webhook-secret"),
])
def test_a_webhook_secret_in_a_path_is_redacted(text: str, secret: str, kind: str) -> None:
    assert might_contain_secret(text)
    redacted, count = redact(text)
    assert secret not in redacted and f"[REDACTED:{kind}]" in redacted, redacted
    assert count == 1


@pytest.mark.parametrize("text", [
    "https://docs.example.com/webhooks/getting-started-with-webhooks",
    "https://github.com/org/repo/settings/hooks/123456789012345678",
    "https://n8n.example.com/webhook/0f2b7c1e-1234-4abc-9def-0123456789ab",
    "https://example.com/hooks/release-2024-12-01-build",
    "https://hooks.zapier.com/hooks/catch/",
    "https://developer.mattermost.com/integrate/webhooks/incoming/",
    "see https://example.com/api/hooks/{hook_id}/deliveries",
    "https://example.com/webhooks/build_artifacts_v2_final",
])
def test_documentation_and_ids_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"Deploy alerts post to https://chat.example.com/hooks/{MM}",
                       MM)


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"Deploy alerts post to https://chat.example.com/hooks/{MM}",
                              MM, "deploy alerts", "[REDACTED:webhook-secret]")
