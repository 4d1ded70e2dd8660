"""msgspec imported without ``typing_extensions`` (``waymarks.spawn.imports``): the same
msgspec, and ``typing_extensions`` importable as usual afterwards."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
{before}
from waymarks.spawn.imports import import_msgspec
import_msgspec()
skipped = 'typing_extensions' not in sys.modules
from typing import Annotated, NotRequired, TypedDict
import msgspec

class Row(TypedDict):
    id: str
    note: NotRequired[Annotated[str, msgspec.Meta(max_length=3)]]

class Item(msgspec.Struct):
    rows: list[Row]
    size: Annotated[int, msgspec.Meta(ge=0)] = 0

item = msgspec.json.decode(b'{{"rows": [{{"id": "a"}}, {{"id": "b", "note": "ok"}}]}}',
                           type=Item)
assert item.rows == [{{"id": "a"}}, {{"id": "b", "note": "ok"}}] and item.size == 0
for bad in (b'{{"rows": [{{"id": "b", "note": "long"}}]}}', b'{{"rows": [], "size": -1}}',
            b'{{"rows": [{{"note": "x"}}]}}'):
    try:
        msgspec.json.decode(bad, type=Item)
    except msgspec.ValidationError:
        pass
    else:
        raise AssertionError(bad)
import typing_extensions
assert typing_extensions.NotRequired is NotRequired
print(skipped)
"""


def run(before: str = "") -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(before=before)],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_msgspec_comes_without_typing_extensions_and_decodes_alike() -> None:
    """Required and optional keys, constraints inside ``Annotated``: what msgspec reads
    through ``get_type_hints(include_extras=True)``, the call it takes from ``typing``."""
    assert run() == "True"


def test_nothing_changes_when_either_was_imported_before() -> None:
    assert run("import typing_extensions") == "False"
    assert run("import msgspec") == "False"  # msgspec imported it itself


DEFERRED = """
import sys
from waymarks.spawn.imports import import_msgspec
import_msgspec()
import msgspec
NAMES = ('msgspec.inspect', 'msgspec.msgpack', 'msgspec.toml', 'msgspec.yaml')
def real():
    return [n for n in NAMES if '__file__' in vars(sys.modules[n])]
print(real())

class Item(msgspec.Struct):
    id: str
    size: int = 0

item = Item("a", 2)
assert msgspec.json.decode(msgspec.json.encode(item), type=Item) == item
assert msgspec.structs.replace(item, size=3).size == 3
print(real())
schema = msgspec.json.schema(Item)  # msgspec's JSON Schema reads msgspec.inspect
assert schema["$defs"]["Item"]["required"] == ["id"], schema
import msgspec.inspect as mi
assert mi is msgspec.inspect is sys.modules['msgspec.inspect']
assert isinstance(mi.type_info(Item), mi.StructType)
from msgspec.msgpack import decode, encode
assert decode(encode(item), type=Item) == item
import msgspec.yaml, msgspec.toml
assert callable(msgspec.yaml.decode) and callable(msgspec.toml.decode)
print(real())
"""


