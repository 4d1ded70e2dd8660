"""A password given to ``passwd USER`` (or ``smbpasswd -s``) by a here-string: ``passwd
deploy <<< $'PW\\nPW'`` (ANSI-C quotes, the password and its confirmation), ``<<< "PW"``:
it went out in clear (only ``echo … | passwd`` was read). A reference stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vT2pQ" + "7mLwR4sZ"
R = "[REDACTED:secret]"


def test_a_here_string_s_password_is_redacted() -> None:
    for text, out in (
            (f"passwd deploy <<< $'{PW}\\n{PW}'", f"passwd deploy <<< $'{R}'"),
            (f"sudo passwd deploy <<< \"{PW}\"", f"sudo passwd deploy <<< \"{R}\""),
            (f"passwd <<< '{PW}'", f"passwd <<< '{R}'"),
            ("smbpasswd -a -s deploy <<< $'hunter22\\nhunter22'",
             f"smbpasswd -a -s deploy <<< $'{R}'")):
        assert redact(text) == (out, 1), text


def test_a_reference_and_other_here_strings_stay() -> None:
    for text in ("passwd deploy <<< $'$PW\\n$PW'", 'passwd deploy <<< "$NEW_PW"',
                 "passwd deploy < /tmp/pw.txt", "cat <<< $'hello world\\nfoo'"):
        assert redact(text) == (text, 0), text


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"reset: passwd deploy <<< $'{PW}\\n{PW}'", PW)
