"""Azure's CLI prints an account's keys as JSON: ``az storage account keys list`` gives
``{"keyName": "key1", "permissions": "FULL", "value": "…=="}``, ``az cosmosdb keys list``
``"primaryMasterKey": "…=="`` (Service Bus and Log Analytics a ``primaryKey`` or
``primarySharedKey``). The key went to the model in clear, and a claim quoting the output
was stored: the storage key's rule read it only after ``AccountKey=``. Padded base64 of
32 bytes or more goes; a database's ``"primaryKey": "id"`` stays."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secrets import credential_kinds, redact
from waymarks.planner.sanitize import sanitize

KEY = base64.b64encode(bytes(range(7, 71))).decode()  # 64 bytes, as a storage key is
SHORT = base64.b64encode(bytes(range(100, 132))).decode()  # 32, a Service Bus key's
R = "[REDACTED:azure-storage-key]"

CASES: list[tuple[str, str]] = [
    ('[\n  {\n    "creationTime": "2024-05-01T09:12:44+00:00",\n    "keyName": "key1",\n'
     '    "permissions": "FULL",\n    "value": "{}"\n  }\n]', KEY),
    ('{"primaryMasterKey": "{}", "documentEndpoint": "https://x.documents.azure.com"}', KEY),
    ('{\n  "keyName": "RootManageSharedAccessKey",\n  "primaryKey": "{}"\n}', SHORT),
    # its value alone, a ``--query "[].{permissions:permissions, value:value}"`` having
    # dropped keyName (went out in clear): a storage key's 88 characters
    ('[\n  {\n    "permissions": "FULL",\n    "value": "{}"\n  }\n]', KEY),
    ('{"value": "{}"}', KEY),
]


@pytest.mark.parametrize(("template", "key"), CASES)
def test_the_key_is_redacted(template: str, key: str) -> None:
    text = template.replace("{}", key)
    kept = template.replace("{}", R)
    assert redact(text) == (kept, 1)
    assert credential_kinds(text) == ["azure-storage-key"]
    outcome = sanitize({"messages": [{"role": "user", "content": text}]}, "anthropic")
    assert outcome.payload["messages"][0]["content"] == kept


@pytest.mark.parametrize("text", [
    '{"primaryKey": "id", "table": "users"}',
    '{"keyName": "key1", "value": "abc"}',
    '{"primaryKey": "' + "a" * 44 + '"}',  # no padding: no base64 of a key
    '{"value": "' + SHORT + '"}',  # a value alone: a storage key's length only
    '{"value": "aGVsbG8gd29ybGQ="}',
])
def test_a_value_that_is_no_key_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f'keys: {{"keyName": "key1", "value": "{KEY}"}}', KEY)
