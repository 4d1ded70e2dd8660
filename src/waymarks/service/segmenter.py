"""Which segmenter cuts Chinese for recall's analysis, named without loading it.

:mod:`waymarks.recall.analysis` imports rjieba at the first Han run it meets (its
dictionary costs ~140 ms of CPU). A process that analyses no Chinese (a prompt hook, an
English prompt) must still tell whether the stored analyses of learned claims were made
by its own analyser, whose fingerprint therefore names the segmenter instead of running
it: ``rjieba VERSION`` (the version from its installed metadata's folder name),
``rjieba`` when no such folder is beside it, ``bigrams`` (the analysis's fallback) when it
cannot be imported. What must stay true: the name changes when the segmenter the analysis
would use does (installed, removed, upgraded), and never depends on whether it is loaded.
"""

from __future__ import annotations

import os
from importlib.util import find_spec


def installed_version(name: str) -> str | None:
    """The version of the importable top-level package ``name`` by its ``NAME-VERSION
    .dist-info`` folder beside it ("" when there is not exactly one); None when it
    cannot be found. Nothing is imported."""
    spec = find_spec(name)
    if spec is None:
        return None
    places = spec.submodule_search_locations or ([spec.origin] if spec.origin else [])
    versions = set()
    for place in places:
        folder = os.path.dirname(os.path.abspath(place))
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        versions |= {n[len(name) + 1:-len(".dist-info")] for n in names
                     if n.startswith(name + "-") and n.endswith(".dist-info")}
    return versions.pop() if len(versions) == 1 else ""


def segmenter() -> str:
    """The name of the segmenter the analysis cuts Chinese with (see the module)."""
    version = installed_version("rjieba")
    if version is None:
        return "bigrams"
    return f"rjieba {version}" if version else "rjieba"
