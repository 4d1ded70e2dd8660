"""The lines a later pass of ``redact`` reads around each placeholder: found by searching
on from where the search for the placeholder before stopped. Searched from the text's
start (back) and to the line's end (forward) for each placeholder, one long line holding
a credential every few characters cost a square of its length at eaddfd3d (800 KB of
"密码就是 2024.10." repeated: 9.5 s of CPU, 400 KB 2.5 s); the stretches are the same."""

from __future__ import annotations

import random

from waymarks.core import secrets
from waymarks.core.secrets import _AROUND, _around


def _reference(text: str, places: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches as eaddfd3d computed them, a search from the text's start each."""
    stretches: list[tuple[int, int]] = []
    for start, end in places:
        low = text.rfind("\n", 0, max(0, start - _AROUND))
        low = 0 if low <= 0 else text.rfind("\n", 0, low) + 1
        high = text.find("\n", min(len(text), end + _AROUND))
        high = -1 if high == -1 else text.find("\n", high + 1)
        high = len(text) if high == -1 else high
        if stretches and low <= stretches[-1][1]:
            stretches[-1] = (stretches[-1][0], max(stretches[-1][1], high))
        else:
            stretches.append((low, high))
    return stretches


def test_the_stretches_are_those_searched_from_the_start() -> None:
    rng = random.Random(7)
    for _ in range(300):
        size = rng.randrange(1, 9000)
        text = "".join(rng.choice("ab\n" if rng.random() < 0.3 else "abcdefgh ")
                       for _ in range(size))
        cuts = sorted(rng.sample(range(size + 1), min(size + 1, 2 * rng.randrange(0, 12))))
        places = list(zip(cuts[::2], cuts[1::2], strict=True))
        assert _around(text, places) == _reference(text, places), (size, places)


class _Counted(str):
    """A text that adds up how many characters its searches for a line break span."""

    spanned = 0

    def rfind(self, sub: str, start: int | None = None,  # type: ignore[override]
              end: int | None = None) -> int:
        low, high, _ = slice(start, end).indices(len(self))
        _Counted.spanned += max(0, high - low)
        return str.rfind(self, sub, low, high)

    def find(self, sub: str, start: int | None = None,  # type: ignore[override]
             end: int | None = None) -> int:
        low, high, _ = slice(start, end).indices(len(self))
        found = str.find(self, sub, low, high)
        _Counted.spanned += (high if found == -1 else found) - low
        return found


def test_one_long_line_of_placeholders_is_searched_once() -> None:
    size, step = 400_000, 20
    text = _Counted("x" * size)
    places = [(at, at + 10) for at in range(0, size - 10, step)]
    _Counted.spanned = 0
    _around(text, places)
    assert _Counted.spanned <= 4 * size, _Counted.spanned  # (a search each: ~4e9)


def test_redact_of_a_long_line_of_dated_passwords_takes_every_one() -> None:
    text = "密码就是 2024.10.01，" * 2000
    out, count = secrets.redact(text)
    assert count == 2000 and "2024.10.01" not in out
