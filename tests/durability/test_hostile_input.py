"""Hostile input never escapes as a traceback, and a refusal never writes.

Property tests (hypothesis) over the CLI's arguments, the ``context`` string, the session
file reader and the mutation codec as the reader applies it:

- ``main(["--json", ...])`` returns 0, 1 or 2, prints exactly one JSON document, an error
  or refusal carries ``outcome``/``code``/``message``, nothing escapes ``main`` and, on a
  refusal (2), no session file and no trust list changed by a single byte;
- ``SessionFile.open`` skips and counts every garbage line, reads every valid entry after
  it, and the service's ``health()`` and ``items()`` work on such files;
- every payload of our custom types becomes a record, an ``unknown`` or a ``malformed``
  anomaly, on the fast path and the general path alike.

Defects these tests found are kept as regression tests at the end of the file.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import operator
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import (
    HealthCheck,
    assume,
    currently_in_test_context,
    event,
    example,
    given,
    settings,
)
from hypothesis import strategies as st

from tests.inprocess import waymarks
from tests.lanes import lanes
from waymarks.cli.app import build_root
from waymarks.cli.main import main
from waymarks.commands.base import CommandInfo, walk
from waymarks.core.codec import MalformedPayload, UnknownPayload, decode_payload
from waymarks.core.model import MEMORY_CUSTOM_TYPE, PIN_CUSTOM_TYPE
from waymarks.ledger.identity import canonical_project_path
from waymarks.ledger.session_file import SessionFile
from waymarks.service.app import Waymarks

CLI_SETTINGS = settings(max_examples=300, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
READER_SETTINGS = settings(max_examples=250, deadline=None,
                           suppress_health_check=[HealthCheck.too_slow,
                                                  HealthCheck.data_too_large])
SERVICE_SETTINGS = settings(max_examples=60, deadline=None,
                            suppress_health_check=[HealthCheck.too_slow,
                                                   HealthCheck.data_too_large])

# -- the CLI sandbox: a populated home copied afresh for every example -------------------


class Sandbox:
    """A project and a home at fixed paths; ``reset`` restores the populated template.

    The paths never change, so the database's source paths stay valid after a copy.
    """

    def __init__(self, base: Path) -> None:
        self.project = base / "project"
        self.home = base / "home"
        self.template = base / "template"
        self.project.mkdir()
        self.ids: dict[str, str] = {}

    def run(self, argv: list[str]) -> tuple[int, str, str]:
        """``waymarks ARGV`` in the project, on the sandbox's home (``tests/inprocess.py``)."""
        try:
            done = waymarks(*argv, env={"WAYMARKS_HOME": str(self.home)}, cwd=self.project)
        except BaseException as exc:  # anything escaping main is the bug
            raise AssertionError(f"exception escaped main({argv!r}): {exc!r}") from exc
        return done.returncode, done.stdout, done.stderr

    def json(self, *args: str) -> dict[str, Any]:
        code, out, _ = self.run(["--json", *args])
        assert code == 0, out
        return json.loads(out)  # type: ignore[no-any-return]

    def build(self) -> None:
        """Items of every kind, a branch pin, a trusted project with a project claim."""
        session = self.json("session", "new")["session"]
        self.ids["SESSION"] = session["id"]
        self.ids["ENTRY"] = self.json("session", "say", "We moved the database")["entryId"]
        self.ids["PIN"] = self.json("pin", "--", "Always run the tests")["id"]
        self.ids["BPIN"] = self.json("pin", "--scope", "branch", "--", "Try the parser")["id"]
        self.ids["MEM"] = self.json("memory", "add", "--key", "db-port", "--source",
                                    self.ids["ENTRY"], "--", "The database port is 5433.")["id"]
        self.ids["MEM2"] = self.json("memory", "add", "--", "Feature X is enabled")["id"]
        self.json("trust", ".")
        self.ids["PMEM"] = self.json("memory", "add", "--scope", "project", "--",
                                     "Deploys go to staging first")["id"]
        self.ids["PROJECT"] = str(self.project)
        for name in ("SESSION", "PIN", "BPIN", "MEM", "MEM2", "PMEM"):
            self.ids[name + "8"] = self.ids[name][:8]
        # a writer died mid-line: a refused command must not even terminate this line
        (session_file,) = self.home.glob("sessions/*/*.jsonl")
        with open(session_file, "ab") as handle:
            handle.write(b'{"type":"message","id":"torn","parentId":null,"timest')
        shutil.copytree(self.home, self.template)

    def reset(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.copytree(self.template, self.home)

    def substitute(self, text: str) -> str:
        for name, value in sorted(self.ids.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(f"%{name}%", value)
        return text

    def snapshot(self) -> dict[str, bytes]:
        """Every file under the sessions folder, and the trust list."""
        files = {}
        for path in sorted(self.home.rglob("*")):
            relative = path.relative_to(self.home)
            if path.is_file() and (relative.parts[0] == "sessions"
                                   or relative.name == "trusted-projects.json"):
                files[str(relative)] = path.read_bytes()
        return files


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    box = Sandbox(tmp_path_factory.mktemp("hostile-cli"))
    with pytest.MonkeyPatch.context() as patch:
        # built before the per-test switch to lexical recall (tests/conftest.py): no
        # embedding, and no background worker writing into the home the tests reset
        patch.setenv("WAYMARKS_SEMANTIC", "off")
        box.build()
    return box


def check_cli(sandbox: Sandbox, argv: list[str]) -> tuple[int, dict[str, Any]]:
    """Run ``argv`` on a fresh copy of the home and check every CLI invariant."""
    argv = [sandbox.substitute(token) for token in argv]
    assert "--home" not in argv, argv  # never let a generated --home leave the sandbox
    if "context" in argv:  # the rest is parsed again: never a server (see SERVERS)
        assume(not any(set(_words(t)) & SERVERS for t in argv[argv.index("context"):]))
    sandbox.reset()
    before = sandbox.snapshot()
    code, out, err = sandbox.run(argv)
    assert code in (0, 1, 2), (code, out)
    assert "Traceback" not in err, err
    assert out.endswith("\n") and out.count("\n") == 1, f"not one JSON line: {out[:500]!r}"
    document = json.loads(out)
    assert isinstance(document, dict), out
    if currently_in_test_context():
        event(f"exit {code}: {document.get('code')}")
    if code == 0:
        assert document.get("outcome") not in ("rejected", "error"), document
    else:
        assert document["outcome"] == ("rejected" if code == 2 else "error"), document
        assert isinstance(document["message"], str) and document["message"].strip(), document
        assert isinstance(document["code"], str) and document["code"], document
    if code == 2:
        after = sandbox.snapshot()
        assert after.keys() == before.keys(), f"files appeared or vanished: {after.keys()}"
        changed = [name for name in before if before[name] != after[name]]
        assert not changed, f"a refused command changed {changed}"
    return code, document


# -- token strategies -------------------------------------------------------------------

#: the commands over session files and trust (the table's others have their own tests;
#: ``memory edit`` would open an editor, export/import and adr write files elsewhere)
FUZZED = ("session", "pins", "pin", "unpin", "memory", "recall", "status", "health",
          "rebuild-index", "trust", "untrust")
COMMANDS: dict[str, CommandInfo] = {
    " ".join(info.path): info for info in walk(build_root())
    if info.path[0] in FUZZED and info.path != ("memory", "edit")
    and not hasattr(info.command, "commands")}
COMMAND_WORDS = sorted({word for name in COMMANDS for word in name.split()} | {"context"})
OPTION_NAMES = ["--scope", "--key", "--source", "--classification", "--supersedes", "--file",
                "--summary", "--list", "--json", "--help", "--", "--SCOPE", "--Key", "--colour",
                "-h", "---", "--=", "--scope=", "--source=,,", "--list=no", "--json=false",
                "--supersedes=%PIN8%", "--source=%ENTRY%,%ENTRY%", "--session"]
OPTION_VALUES = ["session", "branch", "project", "normal", "internal", "sensitive",
                 "local-only", "Project ", "LOCAL-ONLY", "", " ", ".", "..", ",", "nonexistent",
                 "00000000", "deadbeef-0000-4000-8000-000000000000"]
PLACEHOLDERS = ["%SESSION%", "%SESSION8%", "%ENTRY%", "%PIN%", "%PIN8%", "%BPIN%", "%BPIN8%",
                "%MEM%", "%MEM8%", "%MEM2%", "%PMEM%", "%PMEM8%", "%PROJECT%",
                "%ENTRY%,nope", "%PIN%x"]
HOSTILE = ["'", '"', "\\", "\x00", "\n", "\t", "\r", " ", "\x1b[31m", "''", '"\\"', "\\\\",
           "a\\", "'a b'", "\u202e", "\ufeff", "\u0085", "\u2028", "\x7f", "é", "🙂",
           "The database port is 5432.", "Feature X is disabled", "x = y", "always run THE tests"]
LONG = st.builds(operator.mul, st.sampled_from(["x", "é ", "\x00", "a b ", "'\\", "🙂"]),
                 st.sampled_from([500, 1999, 2000, 2001, 3999, 4000, 4001, 50_000]))
TOKEN = st.one_of(
    st.sampled_from(COMMAND_WORDS), st.sampled_from(OPTION_NAMES),
    st.sampled_from(OPTION_VALUES), st.sampled_from(PLACEHOLDERS), st.sampled_from(HOSTILE),
    st.text(max_size=20), LONG,
)
TOKENS = st.lists(TOKEN, max_size=8)
REAL_COMMAND = st.sampled_from(sorted(COMMANDS)).map(str.split)
# global options that stay inside the sandbox (--home is never given a random value)
GLOBALS = st.sampled_from([[], [], [], ["--json"], ["--session", "%SESSION8%"],
                           ["--session", "no-such-session"], ["--session", "./missing.jsonl"],
                           ["--cwd", "."], ["--cwd", "/definitely/not/here"]])
OPTION_VALUE = st.one_of(st.sampled_from(OPTION_VALUES), st.sampled_from(PLACEHOLDERS),
                        st.sampled_from(HOSTILE), st.text(max_size=12), LONG)
TEXT_TOKEN = st.one_of(st.sampled_from(HOSTILE), st.sampled_from(PLACEHOLDERS),
                       st.text(max_size=20), LONG)


@st.composite
def structured_command(draw: st.DrawFn) -> list[str]:
    """A real command with mostly allowed options, then positionals: gets past parsing."""
    name = draw(st.sampled_from(sorted(COMMANDS)))
    command = COMMANDS[name]
    allowed = sorted(o for o in command.options + command.flags if o.startswith("--"))
    tokens = name.split()
    for _ in range(draw(st.integers(0, 3 if allowed or not draw(st.integers(0, 5)) else 0))):
        option = draw(st.sampled_from(allowed if allowed and draw(st.integers(0, 7))
                                      else OPTION_NAMES))
        value = draw(OPTION_VALUE)
        tokens += [f"{option}={value}"] if draw(st.booleans()) else [option, value]
    if not command.arguments and draw(st.integers(0, 5)):
        return tokens
    if any("_ID" in a for a in command.arguments) and draw(st.integers(0, 3)):
        tokens.append(draw(st.sampled_from(PLACEHOLDERS)))
    if draw(st.booleans()):
        tokens.append("--")
    return tokens + draw(st.lists(TEXT_TOKEN, max_size=4))


RANDOM_ARGV = st.builds(lambda g, c, t: ["--json", *g, *c, *t], GLOBALS,
                       st.one_of(st.just([]), REAL_COMMAND), TOKENS)
STRUCTURED_ARGV = st.builds(lambda g, c: ["--json", *g, *c], GLOBALS, structured_command())
ARGV = st.one_of(RANDOM_ARGV, STRUCTURED_ARGV, STRUCTURED_ARGV)


@lanes(quick=8, long=300)
def test_cli_arguments_give_only_categorized_outcomes(sandbox: Sandbox, examples: int) -> None:
    @settings(CLI_SETTINGS, max_examples=examples)
    @given(argv=ARGV)
    @example(argv=["--json", "pin", "--", "x" * 4001])
    @example(argv=["--json", "memory", "add", "--", "The database port is 5432."])
    @example(argv=["--json", "memory", "add", "--scope", "nowhere", "--", "x"])
    @example(argv=["--json", "memory", "supersede", "%MEM8%", "--classification", "secret", "--",
                   "y"])
    @example(argv=["--json", "memory", "invalidate", "%MEM%", "r" * 501])
    @example(argv=["--json", "pin", "--supersedes", "%PIN%", "--scope", "project", "--", "z"])
    @example(argv=["--json", "pin", "--source", "nope", "--", "z"])
    @example(argv=["--json", "unpin", "%MEM%"])
    @example(argv=["--json", "session", "branch", "nope"])
    @example(argv=["--json", "pin", "--file", "."])
    @example(argv=["--json", "--session"])
    def check(argv: list[str]) -> None:
        check_cli(sandbox, argv)
    check()


def test_sandbox_examples_reach_deep_outcomes(sandbox: Sandbox) -> None:
    """The placeholders name real items: refusals beyond argument parsing are exercised."""
    code, doc = check_cli(sandbox, ["--json", "memory", "add", "--key", "DB port", "--",
                                    "The database port is 5432."])
    assert code == 2 and doc["code"] == "conflict" and doc["conflicts"] == [sandbox.ids["MEM"]]
    code, doc = check_cli(sandbox, ["--json", "pin", "--supersedes", "%PIN8%", "--scope",
                                    "branch", "--", "z"])
    assert code == 2 and doc["code"] == "scope_mismatch"
    code, doc = check_cli(sandbox, ["--json", "unpin", "%PIN8%"])
    assert code == 0 and doc["id"] == sandbox.ids["PIN"]


# -- the context command ----------------------------------------------------------------

CONTEXT_WORD = st.one_of(
    st.sampled_from(COMMAND_WORDS + OPTION_NAMES + OPTION_VALUES + PLACEHOLDERS + HOSTILE),
    st.text(alphabet="ab '\"\\-=,", max_size=8), st.text(max_size=10),
)


def _quote(token: str, style: int) -> str:
    if style == 1:
        return "'" + token.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if style == 2:
        return '"' + token.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return token


def _quoted_line(tokens: list[str], styles: list[int]) -> str:
    """``tokens`` as one context string, each bare, single- or double-quoted."""
    return " ".join(_quote(t, q) for t, q in zip(tokens, styles, strict=False))


#: commands that serve until they are stopped (never a one-shot answer)
SERVERS = frozenset({"ui", "mcp", "bridge"})


def _words(text: str) -> list[str]:
    """The words the context string's parser would see (none when it cannot parse it)."""
    from waymarks.core.arguments import tokenize

    try:
        return tokenize(text)
    except ValueError:
        return []


CONTEXT = st.one_of(
    st.builds(_quoted_line, structured_command(),
              st.lists(st.integers(0, 2), min_size=20, max_size=20)),
    st.text(max_size=60),
    st.text(alphabet="pin- '\"\\", max_size=30),
    st.lists(CONTEXT_WORD, max_size=10).map(" ".join),
    st.builds(lambda command, rest: " ".join([command, *rest]),
              st.sampled_from(sorted(COMMANDS)), st.lists(CONTEXT_WORD, max_size=8)),
)


@lanes(quick=8, long=300)
def test_context_string_gives_only_categorized_outcomes(sandbox: Sandbox, examples: int) -> None:
    @settings(CLI_SETTINGS, max_examples=examples)
    @given(text=CONTEXT)
    @example(text="pin 'unterminated")
    @example(text='memory add -- "half')
    @example(text="pin -- trailing\\")
    @example(text="\\")
    @example(text="--")
    @example(text="pin -- --")
    @example(text="memory add --key -- x")
    @example(text="memory add --key '' -- x is y")
    @example(text="pin --scope 'project -- x")
    @example(text="memory supersede %MEM8% -- 'The database port is 5434.'")
    @example(text="context context pin -- x")
    def check(text: str) -> None:
        # the string is parsed again, globals included: a generated --home would leave
        # the sandbox (check_cli's guard sees only whole arguments)
        assume("--home" not in text)
        # a server (ui, mcp, bridge) serves until stopped: a generated "ui" hung the run
        assume(not set(_words(text)) & SERVERS)
        check_cli(sandbox, ["--json", "context", text])
    check()


# -- the session file reader ------------------------------------------------------------

SID = "0f8fad5b-d9cb-469f-a165-70867728950e"
TS = "2026-01-01T00:00:00.000Z"


def _line(obj: object, compact: bool = False) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(obj, ensure_ascii=False, separators=separators).encode() + b"\n"


def _custom(entry_id: str, parent: str | None, custom_type: str, data: object) -> dict[str, Any]:
    return {"type": "custom", "customType": custom_type, "data": data, "id": entry_id,
            "parentId": parent, "timestamp": TS}


def _pin_add(item_id: str, **item: Any) -> dict[str, Any]:
    return {"schemaVersion": 1, "mutationId": f"mut-{item_id}", "createdAt": 42,
            "operation": "add",
            "item": {"id": item_id, "scope": "session", "content": "Use pnpm", "createdAt": 42,
                     **item}}


def _memory_add(item_id: str, **item: Any) -> dict[str, Any]:
    return {"schemaVersion": 1, "mutationId": f"mut-{item_id}", "createdAt": 43,
            "operation": "add",
            "item": {"id": item_id, "scope": "session", "claim": "Build tool is pnpm",
                     "createdAt": 43, "sourceEntryIds": ["a"], **item}}


HEADER = {"type": "session", "version": 3, "id": SID, "timestamp": TS, "cwd": "/home/u/proj"}
BEFORE = [
    HEADER,
    {"type": "message", "id": "a", "parentId": None, "timestamp": TS,
     "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
    _custom("b", "a", PIN_CUSTOM_TYPE, _pin_add("p1")),
    _custom("c", "b", MEMORY_CUSTOM_TYPE, _memory_add("m1")),
]
AFTER_PREFIX = "\u2603valid-after-"  # no generated garbage names an entry like this
AFTER = [
    {"type": "message", "id": AFTER_PREFIX + "msg", "parentId": "c", "timestamp": TS,
     "message": {"role": "user", "content": [{"type": "text", "text": "again"}]}},
    _custom(AFTER_PREFIX + "pin", AFTER_PREFIX + "msg", PIN_CUSTOM_TYPE,
            _pin_add("after-pin-item", content="Use ruff")),
    _custom(AFTER_PREFIX + "mem", AFTER_PREFIX + "pin", MEMORY_CUSTOM_TYPE,
            _memory_add("after-mem-item", claim="Linter is ruff")),
    _custom(AFTER_PREFIX + "unpin", AFTER_PREFIX + "mem", PIN_CUSTOM_TYPE,
            {"schemaVersion": 1, "mutationId": "mut-unpin", "createdAt": 44,
             "operation": "status", "pinId": "p1", "status": "deleted"}),
]
AFTER_MUTATIONS = {AFTER_PREFIX + name for name in ("pin", "mem", "unpin")}

JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
JSON = st.recursive(JSON_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=12)
FAMILY_TYPES = st.sampled_from([PIN_CUSTOM_TYPE, MEMORY_CUSTOM_TYPE, "ds4-context-pin-v2",
                                "ds4-context-", "ds4-context-source-v1"])
ENTRY_FIELD = st.one_of(JSON, st.text(max_size=12))


def _json_line(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


GARBAGE_LINE = st.one_of(
    st.binary(max_size=200),
    st.binary(max_size=60).map(lambda b: b"\x00" + b + b"\x00"),
    st.builds(lambda a, b: a + b"\xff\xfe\xc3" + b, st.binary(max_size=30), st.binary(max_size=30)),
    st.just(b'{"type":"message","id":"bad","parentId":"a","timestamp":"\xff\xfe"}'),
    JSON.map(_json_line),  # arrays, numbers, strings, objects of the wrong shape
    st.fixed_dictionaries({"type": ENTRY_FIELD, "id": ENTRY_FIELD, "parentId": ENTRY_FIELD,
                           "timestamp": ENTRY_FIELD}).map(_json_line),
    st.fixed_dictionaries({}, optional={"type": st.just("message"), "id": st.text(max_size=8),
                                        "parentId": st.text(max_size=8),
                                        "timestamp": st.just(TS)}).map(_json_line),
    st.sampled_from(["a", "b", "c"]).map(  # duplicate ids
        lambda i: _json_line({"type": "message", "id": i, "parentId": None, "timestamp": TS})),
    st.builds(lambda sid, cwd: _json_line({**HEADER, "id": sid, "cwd": cwd}),  # extra headers
              st.text(max_size=10), st.one_of(st.text(max_size=10), st.none())),
    st.builds(lambda t, i, p, d: _json_line({"type": "custom", "customType": t, "id": i,
                                             "parentId": p, "timestamp": TS, "data": d}),
              FAMILY_TYPES, st.text(min_size=1, max_size=8), st.sampled_from(["a", "c", None]),
              JSON),
    st.builds(lambda good, cut: good[:cut], st.sampled_from([_line(e) for e in BEFORE]),
              st.integers(0, 200)),  # a torn copy of a valid line
).map(lambda b: b.replace(b"\n", b"\\n"))


def _write_session(path: Path, garbage: list[bytes]) -> int:
    lines = [_line(e) for e in BEFORE] + [g + b"\n" for g in garbage] + [_line(e) for e in AFTER]
    path.write_bytes(b"".join(lines))
    return len(lines)


def check_reader(path: Path, total_lines: int) -> SessionFile:
    session = SessionFile.open(path)
    assert session.header is not None and session.session_id == SID
    assert session.lines == total_lines and session.partial_tail == 0
    ids = set(session.by_id)
    assert {"a", "b", "c"} | {e["id"] for e in AFTER} <= ids
    assert AFTER_MUTATIONS | {"b", "c"} <= {r.entry_id for r in session.records}
    assert session.leaf_id == AFTER[-1]["id"]
    kinds = [a.kind for a in session.anomalies]
    assert set(kinds) <= {"skipped", "unknown", "malformed"}
    assert len({a.line for a in session.anomalies}) == len(session.anomalies), "one per line"
    # every line is the header, an entry, or skipped (and counted)
    assert 1 + len(session.entries) + kinds.count("skipped") == total_lines
    for anomaly in session.anomalies:
        if anomaly.kind != "skipped":
            assert anomaly.entry_id in ids
    again = SessionFile.open(path)
    assert again.entries == session.entries and again.anomalies == session.anomalies
    return session


@lanes(quick=12, long=250)
def test_reader_skips_garbage_and_reads_what_follows(examples: int) -> None:
    @settings(READER_SETTINGS, max_examples=examples)
    @given(garbage=st.lists(GARBAGE_LINE, max_size=12))
    @example(garbage=[b"\x00" * 3_000_000])
    @example(garbage=[b"x" * 4_000_000, b"\xff" * 1_000_000])
    @example(garbage=[b'{"type":"message","id":"huge","parentId":"c","timestamp":"' + TS.encode()
                      + b'","text":"' + b"a" * 3_000_000 + b'"}'])
    @example(garbage=[b"", b"   ", b"\r", b"[]", b"null", b"7", b'"session"', b"{}"])
    def check(garbage: list[bytes]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.jsonl"
            check_reader(path, _write_session(path, garbage))
    check()


@lanes(quick=3, long=60)
def test_service_health_and_items_survive_garbage(examples: int) -> None:
    @settings(SERVICE_SETTINGS, max_examples=examples)
    @given(garbage=st.lists(GARBAGE_LINE, max_size=12))
    @example(garbage=[b"\x00" * 2_000_000, b'{"type":"session","id":"x","cwd":"/"}'])
    def check(garbage: list[bytes]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.jsonl"
            total = _write_session(path, garbage)
            skipped = sum(a.kind == "skipped" for a in check_reader(path, total).anomalies)
            (Path(tmp) / "project").mkdir()
            with Waymarks(Path(tmp) / "home", cwd=str(Path(tmp) / "project"),
                          session=str(path)) as app:
                report = app.health()
                pins = app.items("pin")
                memory = app.items("memory")
            assert report["anomalyCounts"]["skipped"] == skipped
            assert {v.id: v.status for v in pins}.get("after-pin-item") == "active"
            assert {v.id: v.status for v in pins}.get("p1") == "deleted"
            assert "after-mem-item" in {v.id for v in memory}
            assert path.read_bytes().count(b"\n") == total, "reading appended nothing"
    check()


# -- mutation payloads through the reader -----------------------------------------------

BASES: list[tuple[str, dict[str, Any]]] = [
    (PIN_CUSTOM_TYPE, _pin_add("p1")),
    (PIN_CUSTOM_TYPE, _pin_add("p2", scope="branch", branchLeafId="a",
                               classification="internal", sourceEntryId="a")),
    (PIN_CUSTOM_TYPE, _pin_add("p3", scope="project", projectPath="/home/u/proj",
                               sourceFile="/home/u/proj/AGENTS.md")),
    (PIN_CUSTOM_TYPE, {**_pin_add("p4"), "operation": "supersede", "previousId": "p1"}),
    (PIN_CUSTOM_TYPE, {"schemaVersion": 1, "mutationId": "mut-s", "createdAt": 5,
                       "operation": "status", "pinId": "p1", "status": "deleted",
                       "reason": "done"}),
    (MEMORY_CUSTOM_TYPE, _memory_add("m1", key="build-tool", classification="sensitive")),
    (MEMORY_CUSTOM_TYPE, _memory_add("m2", scope="project", projectPath="/home/u/proj")),
    (MEMORY_CUSTOM_TYPE, {**_memory_add("m3"), "operation": "supersede", "previousId": "m1"}),
    (MEMORY_CUSTOM_TYPE, {"schemaVersion": 1, "mutationId": "mut-i", "createdAt": 6,
                          "operation": "status", "memoryId": "m1", "status": "invalid"}),
    (MEMORY_CUSTOM_TYPE, {"schemaVersion": 1, "mutationId": "mut-e", "createdAt": 7,
                          "operation": "status", "memoryId": "m1", "status": "expired"}),
]
EDGE_VALUES = [None, "", " ", 0, -1, 1.5, True, 2, 2**63 - 1, 2**63, 2**64, -(2**63) - 1,
               10**30, [], {}, ["a", 1], "session", "branch", "project", "deleted", "invalid",
               "expired", "active", "superseded", "add", "status", "supersede", "LOCAL-ONLY",
               "\x00", "é" * 5000]
NO_DATA = object()


@st.composite
def near_valid(draw: st.DrawFn) -> tuple[str, object]:
    """A valid payload with one field deleted, retyped or pushed to an edge value."""
    custom_type, payload = draw(st.sampled_from(BASES))
    if draw(st.integers(0, 9)) == 0:  # the other kind's custom type
        custom_type = MEMORY_CUSTOM_TYPE if custom_type == PIN_CUSTOM_TYPE else PIN_CUSTOM_TYPE
    payload = copy.deepcopy(payload)
    target = payload["item"] if "item" in payload and draw(st.booleans()) else payload
    key = draw(st.sampled_from([*sorted(target), "extraField", "schemaVersion"]))
    action = draw(st.sampled_from(["delete", "random", "edge", "edge", "keep"]))
    if action == "delete":
        target.pop(key, None)
    elif action == "random":
        target[key] = draw(JSON)
    elif action == "edge":
        target[key] = draw(st.sampled_from(EDGE_VALUES))
    return custom_type, payload


PAYLOAD = st.one_of(
    near_valid(), near_valid(),
    st.tuples(st.sampled_from([PIN_CUSTOM_TYPE, MEMORY_CUSTOM_TYPE]), JSON),
    st.tuples(FAMILY_TYPES, st.one_of(JSON, st.just(NO_DATA))),
)
TIMESTAMP = st.one_of(st.just(TS), st.just(TS), st.text(max_size=30),
                      st.sampled_from(["2026-13-01T00:00:00.000Z", "2026-01-01T99:00:00.000Z",
                                       "9999-12-31T23:59:59.999-14:00", "0001-01-01T00:00:00Z",
                                       "2026-01-01"]))


def _payload_file(path: Path, payloads: list[tuple[str, object, str]], compact: bool) -> None:
    lines = [_line(HEADER, compact), _line(BEFORE[1], compact)]
    for n, (custom_type, data, timestamp) in enumerate(payloads):
        entry: dict[str, Any] = {"type": "custom", "customType": custom_type, "id": f"x{n}",
                                 "parentId": "a", "timestamp": timestamp}
        if data is not NO_DATA:
            entry["data"] = data
        lines.append(_line(entry, compact))
    path.write_bytes(b"".join(lines))


def _verdicts(session: SessionFile, count: int) -> list[str]:
    records = {r.entry_id for r in session.records}
    anomalies = {a.entry_id: a.kind for a in session.anomalies}
    assert not [a for a in session.anomalies if a.kind == "skipped"], session.anomalies
    verdicts = []
    for n in range(count):
        entry_id = f"x{n}"
        assert entry_id in session.by_id
        assert (entry_id in records) != (entry_id in anomalies), entry_id
        verdicts.append("record" if entry_id in records else anomalies[entry_id])
    assert set(verdicts) <= {"record", "unknown", "malformed"}
    return verdicts


@lanes(quick=12, long=250)
def test_every_payload_is_a_record_unknown_or_malformed(examples: int) -> None:
    @settings(READER_SETTINGS, max_examples=examples)
    @given(payloads=st.lists(st.tuples(*[PAYLOAD, TIMESTAMP]).map(lambda p: (*p[0], p[1])),
                             min_size=1, max_size=10))
    def check(payloads: list[tuple[str, object, str]]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            compact, spaced = Path(tmp) / "compact.jsonl", Path(tmp) / "spaced.jsonl"
            _payload_file(compact, payloads, compact=True)  # the reader's one-pass fast path
            _payload_file(spaced, payloads, compact=False)  # the general path
            fast = _verdicts(SessionFile.open(compact), len(payloads))
            general = _verdicts(SessionFile.open(spaced), len(payloads))
        assert fast == general, "the fast path and the general path disagree"
        for (custom_type, data, _), verdict in zip(payloads, fast, strict=True):
            raw = None if data is NO_DATA else json.dumps(data).encode()
            decoded = decode_payload(custom_type, raw)
            expected = ("unknown" if isinstance(decoded, UnknownPayload) else
                        "malformed" if isinstance(decoded, MalformedPayload) else "record")
            item = getattr(decoded, "item", None)
            if (expected == "record" and item is not None and item.scope == "project"
                    and item.project_path != canonical_project_path(HEADER["cwd"])):
                expected = "malformed"  # a session speaks only for its own project
            if (expected == "record" and item is not None and item.scope != "project"
                    and item.project_path is not None):
                expected = "malformed"  # only a project item may name a project
            assert verdict == expected, (custom_type, data)
    check()


def _fits_sqlite(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, dict):
            return all(_fits_sqlite(v) for v in value.values())
        if isinstance(value, list):
            return all(_fits_sqlite(v) for v in value)
        return True
    return -(2**63) <= value < 2**63


@lanes(quick=3, long=60)
def test_service_survives_every_payload(examples: int) -> None:
    @settings(SERVICE_SETTINGS, max_examples=examples)
    @given(payloads=st.lists(st.tuples(*[PAYLOAD, TIMESTAMP]).map(lambda p: (*p[0], p[1])),
                             min_size=1, max_size=8))
    def check(payloads: list[tuple[str, object, str]]) -> None:
        assume(all(_fits_sqlite(data) for _, data, _ in payloads))  # else BUG 6 below
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.jsonl"
            _payload_file(path, payloads, compact=False)
            with Waymarks(Path(tmp) / "home", cwd=tmp, session=str(path)) as app:
                app.health()
                app.items("pin")
                app.items("memory")
                app.rebuild_index()
                app.items("memory")
    check()


# -- regressions: defects these tests found, fixed -----------------------


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["help"]])
def test_regression_global_help_and_version_ignore_json(sandbox: Sandbox, args: list[str]) -> None:
    sandbox.reset()
    code, out, _ = sandbox.run(["--json", *args])
    assert code == 0
    json.loads(out)


def test_regression_untrust_nul_byte_escapes_main(sandbox: Sandbox) -> None:
    check_cli(sandbox, ["--json", "untrust", "a\x00b"])


def test_regression_pin_file_nul_byte_escapes_main(sandbox: Sandbox) -> None:
    check_cli(sandbox, ["--json", "pin", "--file", "a\x00b"])


@pytest.mark.parametrize("args", [["pin", "--", "\udcff"], ["session", "say", "\udcff"],
                                  ["unpin", "\udcff"], ["memory", "add", "--", "\udcff"]])
def test_regression_lone_surrogate_escapes_main(sandbox: Sandbox, args: list[str]) -> None:
    sandbox.reset()
    code, out, _ = sandbox.run(["--json", *args])
    assert code == 2 and json.loads(out)["outcome"] == "rejected"


def test_regression_refused_write_creates_a_session_file(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--json", "memory", "add", "--scope", "nowhere", "--", "x"])
    assert code == 2 and json.loads(out.getvalue())["outcome"] == "rejected"
    assert not list(home.rglob("*.jsonl")), "a refused write changed nothing"


def test_regression_created_at_beyond_int64_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    payload = _pin_add("p1")
    payload["item"]["createdAt"] = 2**63
    path.write_bytes(_line(HEADER) + _line(_custom("b", None, PIN_CUSTOM_TYPE, payload)))
    session = SessionFile.open(path)  # the reader calls it malformed instead of a record
    assert session.records == [] and [a.kind for a in session.anomalies] == ["malformed"]
    project = tmp_path / "project"
    project.mkdir()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["--json", "--home", str(tmp_path / "home"), "--cwd", str(project),
                         "--session", str(path), "health"])
        except OverflowError as exc:
            raise AssertionError(f"escaped main: {exc!r}") from exc
    assert code in (0, 1) and json.loads(out.getvalue())


def _deep_line(depth: int) -> bytes:
    """A valid Pi entry whose extra field nests ``depth`` arrays (Pi's JSON.parse reads it)."""
    return (b'{"type":"message","id":"deep","parentId":"a","timestamp":"' + TS.encode()
            + b'","extra":' + b"[" * depth + b"]" * depth + b"}")


def test_regression_deeply_nested_line_crashes_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    total = _write_session(path, [_deep_line(5000)])
    check_reader(path, total)


def test_regression_deeply_nested_line_escapes_main(sandbox: Sandbox) -> None:
    sandbox.reset()
    path = sandbox.project / "deep.jsonl"
    try:
        _write_session(path, [_deep_line(5000)])
        code, doc = check_cli(sandbox, ["--json", "--session", str(path), "pins"])
    finally:
        path.unlink()
    assert code == 0 and "items" in doc  # the line is skipped and counted, the rest is read


@pytest.mark.parametrize("content", [b"not json", b"\xff\xfe", b'{"projects": [1]}'])
@pytest.mark.parametrize("args", [["pin", "--", "x"], ["status"], ["trust", "--list"]])
def test_regression_damaged_trust_list_escapes_main(sandbox: Sandbox, content: bytes,
                                             args: list[str]) -> None:
    sandbox.reset()
    (sandbox.home / "trusted-projects.json").write_bytes(content)
    code, out, _ = sandbox.run(["--json", *args])
    assert code == 1 and json.loads(out)["outcome"] == "error"
