"""sshpass's password in its environment: ``SSHPASS=… sshpass -e ssh …`` (what ``-e``
reads, the way scripts and CI give it) went out in clear: "pass" ends a credential's
name only after a non-letter or in camel case, so ``SSHPASS`` was no name. It is one
now, its value judged as an assignment's; a reference, a placeholder and words that
merely end in "pass" stay."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"

CASES: list[tuple[str, str]] = [
    (f"SSHPASS={PW} sshpass -e ssh deploy@web-1",
     "SSHPASS=[REDACTED:secret] sshpass -e ssh deploy@web-1"),
    (f'export SSHPASS="{PW}"; sshpass -e rsync -a dist/ deploy@web-1:/srv',
     'export SSHPASS="[REDACTED:secret]"; sshpass -e rsync -a dist/ deploy@web-1:/srv'),
    (f"env SSHPASS='{PW}' sshpass -e scp app.tar deploy@web-1:",
     "env SSHPASS='[REDACTED:secret]' sshpass -e scp app.tar deploy@web-1:"),
]

UNCHANGED = [
    "SSHPASS=$DEPLOY_PASSWORD sshpass -e ssh deploy@web-1",
    "SSHPASS=changeme",
    "compass=north bypass=true",
    "the sshpass package is installed",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_password_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_reference_or_a_word_stays(text: str) -> None:
    assert redact(text) == (text, 0)
