"""``waymarks claude-code install | uninstall [--project|--user]``.

Install merges into Claude Code's configuration, leaving everything else as it was:

- settings (``<project>/.claude/settings.json``, or ``~/.claude/settings.json``): one
  hook group per event (``SessionStart``, ``UserPromptSubmit``, ``PreCompact``,
  ``Stop``, ``SessionEnd``, ``PostToolUse``, ``PostToolUseFailure``) running
  ``<this python> -I -S <waymarks/hosts/hook_entry.py> --home <home> hook claude-code
  EVENT`` once ``test -f`` finds the launcher (:func:`hook_command`): this installation's
  interpreter, by its path (a shell shim would add ~80 ms to every prompt), without
  ``site`` (~5 ms of every hook process; the launcher puts this package's directory on
  the import path itself, see :mod:`waymarks.hosts.hook_entry`), so the same command
  serves a venv, a ``pip install --user`` and an editable install;
- MCP servers (``<project>/.mcp.json``, or ``~/.claude.json``): ``waymarks``, running
  ``<this waymarks> --home <home> mcp --claude-code``: the script pip installed with this
  package (:func:`waymarks_binary`: a ``pip install --user`` puts it in the user scheme's
  scripts directory, not beside the interpreter).

It is idempotent, keeps a copy of each file it changes (``<file>.waymarks-backup``),
refuses a file it cannot rewrite exactly (changing nothing: see
:mod:`waymarks.hosts.claude_code_files`), loads and checks every file before it writes
any, writes atomically (putting back what it wrote when a later write fails) and reports
what changed. One install or uninstall runs at a time
per home (``flock`` on ``<home>/claude-code/install.lock``). Uninstall removes exactly
those entries (and containers left empty by their removal); an MCP server named
``waymarks`` that runs something else is left alone.

What must stay true: after uninstall nothing of Waymarks is left. A file install changed
gets its original bytes back (from the backup) when nothing else in it changed since, or
else what remains without Waymarks' entries; a file install created, and that holds
nothing else, is removed (no ``{}`` left behind), and so is a ``.claude/`` folder left
empty; the backups are removed (one is kept, and named, only when the file changed after
Waymarks' entries were removed by hand, or when no install wrote it: installs note theirs
in ``<home>/claude-code/backups.json``).
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from copy import deepcopy
from functools import partial
from pathlib import Path
from typing import Any, Final, Literal

from waymarks.core.lazy_re import lazy
from waymarks.files.atomic import write_atomic
from waymarks.files.dirs import make_private_dirs
from waymarks.files.errors import fix_for, os_error_cause
from waymarks.files.locks import holding, open_lock
from waymarks.hosts.claude_code import EVENTS
from waymarks.hosts.claude_code_files import (
    NOTHING_CHANGED,
    InstallError,
    Undo,
    backup_exists,
    check_writable,
    dump,
    load,
    note_backup,
    read_record,
    refreshed_server,
    take_over_backup,
)
from waymarks.hosts.claude_code_putback import Change, put_back_plan

Scope = Literal["project", "user"]
HOOK_TIMEOUT_S = 10
SERVER_NAME = "waymarks"


__all__ = ["InstallError", "install", "uninstall"]


def scripts_dir(package: Path, metadata: Path | None = None) -> Path:
    """Where pip put the scripts of the installation whose ``waymarks`` package directory
    is ``package`` (``metadata``: the directory holding its ``.dist-info``, if known):
    the user scheme's scripts directory (``~/.local/bin``) for a ``pip install --user``,
    else the interpreter's (a venv's ``bin``). Not the interpreter's own directory: a
    user install's interpreter is the system's (``/usr/bin``), its script is not there.
    An editable install keeps the package in its checkout, outside every site directory:
    its metadata says where pip installed it."""
    user = sysconfig.get_preferred_scheme("user")
    user_site = Path(sysconfig.get_path("purelib", user)).resolve()
    site = {Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}
    where = package.resolve()
    if metadata is not None and not any(where.is_relative_to(d) for d in (user_site, *site)):
        where = metadata.resolve()
    return Path(sysconfig.get_path("scripts", user if where.is_relative_to(user_site)
                                   else sysconfig.get_default_scheme()))


def _installed_metadata() -> Path | None:
    """The directory holding this installation's ``.dist-info`` (``None``: not installed,
    e.g. a checkout on ``PYTHONPATH``)."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        return Path(str(distribution("waymarks").locate_file("")))
    except PackageNotFoundError:
        return None


