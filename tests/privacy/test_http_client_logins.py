"""The ``USER:PASSWORD`` of HTTP clients other than curl: HTTPie's and xh's ``-a``/``--auth``
(``http -a admin:… POST api.example.com``) and jenkins-cli's ``-auth`` (``java -jar
jenkins-cli.jar -auth admin:… who-am-i``), as smoke tests and CI steps write them: the
password went to the model in clear and a claim holding it was stored. A user alone
prompts for it, and a variable or jenkins-cli's ``@FILE`` name one."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

TEMPLATES: list[str] = [
    "http -a admin:{} POST api.example.com/health",
    "https --auth 'admin:{}' api.example.com/items page==2",
    "xh -a admin:{} :8080/metrics",
    "java -jar jenkins-cli.jar -s https://ci.example.com -auth admin:{} who-am-i",
    "jenkins-cli -auth deploy:{} build release",
]

UNCHANGED: list[str] = [
    "http -a admin api.example.com",
    "http -a admin:$API_PASSWORD api.example.com",
    "java -jar jenkins-cli.jar -s https://ci.example.com -auth @creds.txt who-am-i",
    "see https://example.com -a note: it moved",
]

test_the_password_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(PW), t.format(R)) for t in TEMPLATES], UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"smoke: http -a admin:{PW} api.example.com", PW)
