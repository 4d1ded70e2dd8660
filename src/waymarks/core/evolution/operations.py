"""Which operation a tool call is, and how much it says about work done (EVOLUTION item 38).

A work observation is kept by the *importance of its operation*, never by how recent or
long it is, so that twelve late ``ls`` calls cannot push an early ``git commit`` or a
failed ``git push`` out of the evidence. The priority table (seed 004):

- 5: git commit, push, merge, rebase, cherry-pick (what changes shared history);
- 4: test, build and process runners; git status, log, show, diff, ls-remote;
- 3: edits, writes, mutation and deploy commands;
- 0: inspection (read, grep, find, ls, cat ...).

Only the allowed tools are trusted (:data:`ALLOWED_TOOLS`, with Claude Code's names mapped
onto Pi's); any other tool is unknown and never evidence. Waymarks' own memory tools are
excluded outright (:data:`MEMORY_TOOLS`): reading memory is not work. A shell command is
read by the non-executing lexer of :mod:`.shell_hints`; a command the table does not know
is ``other`` (priority 0, not work): unknown commands remain a known limit.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from waymarks.core.evolution.shell_hints import SimpleCommand, parse, resolve

MAX_OPERATION_BYTES: Final = 1_024
#: a work operation is at least this important (inspection and unknown commands are not)
WORK_PRIORITY: Final = 3
#: Pi's tool names, and Claude Code's mapped onto them
ALLOWED_TOOLS: Final = {"bash": "bash", "write": "write", "edit": "edit", "read": "read",
                        "grep": "grep", "find": "find", "ls": "ls", "multiedit": "edit",
                        "notebookedit": "edit", "glob": "find"}
#: Waymarks' own tools (Pi names and the MCP server's, as Claude Code names them)
MEMORY_TOOLS: Final = frozenset({"memory_recall", "context_persistence", "capture_note",
                                 "learned_memory", "learned_memory_edit"})
_GIT_HISTORY: Final = frozenset({"commit", "push", "merge", "rebase", "cherry-pick"})
_GIT_STATUS: Final = frozenset({"status", "log", "show", "diff", "ls-remote"})
_GIT_MUTATION: Final = frozenset({"add", "rm", "mv", "checkout", "switch", "reset", "tag",
                                  "stash", "restore", "pull", "fetch", "clone", "init",
                                  "apply", "am", "revert", "branch", "worktree"})
_RUNNERS: Final = frozenset({"pytest", "tox", "nox", "make", "cmake", "ninja", "jest",
                             "vitest", "mocha", "tsc", "mvn", "gradle", "gradlew", "ctest",
                             "ruff", "mypy", "eslint", "pyright", "bazel", "meson", "rspec",
                             "phpunit", "deno"})
_RUNNER_SUBCOMMANDS: Final = {
    "cargo": frozenset({"test", "build", "check", "run", "clippy", "bench"}),
    "go": frozenset({"test", "build", "run", "vet"}),
    "npm": frozenset({"test", "run", "build", "ci", "t"}),
    "pnpm": frozenset({"test", "run", "build", "t"}),
    "yarn": frozenset({"test", "run", "build"}),
    "bun": frozenset({"test", "run", "build"}),
    "uv": frozenset({"run"}),
    "docker": frozenset({"build", "compose"}),
    "dotnet": frozenset({"test", "build", "run"}),
}
_INSTALLERS: Final = {"npm": frozenset({"install", "i", "uninstall", "publish"}),
                      "pnpm": frozenset({"install", "add", "remove", "publish"}),
                      "yarn": frozenset({"add", "install", "remove", "publish"}),
                      "pip": frozenset({"install", "uninstall"}),
                      "pip3": frozenset({"install", "uninstall"}),
                      "cargo": frozenset({"install", "publish"}),
                      "docker": frozenset({"push", "run"}),
                      "uv": frozenset({"add", "remove", "sync", "pip"})}
_MUTATION: Final = frozenset({"rm", "mv", "cp", "mkdir", "rmdir", "touch", "chmod", "chown",
                              "ln", "tee", "patch", "truncate", "install", "rsync", "scp",
                              "unzip", "tar"})
_DEPLOY: Final = frozenset({"kubectl", "helm", "terraform", "ansible-playbook", "deploy",
                            "fly", "flyctl", "vercel", "netlify", "heroku", "gcloud", "aws",
                            "az", "serverless", "sls", "pulumi", "twine", "gh"})
_INSPECTION: Final = frozenset({"ls", "cat", "head", "tail", "grep", "rg", "find", "fd", "pwd",
                                "echo", "printf", "wc", "which", "stat", "file", "tree",
                                "less", "more", "du", "df", "ps", "date", "true", "sort",
                                "uniq", "cut", "awk", "jq", "cd", "pushd", "popd", "whoami",
                                "uname", "env", "type", "realpath", "readlink", "basename",
                                "dirname", "diff", "cmp", "sleep", "test", "["})
_PYTHONS: Final = frozenset({"python", "python3", "py"})


@dataclass(frozen=True, slots=True)
class Operation:
    """A recognised tool call: its tool (Pi's name), a short label, its priority, the
    operation text (the command or ``tool path``, not yet bounded or redacted) and the
    directories and files its arguments name (absolute, for resource hints)."""

    tool: str
    label: str
    priority: int
    text: str
    directories: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


def tool_name(name: str) -> str:
    """The tool's name as the table knows it: lower case, an MCP prefix removed."""
    lowered = name.strip().lower()
    if lowered.startswith("mcp__"):
        lowered = lowered.rsplit("__", 1)[-1]
    return lowered


def is_memory_tool(name: str) -> bool:
    return tool_name(name) in MEMORY_TOOLS


def classify(name: str, args: Mapping[str, object], cwd: str | None) -> Operation | None:
    """The operation of one call of tool ``name`` (``None``: not an allowed tool, or its
    arguments do not say what it did)."""
    tool = ALLOWED_TOOLS.get(tool_name(name))
    if tool is None:
        return None
    if tool == "bash":
        command = args.get("command")
        return _shell(command, cwd) if isinstance(command, str) and command.strip() else None
    path = next((v for k in ("file_path", "path", "notebook_path", "pattern")
                 if isinstance(v := args.get(k), str) and v), "")
    target = resolve(path, cwd) if tool != "grep" and path and "*" not in path else None
    files = (target,) if target else ()
    if tool in ("edit", "write"):
        return Operation(tool, tool, 3, f"{tool} {path}".strip(), (), files)
    if tool == "grep":
        where = args.get("path")
        shown = f"grep {path} {where}" if isinstance(where, str) else f"grep {path}"
        located = resolve(where, cwd) if isinstance(where, str) and where else None
        return Operation(tool, "inspection", 0, shown.strip(), (),
                         (located,) if located else ())
    return Operation(tool, "inspection", 0, f"{tool} {path}".strip(), (), files)


def _shell(command: str, cwd: str | None) -> Operation:
    parsed = parse(command, cwd)
    best_label, best = "other", -1
    for simple in parsed.commands:
        label, score = _command(simple)
        if score > best:
            best_label, best = label, score
    return Operation("bash", best_label, max(best, 0), command, parsed.directories)


def _command(simple: SimpleCommand) -> tuple[str, int]:
    program = simple.program if simple.words and simple.words[0].literal else ""
    args = [a for a in simple.args() if not a.startswith("-")]
    sub = args[0] if args else ""
    if program == "git":
        if sub in _GIT_HISTORY:
            return sub, 5
        if sub in _GIT_STATUS:
            return f"git-{sub}", 4
        if sub in _GIT_MUTATION:
            return "mutation", 3
        return "other", 0
    if program in _PYTHONS:
        flags = simple.args()
        if "-m" in flags:
            module = flags[flags.index("-m") + 1] if flags.index("-m") + 1 < len(flags) else ""
            if module in ("pytest", "unittest", "tox", "mypy", "ruff", "build", "nox"):
                return "test" if module in ("pytest", "unittest") else "build", 4
            if module == "pip" and "install" in flags:
                return "mutation", 3
        return "process", 4  # running a program is a process run
    if program in ("sed", "perl") and any(a.startswith("-i") for a in simple.args()):
        return "edit", 3
    if program in _INSTALLERS and sub in _INSTALLERS[program]:
        return "deploy" if sub in ("publish", "push") else "mutation", 3
    if program in _RUNNER_SUBCOMMANDS and sub in _RUNNER_SUBCOMMANDS[program]:
        return "test" if sub in ("test", "t") else "build", 4
    if program in _RUNNERS or program in ("npx", "node"):
        return "test" if program in ("pytest", "jest", "vitest", "mocha", "rspec",
                                     "phpunit", "ctest") else "build", 4
    if simple.words[0].text.startswith("./") or program.endswith(".sh"):
        return "process", 4
    if program in _MUTATION:
        return "mutation", 3
    if program in _DEPLOY:
        return "deploy", 3
    if program in _INSPECTION:
        return "inspection", 0
    return "other", -1 if not program else 0