def waymarks_binary() -> Path:
    """This installation's ``waymarks`` script (its shebang names the installation's
    interpreter directly: no shell shim on the MCP server's start): in the scripts
    directory pip installed it to (:func:`scripts_dir`), else the ``waymarks`` on
    ``PATH`` (a layout pip did not make), else the path it would have."""
    package = Path(__file__).resolve().parents[1]
    script = scripts_dir(package, _installed_metadata()) / "waymarks"
    if script.is_file():
        return script
    found = shutil.which("waymarks")
    return Path(found) if found else script


def files(scope: Scope, project: Path, user_home: Path) -> tuple[Path, Path]:
    if scope == "project":
        return project / ".claude" / "settings.json", project / ".mcp.json"
    return user_home / ".claude" / "settings.json", user_home / ".claude.json"


def hook_entry() -> Path:
    """The hook's launcher of this installation (``waymarks/hosts/hook_entry.py``)."""
    return Path(__file__).resolve().parent / "hook_entry.py"


def hook_command(python: Path, home: Path, event: str, entry: Path | None = None) -> str:
    """What Claude Code runs for ``event`` (through a shell: every part quoted), behind a
    test that the launcher is still there: Python exits 2 when it cannot open its script,
    and Claude Code reads exit 2 as "block" (the package uninstalled with the hooks left
    in place, ``pip uninstall waymarks``, erased every prompt the person typed); ``test``
    fails with 1, a hook error Claude Code reports and goes on from."""
    launcher = str(entry or hook_entry())
    return f"test -f {shlex.quote(launcher)} && " + " ".join(shlex.quote(p) for p in (
        str(python), "-I", "-S", launcher, "--home", str(home), "hook", "claude-code", event))


def hook_argv(command: str) -> list[str]:
    """The command line a hook command runs (``shlex``-split, the launcher's test left
    out)."""
    parts = shlex.split(command)
    return parts[4:] if parts[:2] == ["test", "-f"] and parts[3:4] == ["&&"] else parts


def server_entry(binary: Path, home: Path) -> dict[str, Any]:
    return {"type": "stdio", "command": str(binary),
            "args": ["--home", str(home), "mcp", "--claude-code"], "env": {}}


def _ours(command: object) -> bool:
    """Whether a hook command is one an install of Waymarks wrote: ``LAUNCHER --home H
    hook claude-code EVENT``, the launcher being this installation's shape (``PYTHON -I -S
    .../waymarks/hosts/hook_entry.py``) or the first one's (a ``waymarks`` script). A
    person's own hook that merely names Waymarks (a wrapper, an audit log) is theirs:
    install replaced it, uninstall deleted it and then the backup that held it."""
    if not isinstance(command, str):
        return False
    try:
        parts = shlex.split(command)
    except ValueError:
        return False
    if len(parts) < 6 or parts[-5] != "--home" or parts[-3:-1] != ["hook", "claude-code"] \
            or not _EVENT_NAME.fullmatch(parts[-1]):
        return False
    launcher = parts[:-5]
    if len(launcher) == 1:
        return Path(launcher[0]).name == "waymarks"
    if len(launcher) == 8 and launcher[:2] == ["test", "-f"] and launcher[3] == "&&" and \
            launcher[2] == launcher[7]:  # (the launcher's test: this release's shape)
        launcher = launcher[4:]
    return len(launcher) == 4 and launcher[1:3] == ["-I", "-S"] and \
        Path(launcher[3]).parts[-3:] == ("waymarks", "hosts", "hook_entry.py")


#: an event name as Claude Code spells them (any: one dropped by a later version still
#: names a hook an earlier install wrote)
_EVENT_NAME: Final = lazy(r"[A-Z][A-Za-z]{2,40}")


