"""A passphrase after its label, words with spaces: unquoted to its line's end
(``passphrase: correct horse battery staple``), or in typographic quotes or backticks. The
assignment rule read an unquoted value to its first space and judged ``correct`` a word:
the real CLI pinned it and a remote provider was shown it in clear; in ``“…”`` only the
first word went. Notes about a passphrase (where it is kept, that there is none) stay."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import credential_kinds, redact

PHRASE = "correct horse " + "battery staple"


@pytest.mark.parametrize("text", [
    f"passphrase: {PHRASE}",
    f"GPG release signing passphrase: {PHRASE}",
    f"the gpg passphrase: {PHRASE} for signing",
    f"Passphrase: {PHRASE}\nthen run make release",
    f"wifi pass phrase = {PHRASE}",
    f"passphrase: \u201c{PHRASE}\u201d for signing",
    f"passphrase: \u2018{PHRASE}\u2019",
    f"passphrase: `{PHRASE}`",
    f"- ssh key passphrase: {PHRASE}.",
])
def test_the_phrase_is_redacted_whole(text: str) -> None:
    assert might_contain_secret(text)
    redacted, _ = redact(text)
    assert all(word not in redacted for word in PHRASE.split()), redacted
    assert "[REDACTED:secret]" in redacted
    assert credential_kinds(text) == ["secret"]


def test_the_next_line_stays() -> None:
    assert redact(f"Passphrase: {PHRASE}\nthen run make release")[0] == \
        "Passphrase: [REDACTED:secret]\nthen run make release"


#: what a note says of a passphrase, in words that name a secret, its store or its rules
#: (refused as a passphrase by the real CLI at 957f0d33)
DESCRIBED = [
    "GPG passphrase: Release Signing Key",
    "Key passphrase: Bitwarden item release key",
    "passphrase: twelve characters minimum length",
    "wifi passphrase: office guest network password",
    "GPG passphrase: ops team rotates it quarterly",
]


@pytest.mark.parametrize("text", [
    "passphrase: see the vault",
    'passphrase: stored in 1Password under "GPG"',
    "passphrase: none",
    "passphrase: ask Alice",
    "passphrase: the usual one",
    "The key has no passphrase: it is used by CI",
    "passphrase: required for the signing key",
    "ssh key passphrase: empty",
    "passphrase: ${GPG_PASSPHRASE}",
    "passphrase: `gpg --batch --passphrase-fd 0`",
    "passphrase: managed centrally now",
    "passphrase: kept in the team vault under gpg/release",
    "Passphrase: Same as the staging one",
    "passphrase_file: /etc/gpg/pass.txt",
    'passphrase: ENV["GPG_PASSPHRASE"]',
    "  passphrase: !vault |",
    *DESCRIBED,
])
def test_notes_about_a_passphrase_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_keeps_a_note_describing_the_passphrase(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "WAYMARKS_HOME": str(tmp_path / "home"),
           "WAYMARKS_SEMANTIC": "off"}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "pin", "--", DESCRIBED[4]],
                          cwd=project, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Pinned" in done.stdout


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"GPG release signing passphrase: {PHRASE}", PHRASE)


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"GPG release signing passphrase: {PHRASE}",
                              "battery staple", "gpg release signing passphrase",
                              "[REDACTED:secret]")
