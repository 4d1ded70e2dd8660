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

#: the keyed element's text in a CDATA section or a ``<value>`` element (Spring's
#: ``<property name="…"><value>…</value></property>``, .NET's applicationSettings
#: ``<setting name="…" serializeAs="String"><value>…</value></setting>``): it went out
WRAPPED: list[tuple[str, str]] = [
    (f'<entry key="db.password"><![CDATA[{PW}]]></entry>',
     '<entry key="db.password"><![CDATA[[REDACTED:secret]]]></entry>'),
    (f'<property name="password"><value>{PW}</value></property>',
     '<property name="password"><value>[REDACTED:secret]</value></property>'),
    (f'<setting name="ApiToken" serializeAs="String">\n    <value>{PW}</value>\n</setting>',
     '<setting name="ApiToken" serializeAs="String">\n    <value>[REDACTED:secret]</value>\n'
     '</setting>'),
    (f'<property name="db.password">\n  <value><![CDATA[{PW}]]></value>\n</property>',
     '<property name="db.password">\n  <value><![CDATA[[REDACTED:secret]]]></value>\n'
     '</property>'),
]

#: the ``value`` attribute before the one naming it (XML's attributes have no order, and
#: a serializer or a hand may write them so): it went out
REVERSED: list[tuple[str, str]] = [
    (f'<add value="{PW}" key="ApiKey" />', '<add value="[REDACTED:secret]" key="ApiKey" />'),
    (f"<property value='{PW}'\n          name='db.password'/>",
     "<property value='[REDACTED:secret]'\n          name='db.password'/>"),
]

UNCHANGED: list[str] = [
    '<add value="30" key="Timeout"/>',
    '<property value="${db.password}" name="password"/>',
    '<add value="ApiKey" key="HeaderName"/>',
    '<setting name="TokenLifetime" serializeAs="String"><value>3600</value></setting>',
    '<property name="password"><value>${db.password}</value></property>',
    '<entry key="password.min.length"><![CDATA[8]]></entry>',
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


@pytest.mark.parametrize(("text", "kept"), WRAPPED)
def test_the_credential_in_a_value_element_or_cdata_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize(("text", "kept"), REVERSED)
def test_the_credential_before_its_name_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_settings_and_references_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI stored it (exit 0): refused now, the value not echoed."""
    assert_pin_refused(tmp_path, f'web.config: <add key="ApiKey" value="{PW}"/>', PW)
