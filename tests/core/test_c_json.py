"""``core.c_json`` is ``json.loads`` and ``json.dumps(value, ensure_ascii=False)`` byte for
byte (values, and the exception and its words for input ``json`` refuses), without the
``json`` package imported for what the hook's process reads and writes."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from functools import partial

import pytest

from waymarks.core import c_json

#: characters that JSON escapes, or that its readers trip on
ALPHABET = ('a', '"', '\\', '\n', '\t', '\x00', '\x1f', '\x7f', 'é', '中', '\u2028', '\ud83d',
            '😀', ' ', '{', '}', '[', ']', ':', ',', '1', '-', '.', 'e', 'N', 'n', 't', 'r',
            'u', '\ufeff', '\r', 'I', '\x0b')


def _value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(8 if depth < 4 else 4)
    if kind == 0:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(6)))
    if kind == 1:
        return rng.choice([None, True, False])
    if kind == 2:
        return rng.randrange(-10**20, 10**20)
    if kind == 3:
        return rng.choice([1.5, float("nan"), -0.0, 1e300])
    if kind in (4, 5):
        return {"".join(rng.choice(ALPHABET) for _ in range(3)): _value(rng, depth + 1)
                for _ in range(rng.randrange(4))}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _outcome(call: object, argument: object) -> str:
    try:
        return repr(("value", call(argument)))  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 (the exception is what is compared)
        return repr(("raised", type(exc), str(exc)))


def _walked(value: object, sort_keys: bool) -> str:
    """``c_json.dumps`` as a process without the ``json`` package runs it (the hook's)."""
    saved = sys.modules.pop("json")
    try:
        return c_json.dumps(value, sort_keys=sort_keys)
    finally:
        sys.modules["json"] = saved


def test_the_same_text_and_values_as_json() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        value = _value(rng)
        sort_keys = rng.random() < 0.5
        written = _outcome(partial(json.dumps, ensure_ascii=False, sort_keys=sort_keys), value)
        assert _outcome(partial(_walked, sort_keys=sort_keys), value) == written
        text = json.dumps(value, ensure_ascii=False)
        if rng.random() < 0.5:  # one character changed: mostly input json refuses
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice(ALPHABET) + text[at + 1:]
        text = rng.choice(["", " ", "\n", "\ufeff", "\x0b"]) + text + \
            rng.choice(["", " ", "\r\n", "x", "\x0b"])
        for given in (text, text.encode("utf-8", "surrogatepass"),
                      text.encode("utf-16", "surrogatepass")):
            assert _outcome(c_json.loads, given) == _outcome(json.loads, given), given


def _python(lines: list[str]) -> subprocess.CompletedProcess[str]:
    """``lines`` run as a program of a new interpreter (its output captured)."""
    return subprocess.run([sys.executable, "-c", "\n".join(lines)], capture_output=True,
                          text=True, timeout=60)


def test_a_process_reading_and_writing_json_imports_no_json_package() -> None:
    lines = ["import sys",
             "from waymarks.core.c_json import dumps, loads",
             "value = loads(b'{\"a\": [1, \"\\\\ud83d\", null]}')",
             "text = dumps({'b': '\\u00e9', 'a': value}, sort_keys=True)",
             "print(ascii(text), 'json' in sys.modules)"]
    done = _python(lines)
    assert (done.returncode, done.stdout.strip()) == (
        0, """'{"a": {"a": [1, "\\ud83d", null]}, "b": "\\xe9"}' False"""), done.stderr


def test_a_process_that_imported_json_has_json_write_the_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan's log line in a process that already has ``json`` (the CLI, a helper): its C
    encoder writes the whole value in one call, the same text as the walk through ``_json``'s
    string encoder, which calls a Python function for every value inside."""
    calls: list[tuple[object, bool, bool]] = []
    real = json.dumps

    def recorded(value: object, *, ensure_ascii: bool, sort_keys: bool) -> str:
        calls.append((value, ensure_ascii, sort_keys))
        return real(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys)

    monkeypatch.setattr(json, "dumps", recorded)
    record = {"ts": "2026-12-07T14:00:00+00:00", "event": "plan", "included": ["m1", "é"],
              "excluded": [{"id": "m2", "reason": "not relevant"}], "fallback": False}
    text = c_json.dumps(record, sort_keys=True)
    assert calls == [(record, False, True)]
    assert text == real(record, ensure_ascii=False, sort_keys=True)


def test_a_large_value_is_written_by_json_after_a_bounded_walk() -> None:
    """``waymarks --json pins`` of 24,814 pins walked every value in Python (0.30 s of CPU
    of the command's 1.4 s); past ``WALK_PARTS`` parts the value is handed to ``json``'s C
    encoder, the same text. A small value (a hook's answer) is still walked, no ``json``."""
    lines = ["import sys",
             "from waymarks.core import c_json",
             "calls = [0]",
             "walk = c_json._encoded",
             "def counted(*args):",
             "    calls[0] += 1",
             "    return walk(*args)",
             "c_json._encoded = counted",
             "small = c_json.dumps({'a': ['x', 1, None]})",
             "small_calls, small_json = calls[0], 'json' in sys.modules",
             "big = [{'id': str(n), 'text': 'pin ' * 3, 'applies': True} for n in range(20000)]",
             "text = c_json.dumps({'items': big})",
             "import json",
             "same = text == json.dumps({'items': big}, ensure_ascii=False)",
             "print(small, small_calls, small_json, calls[0] - small_calls, same, sep='|')"]
    done = _python(lines)
    assert done.returncode == 0, done.stderr
    small, small_calls, small_json, big_calls, same = done.stdout.strip().split("|")
    assert (small, small_calls, small_json) == ('{"a": ["x", 1, null]}', "5", "False")
    # the walk stops within its budget (WALK_PARTS parts, fewer values), not at the
    # 80,002 values the whole value holds
    assert int(big_calls) <= 16384 + 64
    assert same == "True"
