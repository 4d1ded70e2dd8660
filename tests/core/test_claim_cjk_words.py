"""The subject words of a claim's Chinese, kana and Hangul (core/claim_cjk_words.py): an
ASCII claim costs no expression, and what the tables hold is what they held."""

from __future__ import annotations

import subprocess
import sys


def test_an_ascii_claim_compiles_no_expression_and_cjk_ones_read_as_before() -> None:
    """Every claim's signature asks for its CJK words: an English one compiled the three
    expressions (and the module's import the Hangul one, and walked the vocabulary once
    per first character: ~2 ms of a learned home's hook) to find none."""
    probe = (
        "from waymarks.core import claim_cjk_words as c\n"
        "from waymarks.core.claim_terms import HAN_STOP_WORDS, STATES, TERMS\n"
        "assert c.cjk_terms('The staging database port is 5433, not 5432.') == set()\n"
        "print(sorted(n for n in ('_HAN_RUN', '_KATAKANA', '_HANGUL')"
        " if 'match' in getattr(getattr(c, n), '__dict__', 'match')))\n"
        "han = sorted({w for w in (*TERMS, *STATES, *HAN_STOP_WORDS) if not w.isascii()},"
        " key=len, reverse=True)\n"
        "assert c._HAN_WORDS_BY_FIRST == {f: tuple(w for w in han if w[0] == f)"
        " for f in {w[0] for w in han}}\n"
        "import re\n"
        "assert c._HANGUL_STATES == tuple(w for w in STATES"
        " if re.fullmatch(r'[\\uac00-\\ud7a3]+', w))\n"
        "print(sorted(c.cjk_terms('数据库端口是5433; データベースのポートは;'\n"
        "                         ' 데이터베이스 포트는')))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    first, terms = done.stdout.splitlines()
    assert first == "[]"
    assert terms == "['database', 'port']"  # (what it read before too)
