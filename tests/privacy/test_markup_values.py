"""Credentials in XML that went to the model in clear, and a pin holding them was stored:
an element named for one whose text is a CDATA section (``<password><![CDATA[…]]>``, as a
generator writes any text), and a value under a ``key``/``name`` attribute naming one
(.NET's ``<add key="ApiKey" value="…"/>``, Spring's ``<property name="password"
value="…"/>``, a properties file's ``<entry key="db.password">…</entry>``). Each is
redacted, its markup kept, judged as an element's text is; settings and references stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"

CASES: list[tuple[str, str]] = [
    (f"<password><![CDATA[{PW}]]></password>",
     "<password><![CDATA[[REDACTED:secret]]]></password>"),
    (f"<apiKey>\n  <![CDATA[ {PW} ]]>\n</apiKey>",
     "<apiKey>\n  <![CDATA[ [REDACTED:secret] ]]>\n</apiKey>"),
    (f'<add key="ApiKey" value="{PW}" />', '<add key="ApiKey" value="[REDACTED:secret]" />'),
    (f"<property name='db.password' value='{PW}'/>",
     "<property name='db.password' value='[REDACTED:secret]'/>"),
    (f'<param name="api.token" type="string" value="{PW}"/>',
     '<param name="api.token" type="string" value="[REDACTED:secret]"/>'),
    (f'<entry key="db.password">{PW}</entry>',
     '<entry key="db.password">[REDACTED:secret]</entry>'),
]

UNCHANGED: list[str] = [
    '<add key="Timeout" value="30"/>',
    '<property name="token.ttl" value="3600"/>',
    '<property name="password" value="${db.password}"/>',
    '<add key="ApiKey" value=""/>',
    '<param name="secret" value="true"/>',
    '<input type="password" name="password" value="">',
    '<label for="password">Password</label>',
    "<password><![CDATA[]]></password>",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_credential_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_settings_and_references_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI stored it (exit 0): refused now, the value not echoed."""
    assert_pin_refused(tmp_path, f'web.config: <add key="ApiKey" value="{PW}"/>', PW)
