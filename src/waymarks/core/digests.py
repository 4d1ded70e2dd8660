"""Hash constructors that do not load OpenSSL.

Why: ``import hashlib`` loads the OpenSSL bindings (``_hashlib``) whatever function is
then used, about 6 ms of every new process's start on this machine, and a one-shot
``waymarks recall`` or hook is a new process. ``hashlib.blake2b`` is CPython's own
``_blake2`` implementation in any case (OpenSSL's is never preferred for BLAKE2), so
taking it from there gives the same digests without the load; so does CPython's own
SHA-256 (``_sha256``, ``_sha2`` from 3.12), which hashes the short texts Waymarks derives
IDs and keys from as fast as OpenSSL's. If an interpreter lacks the module, ``hashlib``
is the fallback. Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - every CPython build this project supports has it
    from hashlib import blake2b

if TYPE_CHECKING:
    from collections.abc import Callable
    from hashlib import _Hash

_SHA256: list[Callable[[bytes], _Hash]] = []


def sha256(data: bytes = b"", /) -> _Hash:
    """The SHA-256 hash object of ``data``, as ``hashlib.sha256`` makes it (its module
    imported at the first call: most processes hash nothing with it)."""
    if not _SHA256:
        try:
            from _sha256 import sha256 as made  # type: ignore[import-not-found]
        except ImportError:  # pragma: no cover - 3.12 and later name it _sha2
            try:
                from _sha2 import sha256 as made  # type: ignore[import-not-found]
            except ImportError:
                from hashlib import sha256 as made
        _SHA256.append(made)
    return _SHA256[0](data)


__all__ = ["blake2b", "sha256"]
