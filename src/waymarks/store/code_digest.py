"""A digest of the code a derived table was written by, kept beside its rows so that rows
another version of that code wrote are noticed and redone (the claims' subject index,
the recall index).

The digest is of the modules' sources: a change to the rules changes it, whatever the
release says (an editable install, a ``git pull``). Where the sources cannot be read (an
installation without them), the release stands for them."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from waymarks.core.digests import blake2b


def sources_digest(*modules: ModuleType) -> str:
    """A short digest of ``modules``' source files. Callers take it when the modules are
    imported, once: an upgrade changes the files under a running interpreter, whose code
    is still the old one, so a digest read later would name code it does not run."""
    try:
        sources = b"".join(Path(module.__file__ or "").read_bytes() for module in modules)
    except OSError:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return "release " + version("waymarks")
        except PackageNotFoundError:
            return "unknown"  # no better witness: rows are kept as they are
    return blake2b(sources).hexdigest()[:16]
