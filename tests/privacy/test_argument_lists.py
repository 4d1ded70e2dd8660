"""A credential-named flag whose value is the next item of a program's argument list:
docker inspect's ``"Args": ["--password", "…"]``, a pod's ``args: ["--db-password",
"…"]`` or its YAML list (``  - --password⏎  - …``), ``subprocess.run([…, "--password",
"…"])``. The flag rule read a value after a space only, and these went to the model in
clear (a claim quoting them was stored). A reference, a file's path and a variable
stay, and so does a Markdown list of flags."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

TEMPLATES: list[str] = [
    '"Args": ["--password", "{}", "--port", "5432"]',
    'args: ["--db-password", "{}"]',
    "args:\n  - --password\n  - {}\n",
    "subprocess.run(['mysql', '-u', 'root', '--password', '{}'])",
    'cmd = ["--api-key", "{}"]',
]

UNCHANGED: list[str] = [
    'args: ["--password", "$(DB_PASSWORD)"]',
    'args: ["--token-file", "/var/run/secrets/token"]',
    'cmd = ["--password", password]',
    "args:\n  - --password\n  - $(DB_PASSWORD)\n",
    'flags: ["--secret", "--verbose"]',
    "Options:\n- --password\n- prompts for it",
]

test_the_value_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(PW), t.format(R)) for t in TEMPLATES], UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f'inspect: "Args": ["--password", "{PW}"]', PW)