def test_msgspecs_unused_submodules_load_when_first_used() -> None:
    """msgspec.inspect, .msgpack, .toml and .yaml are not loaded by the import (nor by
    encoding, decoding and replacing Structs); each loads, and works, when first used."""
    done = subprocess.run([sys.executable, "-c", DEFERRED], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    names = "['msgspec.inspect', 'msgspec.msgpack', 'msgspec.toml', 'msgspec.yaml']"
    assert done.stdout.split("\n") == ["[]", "[]", names, ""]


def test_short_lived_turns_the_collector_off_and_back_as_it_was() -> None:
    import gc

    from waymarks.spawn.imports import short_lived

    was = gc.isenabled()
    try:
        for before in (True, False):
            (gc.enable if before else gc.disable)()
            with short_lived():
                assert not gc.isenabled()
            assert gc.isenabled() is before
        gc.enable()
        try:
            with short_lived():
                raise KeyError("a failing block")
        except KeyError:
            pass
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


COLLECTIONS = """
import contextlib, gc, io, sys
seen = []
gc.callbacks.append(lambda phase, info: phase == "start" and seen.append(info["generation"]))
from waymarks.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(["memory", "add", "--", "The database port is 5433."])
assert status == 0, out.getvalue()
full = len(seen)
with contextlib.redirect_stdout(out):
    status = main(["recall", "what is the database port?"])
assert status == 0 and "5433" in out.getvalue(), out.getvalue()
print(full > 0, len(seen) - full, gc.isenabled())
"""


@pytest.mark.slow  # 0.7 s or more in two runs on a loaded machine: past the lane's 0.3 s
def test_a_one_shot_recall_never_runs_the_collector(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The full CLI (a write here) keeps the collector; a one-shot recall runs without it
    (it ran 28 times while the modules loaded, for nothing) and leaves it as it found it."""
    import os

    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"), "WAYMARKS_CC_HELPER": "off",
           "WAYMARKS_SEMANTIC": "off"}
    done = subprocess.run([sys.executable, "-c", COLLECTIONS], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "0", "True"]


ENDING = """
import atexit, os, sys, threading, time
from waymarks.cli.main import main

class Teardown:
    def __del__(self, write=os.write):  # (the teardown may have emptied the modules)
        write(2, b"teardown ran\\n")

kept = Teardown()  # freed only by the interpreter's teardown
atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
if {thread}:
    def wait_for_the_main_thread():  # (it stops when the interpreter begins to exit)
        while threading.main_thread().is_alive():
            time.sleep(0.01)
        sys.stderr.write("thread ran\\n")
    threading.Thread(target=wait_for_the_main_thread).start()
sys.argv = ["waymarks", *{argv!r}]
sys.exit(main())
"""


def _ending(tmp_path, argv: list[str], thread: bool = False,  # type: ignore[no-untyped-def]
            stdout: object = subprocess.PIPE):
    import os

    env = {**os.environ, "WAYMARKS_HOME": str(tmp_path / "home"), "WAYMARKS_CC_HELPER": "off",
           "WAYMARKS_SEMANTIC": "off"}
    return subprocess.run([sys.executable, "-c", ENDING.format(argv=argv, thread=thread)],
                          cwd=tmp_path, env=env, stdout=stdout, stderr=subprocess.PIPE,
                          text=True, timeout=120)


@pytest.mark.slow
def test_a_one_shot_recall_ends_its_process_without_the_teardown(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Run as the process's own command line (``main()``), a recall's answer is written
    whole, its exit status kept and the ``atexit`` functions run, but the interpreter's
    teardown (10-15 ms) does not: the object it would free is never finalised. A failing
    recall ends alike with its own status; any other command keeps the teardown."""
    added = _ending(tmp_path, ["memory", "add", "--", "The database port is 5433."])
    assert added.returncode == 0, added.stderr
    assert added.stderr.split("\n") == ["atexit ran", "teardown ran", ""]
    done = _ending(tmp_path, ["recall", "what is the database port?"])
    assert (done.returncode, done.stderr) == (0, "atexit ran\n")
    assert "5433" in done.stdout and done.stdout.endswith("[END WAYMARKS RECALLED MEMORY]\n")
    failed = _ending(tmp_path, ["--cwd", str(tmp_path / "missing"), "recall", "port"])
    assert failed.returncode == 2
    assert failed.stderr.endswith("the current directory\natexit ran\n"), failed.stderr


def test_a_running_thread_keeps_the_teardown(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A thread still running when the answer is written is waited for, as the teardown
    waits for it: the process does not end under it."""
    done = _ending(tmp_path, ["recall", "what is the database port?"], thread=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.split("\n") == ["thread ran", "atexit ran", "teardown ran", ""]


@pytest.mark.slow
def test_an_answer_that_cannot_be_written_is_reported_without_a_traceback(
        tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Standard output on a full disk (``> /dev/full``): the recall says its answer was
    not shown and keeps its status, as before; no traceback."""
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    added = _ending(tmp_path, ["memory", "add", "--", "The database port is 5433."])
    assert added.returncode == 0, added.stderr
    with open("/dev/full", "w") as full:
        done = _ending(tmp_path, ["recall", "what is the database port?"], stdout=full)
    assert done.returncode == 0, done.stderr
    assert "standard output cannot be written" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.endswith("atexit ran\n")


STAND_INS = """
import sys
from waymarks.spawn.imports import import_msgspec, import_pathlib
import_msgspec()
import_pathlib()
NAMES = ('platform', 'textwrap', 'msgspec._json_schema', 'urllib.parse', 'ipaddress')
print(sorted(n for n in NAMES if n in sys.modules))
import msgspec, uuid
from pathlib import Path

class Item(msgspec.Struct):
    id: str

assert msgspec.json.schema(Item)["$defs"]["Item"]["required"] == ["id"]
assert msgspec.json.schema_components([Item])[1]["Item"]["required"] == ["id"]
assert Path("/tmp/a b#").as_uri() == "file:///tmp/a%20b%23"
import platform, urllib.parse, msgspec._json_schema as js
assert uuid._LINUX == (platform.system() == "Linux") and platform.python_version()
assert urllib.parse.urlsplit("https://h/p").netloc == "h" and callable(js.schema)
assert uuid.UUID(int=5).hex.endswith("5")
print(sorted(n for n in NAMES if '__file__' in vars(sys.modules[n])))
"""


def test_msgspec_and_pathlib_come_without_the_modules_they_take_for_one_function(
        ) -> None:
    """``platform`` (for ``uuid``'s one question), msgspec's JSON Schema (``textwrap``
    with it), and ``urllib.parse`` (``ipaddress`` with it, for ``Path.as_uri``) cost a
    hook ~6 ms and load now only when used: each works then, imported for real."""
    done = subprocess.run([sys.executable, "-c", STAND_INS], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    names = ["ipaddress", "msgspec._json_schema", "platform", "textwrap", "urllib.parse"]
    assert done.stdout.split("\n") == ["[]", str(names), ""]
