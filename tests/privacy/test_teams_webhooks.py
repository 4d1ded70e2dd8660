"""A Microsoft Teams incoming webhook's URL (an Office 365 connector's: anyone holding it
posts to the channel), pasted from a CI's notify step or a channel's settings: it went
out in clear (Slack's and Discord's webhooks were read). The whole URL goes now, on a
tenant's ``webhook.office.com`` and the older ``outlook.office.com``; Teams' own links and
a URL with a placeholder stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused
from tests.privacy.secret_corpus import teams_webhook
from waymarks.core.secrets import redact

HOOK = teams_webhook("notify")
R = "[REDACTED:teams-webhook]"


#: where a URL is pasted: alone, a CI step's curl, a setting
PASTED = ("{}", "curl -H 'Content-Type: application/json' -d '{{\"text\": \"up\"}}' {}",
          "TEAMS_WEBHOOK_URL: {}")


def test_the_webhook_url_is_redacted_where_it_is_pasted() -> None:
    for template in PASTED:
        assert redact(template.format(HOOK)) == (template.format(R), 1), template


def test_the_older_outlook_host_goes_too() -> None:
    old = HOOK.replace("contoso.webhook.office.com/webhookb2", "outlook.office.com/webhook")
    assert redact(f"hook: {old}") == (f"hook: {R}", 1)


def test_teams_links_and_a_placeholder_stay() -> None:
    for text in ("https://teams.microsoft.com/l/channel/19%3aabc%40thread.tacv2/General",
                 "https://contoso.webhook.office.com/webhookb2/<team>@<tenant>/IncomingWebhook/"
                 "<id>/<owner>"):
        assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"notify step posts to {HOOK}", HOOK[-12:])
