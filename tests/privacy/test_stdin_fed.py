"""A password a command reads on its standard input, fed by more than one ``echo``: a
group of commands (``(echo PW; echo PW) | smbpasswd -a -s USER``, ``{ …; }``), a
``printf`` format's arguments (``printf '%s\\n%s\\n' PW PW | passwd USER``) or ``yes PW |
passwd``. Each went out in clear (``echo PW | passwd --stdin`` alone was read); each value
goes now, a reference stays, and a group piped into a command that reads no password
stays whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import credential_kinds, redact
from waymarks.planner.sanitize import sanitize

PW = "Xk9vTq2mWz8rLp4n"
R = "[REDACTED:secret]"

CASES: list[tuple[str, str, int]] = [
    (f"(echo {PW}; echo {PW}) | smbpasswd -a -s deploy",
     f"(echo {R}; echo {R}) | smbpasswd -a -s deploy", 2),
    (f'(echo "{PW}"; echo "{PW}") | sudo smbpasswd -s -a deploy',
     f'(echo "{R}"; echo "{R}") | sudo smbpasswd -s -a deploy', 2),
    (f"{{ echo {PW}; echo {PW}; }} | passwd deploy",
     f"{{ echo {R}; echo {R}; }} | passwd deploy", 2),
    (f"(echo oldpass1; echo -n {PW}) | passwd",
     f"(echo {R}; echo -n {R}) | passwd", 2),
    (f"printf '%s\\n%s\\n' {PW} '{PW}' | passwd deploy",
     f"printf '%s\\n%s\\n' {R} '{R}' | passwd deploy", 2),
    (f"yes {PW} | passwd deploy", f"yes {R} | passwd deploy", 1),
    (f"(echo {PW}) | docker login -u ci --password-stdin registry.example.com",
     f"(echo {R}) | docker login -u ci --password-stdin registry.example.com", 1),
]

UNCHANGED = [
    "(echo $SMB_PW; echo $SMB_PW) | smbpasswd -a -s deploy",
    "printf '%s\\n%s\\n' \"$PW\" \"$PW\" | passwd deploy",
    "(echo hello; echo world) | wc -l",
    "printf '%s\\n' alpha beta gamma | xargs -n1 echo",
    "yes | apt-get install nginx",
    # a placeholder as docs write one, an answer
    "(echo PW; echo PW) | smbpasswd -a -s USER",
    "yes y | passwd",
]


@pytest.mark.parametrize(("text", "kept", "count"), CASES)
def test_each_value_fed_to_the_command_is_redacted(text: str, kept: str, count: int) -> None:
    assert might_contain_secret(text)
    assert redact(text) == (kept, count)
    assert redact(kept) == (kept, 0)
    assert credential_kinds(text) == ["secret"]
    outcome = sanitize({"messages": [{"role": "user", "content": text}]}, "openai")
    assert outcome.payload["messages"][0]["content"] == kept


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_reference_or_a_command_reading_no_password_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"samba: (echo {PW}; echo {PW}) | smbpasswd -a -s deploy", PW)
