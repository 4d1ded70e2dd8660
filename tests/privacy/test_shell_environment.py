"""A shell's own environment: an ``export NAME=VALUE`` line (``declare -x``, as ``export
-p`` prints it) and ``env``'s or ``printenv``'s dump, ``NAME=VALUE`` lines. A generated
value under a name that says nothing (``SESSION_X``, a CI's ``API_SEED``) went to the
model in clear, and a claim holding it was stored; judged as a container's environment
is (secret_environments.generated): only what reads as generated goes, so settings,
digests and a weak password under a neutral name (``export DB=hunter22``, the documented
limit) stay."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.privacy.digests import assert_pin_refused, shape_tests

HEX = "3f9a8c7e6d5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d4c3b2a"
TOKEN = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the value as ``{}``
TEMPLATES: list[tuple[str, str]] = [
    ("export SESSION_X={}", HEX),
    ('export SESSION_X="{}" && make test', TOKEN),
    ("  declare -x API_SEED='{}'", TOKEN),
    ("HOSTNAME=web-1\nHOME=/root\nSESSION_X={}\nPG_VERSION=16.1-1.pgdg120+1\n", HEX),
    ("SESSION_X={}\nHOME=/root\nPATH=/usr/local/bin:/usr/bin\n", TOKEN),
]

UNCHANGED: list[str] = [
    "export PATH=/usr/local/bin:$PATH",
    "export NODE_ENV=production",
    "export DB=hunter22",
    "export BUILD_SHA=3f9a8c7e6d5b4a39281706f5e4d3c2b1a09f8e7d",
    "export const timeout = 30;",
    "HOSTNAME=web-1\nHOME=/root\nGIT_COMMIT=3f9a8c7e6d5b4a39281706f5e4d3c2b1a09f8e7d\nTZ=UTC\n",
    "PATH=/usr/bin\nHOME=/home/app\nLANG=C.UTF-8\nJAVA_OPTS=-Xmx512m -Xss512k\n",
]

test_the_value_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(v), t.format(R)) for t, v in TEMPLATES], UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"ci: export SESSION_X={HEX}", HEX)


def test_an_export_after_a_letter_outside_ascii_passes_the_pretest() -> None:
    # the rule reads ASCII word characters; the pre-test read "ª" as one and let the text
    # by unread (the slow property test found ``ªexport A_X=…``)
    from waymarks.core.secret_pretest import might_contain_secret

    assert might_contain_secret(f"ªexport SESSION_X={HEX}")


def test_a_long_dump_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # each HOME= line was read again to the dump's end when no value was taken (60,000 of
    # them took 135 s): the dump is read once per 1,024 lines, the rule's bound
    from waymarks.core import secret_environments
    from waymarks.core.secrets import redact

    reads: list[str] = []
    real = secret_environments.environment_values

    def counting(name: str, match: re.Match[str]) -> list[tuple[int, int]]:
        reads.append(name)
        return real(name, match)

    monkeypatch.setattr(secret_environments, "environment_values", counting)
    text = "HOME=x\n" * 5000
    assert redact(text) == (text, 0)
    assert 1 <= len(reads) <= 5000 // 1024 + 1