def _only_ours(data: dict[str, Any]) -> bool:
    """Whether a file holds nothing but what an install of Waymarks wrote (an earlier
    install, from another interpreter or home, found on reinstalling after an upgrade):
    it is no person's file to back up, and uninstall removes it as one install made."""
    copy = deepcopy(data)
    return bool(_remove_hooks(copy) + _remove_server(copy)) and not copy


def install(scope: Scope, project: Path, user_home: Path, home: Path,
            binary: Path | None = None, python_path: Path | None = None) -> list[Change]:
    """Merge the hooks and the MCP server (``binary``: the ``waymarks`` script the MCP
    server runs; ``python_path``: the interpreter the hooks run, this one by default).
    Every file is loaded and checked, and its new content made, before anything is
    written."""
    binary = binary or waymarks_binary()
    python = Path(python_path) if python_path is not None else Path(sys.executable)
    settings_path, mcp_path = files(scope, project, user_home)
    if scope == "project":
        _not_home(project, user_home)
        _inside(project, settings_path, mcp_path)
    with _locked(home):
        settings, mcp = load(settings_path), load(mcp_path)
        ours_alone = {loaded.path for loaded in (settings, mcp)
                      if loaded.raw is not None and _only_ours(loaded.data)}
        settings_change, mcp_change = Change(settings_path), Change(mcp_path)
        settings_change.notes += _other_scope(scope, project, user_home, home, python)
        replaced = _hook_homes(settings.data) - {str(home)}  # before ours replace them
        others = {loaded.path: _homes_in(loaded.data, container) - {str(home)}
                  for loaded, container in ((settings, "hooks"), (mcp, "mcpServers"))}
        _add_hooks(settings.data, settings_path, python, home, settings_change)
        _add_server(mcp.data, mcp_path, server_entry(binary, home), mcp_change)
        planned = [(loaded, dump(loaded.data, loaded.path))
                   for loaded, change in ((settings, settings_change), (mcp, mcp_change))
                   if change.added]
        for loaded, _ in planned:
            check_writable(loaded)
        backups = [loaded for loaded, _ in planned if loaded.raw is not None
                   and not backup_exists(loaded.path) and loaded.path not in ours_alone]
        with Undo() as undo:
            for loaded in backups:
                undo.write_backup(loaded)
            for loaded, content in planned:
                if not loaded.path.parent.exists():
                    _note_created(home, loaded.path.parent)
                undo.write(loaded, content)
        for loaded, _ in planned:
            if loaded in backups:
                assert loaded.raw is not None
                note_backup(home, loaded.path, loaded.raw)
            elif others[loaded.path]:
                take_over_backup(home, loaded.path, others[loaded.path])
        if settings_change.added:
            _take_over_created(replaced, home, settings_path.parent)
        if scope == "project":
            _note_tracked(project, [c for c in (settings_change, mcp_change) if c.added])
    # a note (the other scope's hooks) is returned when nothing was added too: it said
    # nothing on the run made to check
    return [c for c in (settings_change, mcp_change) if c.added or c.notes]


#: Claude Code's managed (policy) settings on Linux, above every other source
MANAGED_SETTINGS: Final = Path("/etc/claude-code/managed-settings.json")


def hooks_disabled(scope: Scope, project: Path, user_home: Path,
                   managed: Path = MANAGED_SETTINGS) -> tuple[Path, str] | None:
    """The settings file, and its key, that make Claude Code run no hook of this scope
    (``None``: hooks run): ``"disableAllHooks": true`` where Claude Code merges user,
    project, local and managed settings, a later one's value winning, or the managed
    file's ``"allowManagedHooksOnly": true`` (its own hooks alone run). A file that
    cannot be read says nothing here (install names its own, the others are Claude
    Code's to report)."""
    user = files("user", project, user_home)[0]
    sources = [user] if scope == "user" else [
        user, *(project / ".claude" / name for name in ("settings.json",
                                                         "settings.local.json"))]
    deciding = None
    for path in [*sources, managed]:
        try:
            data = load(path).data
        except InstallError:
            continue
        value = data.get("disableAllHooks")
        if isinstance(value, bool):
            deciding = (path, "disableAllHooks") if value else None
        if path == managed and data.get("allowManagedHooksOnly") is True:
            deciding = deciding or (path, "allowManagedHooksOnly")
    return deciding


