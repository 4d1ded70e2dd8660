"""An IFTTT Webhooks key in its trigger URL (anyone holding it fires the account's
applets), pasted from a curl line, a Home Assistant ``rest_command`` or a script: it went
out in clear. The key goes now, the URL's host, event and query stay around it; a
placeholder stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secrets import redact

KEY = "dGhpc2lzYXRlc3Rr" + "ZXkxMjM0bQ"
R = "[REDACTED:ifttt-webhook-key]"

#: where the URL is pasted: a curl line, a JSON trigger, a YAML setting with a query
PASTED = ("curl -X POST https://maker.ifttt.com/trigger/door_open/with/key/{}",
          "curl https://maker.ifttt.com/trigger/backup_done/json/with/key/{} -d '{{}}'",
          "  url: \"https://maker.ifttt.com/trigger/alarm/with/key/{}?value1=on\"")


def test_the_key_is_redacted_where_it_is_pasted() -> None:
    for template in PASTED:
        assert redact(template.format(KEY)) == (template.format(R), 1), template


def test_placeholders_and_other_ifttt_links_stay() -> None:
    for text in ("https://maker.ifttt.com/trigger/{event}/with/key/{your_key}",
                 "https://maker.ifttt.com/trigger/door/with/key/YOUR_IFTTT_WEBHOOK_KEY",
                 "https://ifttt.com/maker_webhooks/settings"):
        assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"door applet: https://maker.ifttt.com/trigger/door/with/key/{KEY}",
                       KEY[-12:])
