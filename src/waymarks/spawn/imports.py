"""A short-lived process's start and end: msgspec without ``typing_extensions``; no
cyclic GC; an end without the interpreter's teardown.

msgspec's import tries ``typing_extensions`` (installed beside Waymarks: the MCP SDK needs
it) for ``get_type_hints``, ``Required`` and ``NotRequired``, and takes ``typing``'s when
it cannot. That import costs a hook or a one-shot ``waymarks recall`` 7-13 ms of its
80-130 (``inspect``, ``ast``, ``dis`` come with it) for nothing on the Pythons Waymarks
supports: from 3.11 on, ``Required`` and ``NotRequired`` are ``typing``'s own, and its
``get_type_hints(..., include_extras=True)``, what msgspec asks for, returns ``typing``'s
result unchanged. So the entry points of short-lived processes import msgspec first, with
``typing_extensions`` made unimportable for the length of that one import; anything
importing ``typing_extensions`` later loads it as usual.

msgspec's package also imports, at its own import, submodules Waymarks never uses: schema
inspection (``msgspec.inspect``: ~40 classes), MessagePack, TOML and YAML (1.5-2.5 ms of
a one-shot recall). For that one import each is a stand-in in ``sys.modules`` that
imports the real module when any attribute of it is first read (then the package's
attribute is the real module), so they load only if something uses them.
"""

import gc
import sys
from types import ModuleType

#: the module msgspec takes from ``typing`` instead
_SKIPPED = "typing_extensions"
#: msgspec's submodules its package imports and Waymarks never uses (see above)
_DEFERRED = ("msgspec.inspect", "msgspec.msgpack", "msgspec.toml", "msgspec.yaml")


class _Deferred(ModuleType):
    """Stands in for a module until an attribute of it is read: then the module is
    imported and the attribute read from it (a stand-in another module kept a reference
    to forwards every read)."""

    def __getattr__(self, attribute: str) -> object:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        __import__(name)  # (sets the package's attribute to the real module)
        return getattr(sys.modules[name], attribute)


def import_msgspec() -> None:
    """Import msgspec without ``typing_extensions``, unless either is imported already
    (then nothing changes). Call it before the process starts a thread: one importing
    ``typing_extensions`` meanwhile would find it missing."""
    modules = sys.modules
    if "msgspec" in modules or _SKIPPED in modules:
        return
    modules[_SKIPPED] = None  # type: ignore[assignment]  # importing it raises ImportError
    for name in _DEFERRED:
        modules.setdefault(name, _Deferred(name))
    try:
        import msgspec  # noqa: F401
    finally:
        if _SKIPPED in modules and modules[_SKIPPED] is None:
            del modules[_SKIPPED]


class short_lived:  # named as it is used: ``with short_lived():``
    """The cyclic garbage collector off for the block, as it was after it.

    A one-shot process (a recall, a hook without its helper) creates most of its objects
    importing ~200 modules, and the collector ran 28 times meanwhile (25 young, 3 middle
    generation collections: ~5 ms of a 50 ms recall, measured with ``gc.callbacks``), each
    finding almost nothing: modules, classes and functions live until the process ends.
    Reference counting still frees everything else. Long-lived paths (the MCP server, the
    full command line's servers and workers) never run under it."""

    def __enter__(self) -> None:
        self._collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *_: object) -> None:
        if self._collecting:
            gc.enable()


def end_process(status: int) -> None:
    """End this one-shot process now with exit ``status``, its output written, without the
    interpreter's teardown; return (the caller exits as usual) while a thread still runs.

    After its answer is printed and its service closed, a one-shot recall spent 10-15 ms
    (of ~120) in the teardown: unloading ~200 modules and collecting every object they
    made, none of which holds anything to write. What the teardown does that matters is
    done here: standard output and error are flushed and the ``atexit`` functions run.
    Only a caller that owns the process and has closed what it opened may call it (the
    CLI's entry point, for a one-shot recall). It returns, and the process exits as usual,
    while a thread started with :mod:`threading` runs (the teardown waits for it) and when
    a stream cannot be flushed (a reader that left, a full disk: the teardown reports it
    as it always did)."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # (ValueError: a stream closed meanwhile)
        return
    import atexit
    import os

    atexit._run_exitfuncs()
    os._exit(status)
