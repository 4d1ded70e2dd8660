"""A Firebase Cloud Messaging legacy server key (``AAAA`` and 7 characters, ``:``, then
``APA91b`` and some 130 more): whoever holds it sends to every device of the app. It went
out in clear, in a note, a JSON config and curl's ``Authorization: key=…`` header, and the
real CLI kept a pin holding one. A device's registration token (no ``AAAA`` head), a DNS
``AAAA`` record and a key cut short stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import credential_kinds, redact

KEY = "AAAAx1y2z3A:APA91bH" + "Xk9vT2pQ7mLwR4sZ" * 8 + "a-b_c"
GONE = "[REDACTED:fcm-server-key]"


@pytest.mark.parametrize("text", [
    f"The push service's FCM server key is {KEY} for legacy sends.",
    f'{{"to": "/topics/news", "server_key": "{KEY}"}}',
    f"curl -H 'Authorization: key={KEY}' https://fcm.googleapis.com/fcm/send",
])
def test_a_legacy_server_key_is_redacted(text: str) -> None:
    assert might_contain_secret(text)
    redacted, count = redact(text)
    assert count == 1 and KEY not in redacted and "APA91b" not in redacted
    assert redacted == text.replace(KEY, GONE)
    assert credential_kinds(text) == ["fcm-server-key"]


@pytest.mark.parametrize("text", [
    "fJ3kT2xQr9W:APA91bH" + "Xk9vT2pQ7mLwR4sZ" * 8,  # a device's registration token
    "add an AAAA record for api.example.com: 2001:db8::1",
    "a legacy key looks like AAAAxxxxxxx:APA91b… (see the Firebase console)",
    "AAAAx1y2z3A:APA91bHshort",
])
def test_look_alikes_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"FCM legacy server key: {KEY}", KEY)
