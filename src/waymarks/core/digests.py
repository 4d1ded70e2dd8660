"""Hash constructors that do not load OpenSSL.

Why: ``import hashlib`` loads the OpenSSL bindings (``_hashlib``) whatever function is
then used, about 6 ms of every new process's start on this machine, and a one-shot
``waymarks recall`` or hook is a new process. ``hashlib.blake2b`` is CPython's own
``_blake2`` implementation in any case (OpenSSL's is never preferred for BLAKE2), so
taking it from there gives the same digests without the load. If an interpreter lacks
the module, ``hashlib`` is the fallback. Pure: no I/O.
"""

from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - every CPython build this project supports has it
    from hashlib import blake2b

__all__ = ["blake2b"]
