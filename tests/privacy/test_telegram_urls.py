"""A Telegram bot's token in the Bot API's URL, glued to its ``/bot``
(``https://api.telegram.org/bot<token>/sendMessage``, a webhook's or a file's URL, a curl
line of a CI's notification step): the token rule wanted no word character before it, so
the whole token went out in clear. The URL's host and method stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secrets import redact

TOKEN = "123456789:AAHk9vT2pQ7mLwR4sZXk9vT2pQ7mLwR4sZ1"
R = "[REDACTED:telegram-bot-token]"


@pytest.mark.parametrize("template", [
    "https://api.telegram.org/bot{}/sendMessage?chat_id=42&text=deployed",
    'curl -s "https://api.telegram.org/bot{}/getUpdates"',
    "https://api.telegram.org/file/bot{}/documents/file_1.pdf",
    "setWebhook: https://api.telegram.org/bot{}/setWebhook?url=https://ci.example.com/hook",
])
def test_the_token_in_the_url_is_redacted(template: str) -> None:
    assert redact(template.format(TOKEN)) == (template.format(R), 1)


def test_a_robot_word_or_a_bot_path_without_a_token_stays() -> None:
    for text in ("https://api.telegram.org/bot$TELEGRAM_TOKEN/sendMessage",
                 "see https://example.com/robot123456789:AAbc for the bot docs"):
        assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"notify: https://api.telegram.org/bot{TOKEN}/sendMessage",
                       TOKEN)
