"""The pre-test's cost on clean prose, counted in substring searches (not timed).

``might_contain_secret`` decides nearly every rendered item, and on text without a
credential every check it holds runs: each search for a literal of two characters or
more scans the whole text. Counted through a ``str`` whose ``in`` is tallied, so the
figure does not depend on the machine's load."""

from __future__ import annotations

from waymarks.core.secret_pretest import might_contain_secret

#: a claim of a coding project with no credential nor any word a rule looks for
_PROSE = ("The user prefers tabs in Go files. Deploy with scripts/deploy.sh after the "
          "review. Prefer small modules - one idea each. See docs/arch.md for the layer "
          "rules. CI fails on ruff warnings: fix them first.")


class _Counted(str):
    """A text whose searches for literals of two characters or more are counted."""

    searches: list[str]

    def __contains__(self, needle: object) -> bool:
        if isinstance(needle, str) and len(needle) > 1:
            _Counted.searches.append(needle)
        return str.__contains__(self, needle)  # type: ignore[operator]

    def lower(self) -> str:
        return _Counted(str.lower(self))

    def casefold(self) -> str:
        return _Counted(str.casefold(self))


def test_clean_prose_is_decided_with_few_substring_searches() -> None:
    _Counted.searches = []
    assert not might_contain_secret(_Counted(_PROSE))
    # each word another literal holds is looked for once, and a spaced dash is no flag
    # (66 searches before, "secret" three times, each flag's words for " - "; 40 now)
    assert len(_Counted.searches) <= 45, _Counted.searches
    assert len(set(_Counted.searches)) == len(_Counted.searches), _Counted.searches


def test_the_counted_text_is_still_read() -> None:
    assert might_contain_secret(_Counted(_PROSE + " The DB password is Xk9vQ2mR7tLp."))