def _note_tracked(project: Path, changes: list[Change]) -> None:
    """A warning on each changed file git tracks: it now holds this machine's paths (a
    project's ``.mcp.json`` is often committed to share its servers), and a teammate who
    pulls it gets hooks that fail on every prompt, a server that does not start."""
    from waymarks.service.team_git import tracked

    for change in changes:
        if tracked(project, str(change.path.relative_to(project))):
            change.notes.append(
                "warning: git tracks this file, and it now holds this machine's paths (the "
                "interpreter, the launcher, the home), which fail on another machine: commit "
                "it without Waymarks' entries, or uninstall and install with --user")


def _take_over_created(others: set[str], home: Path, folder: Path) -> None:
    """The hooks of the homes ``others`` were replaced by this home's: a folder one of
    them noted as created by its install (``.claude/``) is noted here now, and no longer
    there. Noted in the first home only, it was left behind, empty, by this home's
    uninstall. Best effort for the other home's record (it may be gone or not writable:
    its uninstall would find the folder in use, or gone)."""
    wanted = str(folder.absolute())
    for other in sorted(others):
        if not other.startswith("/"):  # (an install writes an absolute home)
            continue
        named = _created(Path(other))
        if wanted not in named:
            continue
        _note_created(home, folder)
        named.remove(wanted)
        with suppress(OSError):
            _write_created(Path(other), named)


def _other_scope(scope: Scope, project: Path, user_home: Path, home: Path,
                 python: Path) -> list[str]:
    """A note for each other home the other scope's Waymarks hooks use, and one when they
    use this home by another command (another interpreter's spelling, an older release's
    ``waymarks`` script): Claude Code runs the hooks of both scopes (it drops only
    identical commands), so every prompt was recorded in both homes, or its context added
    twice and each hook's request made the other's helper exit, with nothing said."""
    other: Scope = "user" if scope == "project" else "project"
    path = files(other, project, user_home)[0]
    try:
        found = _our_hooks(load(path).data)
    except InstallError:
        return []  # unreadable there: its own install reports it
    homes = sorted({h for h, _, _ in found} - {str(home)})
    if any(h == str(home) and command != hook_command(python, home, event)
           for h, event, command in found):
        homes.insert(0, str(home))
    return [f"warning: the {other} scope's {path} runs Waymarks' hooks "
            + (f"with another home ({h}): Claude Code runs both, so each prompt is recorded "
               "in both homes and its context added twice" if h != str(home) else
               "for this home by another command: Claude Code runs both, so each prompt's "
               "context is added twice")
            + f"; remove one (`waymarks --home {h} claude-code uninstall --{other}`)"
            for h in homes]


def _hook_homes(settings: dict[str, Any]) -> set[str]:
    """The homes the Waymarks hooks of a settings file's content use."""
    return {found for found, _, _ in _our_hooks(settings)}


