"""A login written down base64-encoded and decoded by the shell (``echo YWRt… | base64
-d``, ``base64 --decode <<< …``), as one checks a Basic header's or a Kubernetes Secret's
value: the encoded ``USER:PASSWORD`` went to the model in clear (a model decodes base64
as easily as the shell), and a claim holding it was stored. What decodes to a login or
to a value that reads as random goes; plain text and a variable stay."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

LOGIN = base64.b64encode(b"admin:Xk9vTq2mWz8rLp4nB7cD").decode()
VALUE = base64.b64encode(b"S3cr3tPassXk9v").decode()
R = "[REDACTED:secret]"

#: texts with the encoded value as ``{}``
TEMPLATES: list[tuple[str, str]] = [
    ("echo {} | base64 -d", LOGIN),
    ("echo '{}' | base64 --decode", LOGIN),
    ("echo -n {} | base64 -D", LOGIN),
    ("base64 -d <<< {}", LOGIN),
    ('echo "{}" | base64 -d', VALUE),
]

UNCHANGED: list[str] = [
    "echo aGVsbG8gd29ybGQ= | base64 -d",  # hello world
    "echo " + base64.b64encode(b"production").decode() + " | base64 -d",
    "echo $CREDS | base64 -d",
    "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
    "echo " + LOGIN + " | base64",  # encoding it
]

test_the_login_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(v), t.format(R)) for t, v in TEMPLATES], UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"check it: echo {LOGIN} | base64 -d", LOGIN)
