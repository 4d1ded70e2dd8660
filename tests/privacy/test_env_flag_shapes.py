"""A container's or service's environment written in the other ways its CLI reads it:
``docker run -eDB=…`` (the pair glued to its short flag, as pflag allows for any
shorthand) and gcloud's list with a delimiter of its own (``--set-env-vars
^:^A=1:DB=…``, ``^##^…``: how gcloud takes values holding commas). The value went to the
model in clear, and a pin holding it was stored, where ``-e DB=…`` and a comma's list were
redacted. Each value is judged as a config var's (a setting stays)."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

RANDOM = "Xk9mQ2pL7vR3tY8wZ5nB"

CASES: list[tuple[str, str]] = [
    (f"docker run -eDB={RANDOM} nginx", "docker run -eDB=[REDACTED:secret] nginx"),
    (f"podman run --rm -eTZ=UTC -eDB='{RANDOM}' app",
     "podman run --rm -eTZ=UTC -eDB='[REDACTED:secret]' app"),
    (f"gcloud run deploy api --set-env-vars ^:^A=1:DB={RANDOM}:TZ=UTC",
     "gcloud run deploy api --set-env-vars ^:^A=1:DB=[REDACTED:secret]:TZ=UTC"),
    (f"gcloud run deploy api --set-env-vars=^##^HOSTS=a,b##DB={RANDOM} --region eu",
     "gcloud run deploy api --set-env-vars=^##^HOSTS=a,b##DB=[REDACTED:secret] --region eu"),
    (f"gcloud functions deploy f --update-env-vars \"^@^DB={RANDOM}@LOG=info\"",
     "gcloud functions deploy f --update-env-vars \"^@^DB=[REDACTED:secret]@LOG=info\""),
]

UNCHANGED: list[str] = [
    "docker run -eTZ=Europe/Berlin -eNODE_ENV=production nginx",
    "gcloud run deploy api --set-env-vars ^:^HOSTS=a,b:TZ=Europe/Berlin:PORT=8080",
    "docker run -e$DB nginx",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_value_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_setting_stays(text: str) -> None:
    assert redact(text) == (text, 0)