def _our_hooks(settings: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(home, event, command) of each Waymarks hook of a settings file's content
    (anything malformed is passed over: install refuses it, naming it, after this)."""
    hooks = settings.get("hooks")
    found = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else ():
                command = hook.get("command") if isinstance(hook, dict) else None
                if _ours(command):
                    found.append((shlex.split(str(command))[-4], str(event), str(command)))
    return found


def _add_hooks(settings: dict[str, Any], path: Path, python: Path, home: Path,
               change: Change) -> None:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: \"hooks\" is not an object; fix it first. {NOTHING_CHANGED}")
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"{path}: hooks.{event} is not a list; fix it first. "
                               f"{NOTHING_CHANGED}")
        for i, group in enumerate(groups):
            if isinstance(group, dict) and not isinstance(group.get("hooks", []), list):
                raise InstallError(f"{path}: hooks.{event}[{i}].hooks is not a list (Claude "
                                   "Code cannot run it); fix or remove that entry, then run "
                                   f"this again. {NOTHING_CHANGED}")
        command = hook_command(python, home, event)
        present = [h for g in groups if isinstance(g, dict) for h in g.get("hooks", [])
                   if isinstance(h, dict) and _ours(h.get("command"))]
        if any(h.get("command") == command for h in present):
            continue
        _remove_ours(groups)  # an older install (another path): replaced, not duplicated
        groups.append({"hooks": [{"type": "command", "command": command,
                                  "timeout": HOOK_TIMEOUT_S}]})
        change.added.append(f"hooks.{event}")


def _add_server(mcp: dict[str, Any], path: Path, wanted: dict[str, Any],
                change: Change) -> None:
    servers = mcp.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InstallError(f"{path}: \"mcpServers\" is not an object; fix it first. "
                           f"{NOTHING_CHANGED}")
    current = servers.get(SERVER_NAME)
    if current is not None and not _our_server(current):
        raise InstallError(f"{path}: an MCP server named {SERVER_NAME!r} already exists "
                           f"and is not Waymarks; rename or remove it first. {NOTHING_CHANGED}")
    entry = wanted if current is None else refreshed_server(current, wanted)
    if current != entry:
        servers[SERVER_NAME] = entry
        change.added.append(f"mcpServers.{SERVER_NAME}")


@contextmanager
def _locked(home: Path | None) -> Iterator[None]:
    """One install or uninstall at a time per home (an exclusive ``flock`` on
    ``<home>/claude-code/install.lock``): two at once would each back up what the other
    just wrote."""
    if home is None:
        yield
        return
    lock = _record(home).with_name("install.lock")
    try:
        fd = open_lock(lock)
    except OSError as exc:
        # a home that cannot be written (or a full disk) has its own fix: "remove whatever
        # is there" sent the person looking for a file that was never made
        fix = fix_for(exc) or "; remove whatever is there, then run this again"
        raise InstallError(f"{lock} cannot be opened ({os_error_cause(exc)}){fix}. "
                           f"{NOTHING_CHANGED}") from exc
    with holding(fd):
        yield


def _record(home: Path) -> Path:
    return home / "claude-code" / "created-folders.json"


def _created(home: Path) -> list[str]:
    named = read_record(_record(home))
    return [p for p in named if isinstance(p, str)] if isinstance(named, list) else []


def _note_created(home: Path, folder: Path) -> None:
    """Remember a folder install creates (``.claude/``), so uninstall removes it again."""
    named = _created(home)
    if str(folder.absolute()) not in named:
        record = _record(home)
        make_private_dirs(record.parent)
        write_atomic(record, json.dumps([*named, str(folder.absolute())]))


def uninstall(scope: Scope, project: Path, user_home: Path,
              home: Path | None = None) -> list[Change]:
    """Remove what :func:`install` added, and put each file back as install found it
    (``home``: where install noted the folders it created). Every file is loaded and
    checked, and what to write decided, before anything is written."""
    settings_path, mcp_path = files(scope, project, user_home)
    if scope == "project":
        _not_home(project, user_home)
        _inside(project, settings_path, mcp_path)
    # a home never made holds no record of this install, and is not made for its lock
    # (run without the install's --home, uninstall made the default home and left it)
    with _locked(home if home is not None and home.exists() else None):
        plans = [put_back_plan(path, remove, container, partial(_homes, home, container))
                 for path, remove, container in ((settings_path, _remove_hooks, "hooks"),
                                                 (mcp_path, _remove_server, "mcpServers"))]
        for plan in plans:
            if plan.content is not None or plan.remove_file:
                check_writable(plan.loaded)
        with Undo() as undo:
            changes = [plan.apply(undo) for plan in plans if plan.change is not None]
        for plan in plans:  # once every file is as it will stay
            plan.drop_backup()
        _remove_created_folders(home, [h for plan in plans for h in plan.homes],
                                (settings_path, mcp_path))
    return [c for c in changes if c is not None]


def _not_home(project: Path, user_home: Path) -> None:
    """A project install in the home folder is a user install: its
    ``.claude/settings.json`` is Claude Code's user settings, so every project got the
    hooks (and an uninstall there took a ``--user`` install's hooks, leaving its server)."""
    try:
        same = project.resolve() == user_home.resolve()
    except (OSError, RuntimeError):
        return
    if same:
        raise InstallError(f"{project} is your home folder, whose .claude/settings.json is "
                           "Claude Code's settings for every project: run this in a "
                           f"project's folder, or give --user for every project. "
                           f"{NOTHING_CHANGED}")


def _inside(project: Path, *paths: Path) -> None:
    """A project's settings are the project's own: a repository whose ``.claude``,
    ``.claude/settings.json`` or ``.mcp.json`` is a symbolic link out of it had ``install
    --project`` (and uninstall) change the file it leads to, another program's JSON or the
    person's own settings, and read what that held into the repository's file."""
    root = project.resolve()
    for path in paths:
        try:
            real = path.resolve()
        except (OSError, RuntimeError):  # a loop: load() names it
            continue
        if root not in real.parents:
            raise InstallError(f"{path} leads out of the project, to {real}, through a "
                               "symbolic link; a project's settings stay in the project: "
                               "remove the link, or install for yourself with --user. "
                               f"{NOTHING_CHANGED}")


def _remove_created_folders(home: Path | None, named_homes: list[Path],
                            paths: tuple[Path, Path]) -> None:
    """Remove, when empty, a folder of ``paths`` that an install noted as created in
    ``home`` (uninstall's) or in one of ``named_homes``, those the removed entries named:
    uninstalled from a shell without the install's ``--home``, its ``.claude/`` was left
    behind, still noted there. Uninstall's own record must be written; another's is best
    effort, as in :func:`_take_over_created`."""
    for each in dict.fromkeys([*([home] if home is not None else []), *named_homes]):
        if each != home and not each.is_absolute():  # (an install writes an absolute home)
            continue
        named = _created(each)
        for path in paths:
            folder = str(path.parent.absolute())
            if folder not in named:
                continue
            if path.parent.is_dir() and not any(path.parent.iterdir()):
                path.parent.rmdir()  # install created it for its file, and nothing else
            named.remove(folder)
            with suppress(*(() if each == home else (OSError,))):
                _write_created(each, named)


def _write_created(home: Path, named: list[str]) -> None:
    """Keep ``named`` as the folders install noted in ``home`` (none: no record)."""
    if named:
        write_atomic(_record(home), json.dumps(named))
    else:
        _record(home).unlink(missing_ok=True)


def _remove_hooks(settings: dict[str, Any]) -> list[str]:
    removed = []
    hooks = settings.get("hooks")
    if isinstance(hooks, dict):
        for event in list(hooks):
            groups = hooks[event]
            if isinstance(groups, list) and _remove_ours(groups):
                removed.append(f"hooks.{event}")
                if not groups:
                    del hooks[event]
        if not hooks:
            del settings["hooks"]
    return removed


def _remove_server(mcp: dict[str, Any]) -> list[str]:
    servers = mcp.get("mcpServers")
    if not (isinstance(servers, dict) and _our_server(servers.get(SERVER_NAME))):
        return []
    del servers[SERVER_NAME]
    if not servers:
        del mcp["mcpServers"]
    return [f"mcpServers.{SERVER_NAME}"]


def _homes(home: Path | None, container: str, data: dict[str, Any]) -> list[Path]:
    """The homes whose installs may have written the backup of a file holding ``data``:
    uninstall's, and those its Waymarks entries name (a re-install under another home
    finds the first one's backup)."""
    return [*([home] if home is not None else []), *map(Path, sorted(_homes_in(data,
                                                                               container)))]


def _homes_in(data: dict[str, Any], container: str) -> set[str]:
    """The homes the Waymarks entries of a file's content name (its hooks', its server's)."""
    if container == "hooks":
        return _hook_homes(data)
    servers = data.get("mcpServers")
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    args = entry.get("args") if _our_server(entry) else None  # type: ignore[union-attr]
    return {str(args[i + 1]) for i in range(len(args) - 1) if args[i] == "--home"} \
        if isinstance(args, list) else set()


def _our_server(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    return "waymarks" in str(entry.get("command")) and isinstance(args, list) \
        and "--claude-code" in args


def _remove_ours(groups: list[Any]) -> bool:
    removed = False
    for group in list(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        kept = [h for h in group["hooks"] if not (isinstance(h, dict) and _ours(h.get("command")))]
        if len(kept) != len(group["hooks"]):
            removed = True
            if kept:
                group["hooks"] = kept
            else:
                groups.remove(group)
    return removed
