"""An image's pre-release tag after a shipped account's name and a colon
(``postgres:pg15beta2``, ``postgres:16rc1``): the login pair read it as the account's
password (its letters and digits switch three times) and the tag reached a remote model as
``[REDACTED:secret]``, though the image's name said what it was. A password there still
goes."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

STATED: list[tuple[str, str]] = [
    ("postgres:Pg15!beta", "Pg15!beta"),
    ("login admin:s3cr3tbeta2", "s3cr3tbeta2"),
]

UNCHANGED: list[str] = [
    "postgres:pg15beta2",
    "image postgres:pg15beta2 is pinned",
    "docker pull postgres:16rc1",
    "FROM postgres:17beta1-alpine",
    "use mysql:8.0.0-rc1 for the test",
]

test_a_password_still_goes, test_a_tag_stays = stated_tests(STATED, UNCHANGED)
