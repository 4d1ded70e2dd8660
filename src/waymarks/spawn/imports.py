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

Two imports take a module for one function they may never call: msgspec's ``uuid`` takes
``platform`` (~2 ms: it compiles its expressions at import) for ``platform.system()``,
asked once to tell Linux and AIX apart, and its JSON Schema module (``textwrap`` and
``__future__`` with it) for ``msgspec.json.schema``; ``pathlib`` takes ``urllib.parse``
(``ipaddress`` with it, ~3 ms) for ``Path.as_uri``. For the length of that import such a
module is a stand-in offering the function: ``platform.system()`` answered as it answers
on a POSIX system (``os.uname()``'s system name; the others are forwarded), the rest
forwarded to the real module, imported at the first call. The stand-ins leave
``sys.modules`` after the import, so a later ``import`` gets the real module.
"""

import gc
import sys
from types import ModuleType

TYPE_CHECKING = False  # not typing's: imported on the hook's path
if TYPE_CHECKING:
    from collections.abc import Callable

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


def _forwarded(module: str, name: str) -> "Callable[..., object]":
    """``module``'s function ``name``, imported at the first call."""

    def call(*args: object, **kwargs: object) -> object:
        function: Callable[..., object] = getattr(_Deferred(module), name)
        return function(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


def _system() -> str:
    """``platform.system()`` on a POSIX system (what ``uuid`` asks at its import)."""
    import os

    return os.uname().sysname


class _Offering(_Deferred):
    """A stand-in for the length of one import: what the import machinery asks of a
    module it imports from (``__path__``, is it a package?) is answered from the
    stand-in, never by importing the real module."""

    def __getattr__(self, attribute: str) -> object:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return super().__getattr__(attribute)


def _stand_in(module: str, **functions: "Callable[..., object]") -> _Deferred:
    """A stand-in for ``module`` offering ``functions`` (the rest forwarded)."""
    made = _Offering(module)
    for name, function in functions.items():
        setattr(made, name, function)
    return made


class _standing_in:  # named as it is used: ``with _standing_in(...):``
    """For the block, the given stand-ins in ``sys.modules`` for modules not imported
    yet (see the module); after it, out of it again."""

    def __init__(self, *stand_ins: _Deferred) -> None:
        self._stand_ins = [s for s in stand_ins if s.__name__ not in sys.modules]

    def __enter__(self) -> None:
        for stand_in in self._stand_ins:
            sys.modules[stand_in.__name__] = stand_in

    def __exit__(self, *_: object) -> None:
        for stand_in in self._stand_ins:
            if sys.modules.get(stand_in.__name__) is stand_in:
                del sys.modules[stand_in.__name__]


def import_pathlib() -> None:
    """Import ``pathlib`` without ``urllib.parse`` (see the module); nothing changes when
    it is imported already."""
    if "pathlib" in sys.modules:
        return
    quote = _forwarded("urllib.parse", "quote_from_bytes")
    with _standing_in(_stand_in("urllib.parse", quote_from_bytes=quote)):
        import pathlib  # noqa: F401


class _probe_answered:  # named as it is used: ``with _probe_answered():``
    """For the block, ``typing.ForwardRef("Foo", is_class=True)`` answers without making
    one: msgspec's import asks it only to learn whether the signature takes ``is_class``
    (from Python 3.11 on it does, so no ``TypeError``) and throws the answer away, but a
    ForwardRef compiles its text, and a process's first ``compile()`` sets up every node
    type of the ``ast`` module (~9.3M instructions, 3 % of a hook without its helper,
    which compiles nothing else). Any other call makes a ForwardRef as usual."""

    def __enter__(self) -> None:
        import typing  # (msgspec's import takes it anyway)

        self._typing = typing
        self._real = real = typing.ForwardRef

        def answered(arg: object, *args: object, **kwargs: object) -> object:
            if arg == "Foo" and not args and kwargs == {"is_class": True}:
                return None  # (the probe's: discarded)
            return real(arg, *args, **kwargs)  # type: ignore[arg-type]

        self._answered = answered
        typing.ForwardRef = answered  # type: ignore[misc, assignment]

    def __exit__(self, *_: object) -> None:
        if self._typing.ForwardRef is self._answered:
            self._typing.ForwardRef = self._real  # type: ignore[misc]


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
    schema = "msgspec._json_schema"
    try:
        with _probe_answered(), _standing_in(_stand_in("platform", system=_system),
                          _stand_in(schema, schema=_forwarded(schema, "schema"),
                                    schema_components=_forwarded(schema,
                                                                 "schema_components"))):
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


def end_process(status: int, *, leaving_threads: bool = False) -> None:
    """End this one-shot process now with exit ``status``, its output written, without the
    interpreter's teardown; return (the caller exits as usual) while a thread still runs.

    After its answer is printed and its service closed, a one-shot recall spent 10-15 ms
    (of ~120) in the teardown: unloading ~200 modules and collecting every object they
    made, none of which holds anything to write. What the teardown does that matters is
    done here, in its order: the ``atexit`` functions run, then standard output and error
    are flushed (flushed first, a line an ``atexit`` function wrote to a piped, so
    buffered, standard output was lost).
    Only a caller that owns the process and has closed what it opened may call it (the
    CLI's entry point, for a one-shot recall). It returns, and the process exits as usual,
    while a thread started with :mod:`threading` runs (the teardown waits for it) and when
    a stream cannot be flushed (a reader that left, a full disk: the teardown reports it
    as it always did). ``leaving_threads``: end it while threads run, too (the inspector
    stopped by a second Ctrl-C: a page's work waiting out a database another process
    holds, which nothing can interrupt, kept the process 30 s more)."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1 and not leaving_threads:
        return
    import atexit
    import os

    atexit._run_exitfuncs()  # (and forgotten: the exit a failed flush leaves to runs none)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # (ValueError: a stream closed meanwhile)
        return
    os._exit(status)
