"""The learning switch: ``[evolution] learn`` in the home's ``config.toml``.

Learning is a mode the person turns on once, in the home configuration (or with
``waymarks learn on``); it is off by default, and while it is off nothing is captured. This
module reads only the ``learn`` key of ``[evolution]``: every other key of that table (the
provider, caps, timeouts) belongs to the job queue's parser, and each ignores the other's.

A repository's configuration (``<project>/.waymarks/config.toml``) may only tighten: its
``learn = false`` turns learning off for that project; ``learn = true`` there is ignored
(a repository someone else wrote must not start sending conversations to a model).

An invalid file fails closed (learning is off, and the error names the file and the rule,
never its content). ``set_learning`` edits the home file in place, keeping everything else
in it, and writes only a result that parses and says what was asked (atomic replace).
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any, Final

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.files.atomic import write_atomic
from waymarks.files.paths import resolved
from waymarks.service.config import in_project
from waymarks.service.learning_ledger import has_ledger as has_ledger  # re-exported
from waymarks.service.learning_ledger import ledger_path as ledger_path  # re-exported

CONFIG_FILE: Final = "config.toml"
PROJECT_CONFIG: Final = Path(".waymarks") / CONFIG_FILE
TABLE: Final = "evolution"
KEY: Final = "learn"
MAX_CONFIG_BYTES: Final = 1 << 20
_HEADER: Final = lazy(r"^\s*\[\s*evolution\s*\]\s*(#.*)?$")
_ANY_HEADER: Final = lazy(r"^\s*\[")
_LEARN_LINE: Final = lazy(r"^\s*learn\s*=")
#: a ``learn`` line as the file may hold it (its value is a boolean: anything else is
#: refused before the edit), with the indentation and the comment after it to keep
_LEARN_VALUE: Final = lazy(r"^(\s*)learn\s*=\s*(?:true|false)(\s*(?:#.*)?)$")


class LearningConfigError(ValueError):
    """The configuration cannot say whether learning is on (learning stays off). Its own
    class, not ``ServiceError``, so the hook's path imports nothing heavy; commands turn it
    into one (``code`` ``bad_config``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class LearningState(msgspec.Struct, frozen=True):
    enabled: bool
    home_setting: bool
    project_off: bool  # the project's configuration turned it off
    config: str  # the home configuration file
    ignored: tuple[str, ...] = ()  # what a project tried and may not do

    def to_json(self) -> dict[str, Any]:
        return {"learning": self.enabled, "homeSetting": self.home_setting,
                "projectOff": self.project_off, "config": self.config,
                "ignored": list(self.ignored)}


def _read(path: Path) -> dict[str, Any]:
    from waymarks.files.reading import read_regular

    try:  # a FIFO in its place is unreadable, never waited on
        raw = read_regular(path, limit=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise LearningConfigError(
                "bad_config", f"{path}: larger than {MAX_CONFIG_BYTES} bytes; fix or remove it"
            ) from exc
        raise _unreadable(path) from exc
    # imported here: most homes have no configuration file, and a new process (a one-shot
    # recall, a hook) would otherwise pay the parser's import on every start
    import tomllib
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise _unreadable(path) from exc


def _unreadable(path: Path) -> LearningConfigError:
    # the parser's message may quote the file: name the file and the fix only
    return LearningConfigError("bad_config", f"{path}: not a readable TOML file; fix or remove "
                               "it (learning stays off until then)")


def _learn(config: dict[str, Any], path: Path) -> bool | None:
    table = config.get(TABLE, {})
    if not isinstance(table, dict):
        raise LearningConfigError("bad_config", f"{path}: [{TABLE}] must be a table")
    value = table.get(KEY)
    if value is not None and not isinstance(value, bool):
        raise LearningConfigError("bad_config", f"{path}: [{TABLE}] {KEY} must be true or false")
    return value


def learning_state(home: Path, project: str | None = None) -> LearningState:
    """Whether learning is on for ``project`` (raises ``LearningConfigError`` for a bad file)."""
    home_file = home / CONFIG_FILE
    home_value = bool(_learn(_read(home_file), home_file))
    project_off = False
    ignored: list[str] = []
    if project:
        project_file = Path(project) / PROJECT_CONFIG
        if (project_file.exists() or project_file.is_symlink()) and not in_project(
                project_file, project):
            # what `config show` does not read either (a link to /etc/passwd failed here)
            ignored.append(f"{project_file} (a link out of the project: not read)")
        elif project_file.is_file():
            wanted = _learn(_read(project_file), project_file)
            if wanted is False:
                project_off = True
            elif wanted is True and not home_value:
                ignored.append(f"{project_file}: [{TABLE}] {KEY} = true (only the home "
                               "configuration may turn learning on)")
    return LearningState(home_value and not project_off, home_value, project_off,
                         str(home_file), tuple(ignored))


def learning_enabled(home: Path, project: str | None = None) -> bool:
    """Fail closed: a configuration that cannot be read means learning is off."""
    try:
        return learning_state(home, project).enabled
    except LearningConfigError:
        return False


def set_learning(home: Path, on: bool, project: str | None = None) -> LearningState:
    """Set ``[evolution] learn`` in the home configuration, keeping the rest of the file;
    the state returned is ``project``'s (whose configuration may turn it off there)."""
    path = home / CONFIG_FILE
    _learn(_read(path), path)  # refuse to edit a file that is already invalid
    learning_state(home, project)  # and the project's, before the change (it was after)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    updated = _with_learn(text, on)
    import tomllib  # see _read
    try:
        result = _learn(tomllib.loads(updated), path)
    except (tomllib.TOMLDecodeError, RecursionError):
        result = None
    if result is not on:
        raise LearningConfigError("bad_config", f"{path}: could not set [{TABLE}] {KEY} here (is "
                           f"{TABLE} written as a dotted key or inline table?); set "
                           f"`[{TABLE}]` `{KEY} = {str(on).lower()}` by hand. Nothing changed")
    home.mkdir(mode=0o700, parents=True, exist_ok=True)  # a home made here is private too
    # a home configuration linked to a dotfiles checkout is written where it leads, as
    # it is read (the link itself, refused by the atomic replace, made `learn on`, the
    # installers' advice, fail); a link leading nowhere is refused there still
    target = resolved(path) if path.is_symlink() else None
    write_atomic(target if target is not None and target.is_file() else path, updated,
                 mode=0o600)
    return learning_state(home, project)


def _with_learn(text: str, on: bool) -> str:
    line = f"{KEY} = {str(on).lower()}"
    lines = text.splitlines()
    for index, current in enumerate(lines):
        if not _HEADER.match(current):
            continue
        end = next((j for j in range(index + 1, len(lines)) if _ANY_HEADER.match(lines[j])),
                   len(lines))
        for j in range(index + 1, end):
            if _LEARN_LINE.match(lines[j]):
                # the person's comment on the line stays (``learn = false  # until the
                # audit`` lost its reason), and so does its indentation
                kept = _LEARN_VALUE.match(lines[j])
                lines[j] = line if kept is None else f"{kept[1]}{line}{kept[2]}"
                return "\n".join(lines) + "\n"
        lines.insert(index + 1, line)
        return "\n".join(lines) + "\n"
    prefix = text if not text or text.endswith("\n") else text + "\n"
    return f"{prefix}{'' if not text else chr(10)}[{TABLE}]\n{line}\n"
