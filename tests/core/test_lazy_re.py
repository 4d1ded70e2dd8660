"""Lazy patterns behave as compiled ones, compile on first use only, and every pattern the
modules register is a valid expression (a lazy one would otherwise fail only when used)."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import waymarks
from waymarks.core.lazy_re import _LazyPattern, compile_all, lazy

CASES = [
    (r"(?P<word>[a-z]+)-(\d+)", 0, "see abc-12 and xyz-3, then Q-9"),
    (r"ds4:(normal|local-only)", re.IGNORECASE | re.ASCII, "[DS4:Local-Only] x [ds4:normal]"),
    (r"[\u3400-\u9fff]+", 0, "数据库 port 端口"),
]


@pytest.mark.parametrize(("pattern", "flags", "text"), CASES)
def test_a_lazy_pattern_answers_as_the_compiled_one(pattern: str, flags: int,
                                                    text: str) -> None:
    eager, late = re.compile(pattern, flags), lazy(pattern, flags)
    assert [m.span() for m in late.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert late.findall(text) == eager.findall(text)
    assert late.sub("<>", text) == eager.sub("<>", text)
    assert late.subn("<>", text) == eager.subn("<>", text)
    assert late.split(text) == eager.split(text)
    found, expected = late.search(text, 1), eager.search(text, 1)
    assert found is not None and expected is not None and found.span() == expected.span()
    assert (late.match(text) is None) == (eager.match(text) is None)
    assert (late.pattern, late.flags, late.groups, dict(late.groupindex)) == (
        eager.pattern, eager.flags, eager.groups, dict(eager.groupindex))


def test_it_compiles_on_first_use_only_and_keeps_the_result() -> None:
    # invalid: an eager compile would raise here (made unregistered: compile_all must
    # see only the package's own patterns)
    pattern = _LazyPattern(r"(unbalanced", 0)
    with pytest.raises(re.error):
        pattern.search("x")
    valid = lazy(r"a+")
    assert "search" not in vars(valid)
    assert valid.search("caaat") is not None
    assert "search" in vars(valid), "the compiled method is kept on the object"
    assert valid.search("bbb") is None


def test_every_registered_pattern_of_the_package_compiles() -> None:
    """Import every module (all their module-level patterns register), then compile them
    all: an invalid expression fails here rather than in a user's request."""
    for module in pkgutil.walk_packages(waymarks.__path__, "waymarks."):
        if module.name.endswith("__main__"):
            continue
        importlib.import_module(module.name)
    assert compile_all() >= 40  # the credential rules alone are over forty
