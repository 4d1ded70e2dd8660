"""A secret PowerShell or cmd is given where no assignment or flag names it:
``ConvertTo-SecureString 'PW' -AsPlainText -Force`` (in ``New-Object PSCredential(…)``
too), ``[Environment]::SetEnvironmentVariable('API_TOKEN', 'PW', 'User')`` and cmd's
``setx API_TOKEN PW``: each went out in clear. The value goes; a variable, a name that
says nothing and an encrypted string (no ``-AsPlainText``) stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests
from waymarks.core.secrets import redact

PW = "Xk9vT2pQ" + "7mLwR4sZ"

#: each holds PW once: what stays is the text with PW redacted
GIVEN = [
    f"ConvertTo-SecureString '{PW}' -AsPlainText -Force",
    f"$cred = New-Object PSCredential('admin', (ConvertTo-SecureString \"{PW}\" -AsPlainText"
    " -Force))",
    f"$s = convertto-securestring -AsPlainText -Force -String '{PW}'",
    f"[Environment]::SetEnvironmentVariable('API_TOKEN', '{PW}', 'User')",
    f'[System.Environment]::SetEnvironmentVariable("DB_PASSWORD", "{PW}", "Machine")',
    f"setx API_TOKEN {PW}",
    f'setx /M DB_PASSWORD "{PW}"',
]

KEPT = """ConvertTo-SecureString $pw -AsPlainText -Force
ConvertTo-SecureString '01000000d08c9ddf0115d1118c7a00c04fc297eb' -Key $key
[Environment]::SetEnvironmentVariable('PATH', 'C:\\tools;C:\\bin', 'User')
[Environment]::SetEnvironmentVariable('API_TOKEN', $token, 'User')
setx API_TOKEN %TOKEN%
setx JAVA_HOME "C:\\Program Files\\Java\\jdk-21\"""".splitlines()


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"admin login: ConvertTo-SecureString '{PW}' -AsPlainText", PW)


test_the_value_given_is_redacted, test_a_variable_or_other_name_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in GIVEN], KEPT)


def test_a_single_quoted_string_runs_over_its_doubled_quotes() -> None:
    text = f"ConvertTo-SecureString 'it''s{PW}' -AsPlainText -Force"
    assert redact(text) == ("ConvertTo-SecureString '[REDACTED:secret]' -AsPlainText -Force", 1)
