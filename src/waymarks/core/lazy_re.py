"""Regular expressions compiled on first use, not at import.

Why: a one-shot ``waymarks recall`` or a Claude Code hook is a new process, and compiling
every module-level expression at import (the credential rules alone are over a hundred
alternatives) cost more than the request itself. Most of them are never used by a given
request: the secret rules run only when a cheap pre-test finds a candidate, the
classification markers only when a text holds ``4:``.

:func:`lazy` returns an object that behaves as the compiled :class:`re.Pattern` for every
method and attribute; the first access compiles it and stores the compiled pattern's bound
methods on the object, so later calls cost exactly what a compiled pattern's do.

What must stay true: a lazy pattern is indistinguishable in use from ``re.compile`` with
the same arguments (``tests/core/test_lazy_re.py``); an invalid expression raises
``re.error`` on first use, so the tests compile every registered pattern
(:func:`compile_all`). Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any, Final, cast

#: what a compiled pattern offers; copied onto the lazy object when it compiles
_ATTRIBUTES: Final = ("search", "match", "fullmatch", "sub", "subn", "finditer", "findall",
                      "split", "scanner", "pattern", "flags", "groups", "groupindex")
#: every lazy pattern made, for :func:`compile_all` (tests)
_MADE: Final[list[_LazyPattern]] = []


class _LazyPattern:
    """Stands in for ``re.compile(pattern, flags)`` until first used."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.__dict__["_source"] = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        """Only called for what the instance does not hold yet: compile, then keep."""
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.compiled()
        return getattr(compiled, name)

    def compiled(self) -> re.Pattern[str]:
        pattern, flags = self.__dict__["_source"]
        compiled = re.compile(pattern, flags)
        for attribute in _ATTRIBUTES:
            self.__dict__[attribute] = getattr(compiled, attribute)
        return compiled

    def __repr__(self) -> str:
        pattern, flags = self.__dict__["_source"]
        return f"lazy({pattern!r}, {flags})"


def lazy(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled on first use (typed as the pattern it
    stands for: every method and attribute of one works on it)."""
    made = _LazyPattern(pattern, int(flags))
    _MADE.append(made)
    return cast("re.Pattern[str]", made)


def compile_all() -> int:
    """Compile every lazy pattern made so far (tests: an invalid one raises ``re.error``);
    how many there are."""
    for made in _MADE:
        made.compiled()
    return len(_MADE)
