"""``fly secrets import`` reads ``NAME=VALUE`` lines on its standard input: fed by a
heredoc (``fly secrets import <<EOF``, ``cat <<EOF | fly secrets import``) or a pipe
(``echo 'DB=…' |``, ``printf 'DB=…\\nAPI=…\\n' |``), every value went to the model in
clear, and a pin holding one was stored. Each is a secret store's value, redacted as
``fly secrets set``'s are, its name kept; references, a file fed to it and the lines after
the heredoc's end stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"
R = "[REDACTED:secret]"

#: (text, what stays of it)
CASES: list[tuple[str, str]] = [
    (f"fly secrets import <<EOF\nDB={PW}\nEOF", f"fly secrets import <<EOF\nDB={R}\nEOF"),
    (f"flyctl secrets import -a web <<'END'\nDB=\"{PW}\"\nLOG=$LOG\nEND\nDB=after-the-end",
     f"flyctl secrets import -a web <<'END'\nDB=\"{R}\"\nLOG=$LOG\nEND\nDB=after-the-end"),
    (f"cat <<EOF | fly secrets import\r\nDB={PW}\r\nEOF\r\n",
     f"cat <<EOF | fly secrets import\r\nDB={R}\r\nEOF\r\n"),
    (f"echo 'DB={PW}' | fly secrets import", f"echo 'DB={R}' | fly secrets import"),
    (f"printf 'LOG=$LOG\\nDB={PW}\\n' | flyctl secrets import -a app",
     f"printf 'LOG=$LOG\\nDB={R}\\n' | flyctl secrets import -a app"),
]

UNCHANGED: list[str] = [
    "fly secrets import < .env",
    "cat .env | fly secrets import",
    "echo \"DB=$DB\" | fly secrets import",
    "fly secrets import <<EOF\nDB=${DATABASE_URL}\nEOF",
    # written to a file, not fed to it (a value fly's rule would take, one case: a generated
    # one alone on its line goes by env_line's now, whoever reads it)
    f"cat <<EOF > .env\nDB={PW.lower()}0\nEOF\nfly secrets list",
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_what_fly_secrets_import_reads_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


def test_every_value_of_the_heredoc_is_redacted() -> None:
    text = f"fly secrets import <<EOF\nDB={PW}\nAPI=hunter22\nEOF"
    assert redact(text) == (f"fly secrets import <<EOF\nDB={R}\nAPI={R}\nEOF", 2)


@pytest.mark.parametrize("text", UNCHANGED)
def test_references_and_files_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI stored it (exit 0): refused now, the value not echoed."""
    assert_pin_refused(tmp_path, f"deploy: echo 'DB={PW}' | fly secrets import", PW)
