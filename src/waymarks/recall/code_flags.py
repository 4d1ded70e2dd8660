"""A command's flags in a span of code: options of that command, not the work a claim says.

"Build ingest with `cargo build --release`." builds; its `--release` picks the build's
mode, yet read as a word it was the deploy concept, and "how do I deploy ingest?" recalled
the build. A flag ("-x", "--name", "--no-cache") inside backticks is read apart
(:func:`flags_read`): a word of it that is a concept of work done (deploy, test, build …)
is that word alone ("w:release"), while one naming an attribute keeps it
(`--port 8001` still says the port, :data:`~waymarks.recall.vocabulary.ATTRIBUTES`).
Outside code, or joined to a word ("release-it"), nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.recall.vocabulary import ATTRIBUTES

#: a span of code on one line
_CODE: Final = lazy(r"`[^`\n]+`")
#: a flag: one or two dashes after a space or the span's start, then words joined by dashes
_FLAG: Final = lazy(r"(?<![^\s`=])--?([^\W\d_]+(?:-[^\W\d_]+)*)")


def flags_read(text: str, feature_of: Callable[[str], str | None]
               ) -> tuple[str, tuple[tuple[str, int], ...]]:
    """``text`` with each flag inside backticks blanked (positions kept), and the features
    of the flags' words (``feature_of``, a concept of work done as its word alone) with the
    position of their flag."""
    masked: list[str] | None = None
    found: list[tuple[str, int]] = []
    for code in _CODE.finditer(text):
        for flag in _FLAG.finditer(text, code.start(), code.end()):
            for word in flag.group(1).split("-"):
                feature = feature_of(word)
                if feature is None:
                    continue
                if feature.startswith("c:") and feature not in ATTRIBUTES:
                    feature = "w:" + word  # its word: `--release` is no deploy
                found.append((feature, flag.start()))
            if masked is None:
                masked = list(text)
            masked[flag.start():flag.end()] = " " * (flag.end() - flag.start())
    return ("".join(masked) if masked is not None else text), tuple(found)
