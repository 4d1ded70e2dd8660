"""A platform's config var under a name that says nothing of a credential, holding a
UUID (``heroku config:set REQUEST_ID=…``, ``docker run -e TENANT_ID=…``): docs/privacy.md and
``setting_is_secret`` say an ID stays, but the one UUID the tests held (``550e8400-…``)
was the exception: 989 of 1,000 random version-4 UUIDs were judged random (their hex
parts switch between letters and digits) and redacted, and a pin naming a tenant or a
request was refused. Under a credential's name, or given to a secret store, a UUID is
still the secret it stands for (Heroku's API keys are UUIDs)."""

from __future__ import annotations

import random
import uuid

import pytest

from waymarks.core.secret_values import setting_is_secret
from waymarks.core.secrets import redact

IDS = [str(uuid.UUID(int=random.Random(seed).getrandbits(128), version=4)) for seed in range(50)]


def test_a_uuid_is_no_random_setting() -> None:
    assert [u for u in IDS if setting_is_secret(u)] == []
    assert [u for u in IDS if setting_is_secret(u.upper())] == []


@pytest.mark.parametrize("command", [
    "heroku config:set REQUEST_ID={}", "docker run -e TENANT_ID={} app",
    "gcloud run deploy api --set-env-vars PROJECT={},TZ=UTC",
])
def test_a_uuid_under_a_neutral_name_stays(command: str) -> None:
    for value in IDS[:10]:
        text = command.format(value)
        assert redact(text) == (text, 0)


@pytest.mark.parametrize(("command", "kept"), [
    ("heroku config:set API_TOKEN={}", "heroku config:set API_TOKEN=[REDACTED:secret]"),
    ("fly secrets set DB={}", "fly secrets set DB=[REDACTED:secret]"),
    ("HEROKU_API_KEY={}", "HEROKU_API_KEY=[REDACTED:secret]"),
])
def test_a_uuid_named_a_credential_or_kept_as_a_secret_goes(command: str, kept: str) -> None:
    for value in IDS[:10]:
        assert redact(command.format(value)) == (kept, 1)
