"""Whether a text holds a Chinese character (the Chinese ways of asking or saying when,
``recall/asked_time.py``) is read from its UTF-8 bytes: a class of the 21,000 characters
cost ~1.3 ms of CPU to compile (``re`` marks each in a 64k-entry map), paid by a one-shot
process's first Chinese question or record (a prompt's hook without its helper)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_lean_paths import _probe

CLASS = re.compile("[\u4e00-\u9fff]")


def test_the_bytes_hold_a_chinese_character_exactly_when_the_text_does() -> None:
    from waymarks.recall.asked_time import holds_han

    # every code point of three bytes or fewer in UTF-8, and each 256th of four (their lead
    # byte F0-F4 is never E4-E9)
    points = [*range(0x10000), *range(0x10000, 0x110000, 256), 0x10FFFF]
    differ = [point for point in points
              if holds_han(chr(point)) != (CLASS.search(chr(point)) is not None)]
    assert differ == []
    for text in ("", "port 5433", "café — naïve", "\ud800 lone", "数据库端口", "ok 一",
                 "\u4dff\u9fff", "\ua000\u3400", "emoji 🚀 and 鿿"):
        assert holds_han(text) == (CLASS.search(text) is not None), text


def test_a_chinese_question_and_record_compile_no_class_of_the_han_range(
        tmp_path: Path) -> None:
    probe = (
        "import re, re._compiler as c\n"
        "seen = []\n"
        "real = c.compile\n"
        "def compile(p, flags=0):\n"
        "    seen.append(p if isinstance(p, str) else '')\n"
        "    return real(p, flags)\n"
        "c.compile = compile\n"
        "from waymarks.recall.asked_time import asks_when, says_time\n"
        "print(asks_when('搜索索引什么时候迁移的？'),"
        " says_time('搜索索引去年三月迁移到了 Postgres。'), asks_when('端口是多少？'))\n"
        "print([p for p in seen if '\u4e00-\u9fff' in p or r'\\u4e00-\\u9fff' in p])\n")
    assert _probe(probe, tmp_path) == ["True True False", "[]"]
