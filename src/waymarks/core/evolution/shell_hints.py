"""A non-executing shell lexer: what a ``bash`` tool call did, and where (EVOLUTION item 42).

Work observations (:mod:`.observations`) need two things from a shell command line without
running it: which operations it invoked (``git push``, ``pytest``, ``rm``) and which
directories they ran in (``cd DIR``, ``git -C DIR``), so a claim about that checkout can be
nominated (:mod:`.nominate`). This module reads the command line as text only.

What must stay true:
- nothing is executed or expanded: a word holding a command substitution (``$(...)``,
  backticks), a parameter expansion (``$X``, ``${X}``), a glob (unquoted ``*``, ``?``,
  ``[``), a brace expansion (``/a{b,c}``) or a leading ``~`` is *not literal*, and a
  not-literal word is never taken as a directory (its real value is unknowable here);
  after ``cd`` to such a word the directory is unknown until the next literal ``cd``;
- quoting is honoured (single quotes literal, double quotes with backslash escapes, where
  ``$`` and backticks still make the word not literal), so ``cd "/srv/my repo"`` names one
  directory with a space in it;
- environment prefixes (``A=1 B=2 git push``) and wrappers (``env``, ``sudo``, ``nohup``,
  ``time``, ``command``, ``exec``, ``nice``, ``stdbuf``, ``timeout``) are skipped to find
  the program, with the values of their options that take one (``sudo -u bob``,
  ``nice -n 5``, ``timeout -s KILL 5``, ``env -u NAME``);
- a here-document's body (``<<EOF``, ``<<-EOF``, quoted delimiters too) is data: the
  lines up to its delimiter line are never read as commands;
- bounded: at most :data:`MAX_INPUT` bytes of a command line are read, at most
  :data:`MAX_COMMANDS` simple commands and :data:`MAX_WORDS` words each;
- directories come only from arguments; the working directory of the process, when given,
  only anchors a relative literal path; it is never a directory by itself.

Pure: no I/O, no clock. Path normalisation is textual (``.`` and ``..`` folded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from waymarks.core.lazy_re import lazy

MAX_INPUT: Final = 8_192
MAX_COMMANDS: Final = 64
MAX_WORDS: Final = 128
_OPERATORS: Final = ("&&", "||", ";;", "|&", ";", "|", "&", "\n", "(", ")")
_WRAPPERS: Final = frozenset({"env", "sudo", "nohup", "time", "command", "exec", "nice",
                              "stdbuf", "timeout"})
#: wrapper options whose value is the next word (``sudo -u bob git push``)
_WRAPPER_VALUE_OPTIONS: Final = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T",
                       "--user", "--group", "--chdir", "--host", "--prompt", "--role",
                       "--type", "--other-user", "--command-timeout", "--close-from"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "time": frozenset({"-f", "-o", "--format", "--output"}),
    "exec": frozenset({"-a"}),
}
_GLOB: Final = frozenset("*?[")
#: an unquoted brace expansion (``/a{b,c}``, ``{1..3}``): one word becomes several
_BRACES: Final = lazy(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
_OPERATOR_START: Final = frozenset("&|;\n()")
#: characters that never start or change anything by themselves (``#`` and ``~`` matter
#: only at a word's start, so a run never begins with them)
_PLAIN: Final = lazy(r"[^\s'\"\\$`*?\[~<>&|;()#][^\s'\"\\$`*?\[<>&|;()]*")
#: git options that take a value as the next word (besides ``-C``)
_GIT_VALUE_OPTIONS: Final = frozenset({"-c", "--git-dir", "--work-tree", "--namespace",
                                       "--exec-path", "--config-env"})


@dataclass(frozen=True, slots=True)
class Word:
    """One shell word after quote removal; ``literal`` is False when expanding it would
    depend on something the text does not say (substitution, parameter, glob, tilde,
    brace expansion)."""

    text: str
    literal: bool


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command: its words with environment prefixes and wrappers removed, and
    the directory it runs in when the command line says so (``None``: not said)."""

    words: tuple[Word, ...]
    directory: str | None

    @property
    def program(self) -> str:
        return _basename(self.words[0].text) if self.words else ""

    def args(self) -> list[str]:
        return [w.text for w in self.words[1:]]


@dataclass(frozen=True, slots=True)
class Parsed:
    commands: tuple[SimpleCommand, ...]
    directories: tuple[str, ...]  # every literal directory named (cd, git -C), in order
    truncated: bool


def lex(line: str) -> tuple[list[list[Word]], bool]:
    """The command line split into simple commands' words (operators separate them);
    ``True`` when a bound cut it short."""
    data = line.encode("utf-8")
    truncated = len(data) > MAX_INPUT
    text = data[:MAX_INPUT].decode("utf-8", "ignore") if truncated else line
    commands: list[list[Word]] = [[]]
    chars: list[str] = []
    literal = True
    started = False
    #: here-documents opened on the current line: (delimiter, strip leading tabs)
    heredocs: list[tuple[str, bool]] = []
    i, n = 0, len(text)

    def finish() -> None:
        nonlocal chars, literal, started
        if started and len(commands[-1]) < MAX_WORDS:
            commands[-1].append(Word("".join(chars), literal))
        chars, literal, started = [], True, False

    while i < n:
        c = text[i]
        if c in " \t\r":
            finish()
            i += 1
            continue
        if c == "#" and not started:
            while i < n and text[i] != "\n":
                i += 1
            continue
        plain = _PLAIN.match(text, i)
        if plain is not None:  # a run of ordinary characters (most of any command line)
            started = True
            if "{" in plain.group() and _BRACES.search(plain.group()):
                literal = False
            chars.append(plain.group())
            i = plain.end()
            continue
        if c in "<>" or text.startswith("&>", i):  # a redirection stays in its word
            started = True
            end = i + 1
            while end < n and text[end] in "<>&":
                end += 1
            if text[i:end] == "<<":  # a here-document: its body is data, not commands
                delimiter, end = _heredoc_delimiter(text, end)
                if delimiter is not None:
                    heredocs.append(delimiter)
            chars.append(text[i:end])
            i = end
            continue
        operator = next((op for op in _OPERATORS if text.startswith(op, i)), None) \
            if c in _OPERATOR_START else None
        if operator is not None:
            finish()
            if commands[-1]:
                if len(commands) >= MAX_COMMANDS:
                    return commands, True
                commands.append([])
            i += len(operator)
            if operator == "\n" and heredocs:
                i = _skip_heredocs(text, i, heredocs)
                heredocs = []
            continue
        started = True
        if c == "\\":
            if i + 1 < n and text[i + 1] != "\n":
                chars.append(text[i + 1])
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            chars.append(text[i + 1:end])
            i = end + 1
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\$`':
                    chars.append(text[i + 1])
                    i += 2
                    continue
                if text[i] in "$`":
                    literal = False
                chars.append(text[i])
                i += 1
            i += 1
            continue
        if c in "$`" or c in _GLOB or (c == "~" and not chars):
            literal = False
            if c == "$" and text.startswith("$(", i):  # skip the substitution whole
                depth, j = 0, i + 1
                while j < n:
                    if text[j] == "(":
                        depth += 1
                    elif text[j] == ")":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                chars.append(text[i:j + 1])
                i = j + 1
                continue
            if c == "`":
                end = text.find("`", i + 1)
                end = n if end < 0 else end
                chars.append(text[i:end + 1])
                i = end + 1
                continue
        chars.append(c)
        i += 1
    finish()
    return [c for c in commands if c], truncated


def _heredoc_delimiter(text: str, i: int) -> tuple[tuple[str, bool] | None, int]:
    """The here-document delimiter after ``<<`` at ``i`` (``<<-`` strips leading tabs;
    quotes and backslashes in it are removed, as the shell does) and where it ends."""
    n = len(text)
    strip_tabs = i < n and text[i] == "-"
    i += 1 if strip_tabs else 0
    while i < n and text[i] in " \t":
        i += 1
    parts: list[str] = []
    while i < n and text[i] not in " \t\n;&|()<>":
        c = text[i]
        if c in "'\"":
            end = text.find(c, i + 1)
            end = n if end < 0 else end
            parts.append(text[i + 1:end])
            i = end + 1
        elif c == "\\":
            parts.append(text[i + 1:i + 2])
            i += 2
        else:
            parts.append(c)
            i += 1
    delimiter = "".join(parts)
    return ((delimiter, strip_tabs) if delimiter else None), i


def _skip_heredocs(text: str, i: int, heredocs: list[tuple[str, bool]]) -> int:
    """Where the commands resume after the bodies of ``heredocs`` that start at ``i``
    (each body ends at a line that is exactly its delimiter; an unterminated body runs
    to the end of the text)."""
    n = len(text)
    for delimiter, strip_tabs in heredocs:
        while i < n:
            end = text.find("\n", i)
            end = n if end < 0 else end
            line = text[i:end]
            i = end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return min(i, n)


def _assignment(word: Word) -> bool:
    name, eq, _value = word.text.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _strip_prefixes(words: list[Word]) -> list[Word]:
    """Words without environment assignments and wrapper programs (and their options)."""
    i = 0
    while i < len(words):
        word = words[i]
        if _assignment(word):
            i += 1
        elif word.literal and _basename(word.text) in _WRAPPERS:
            wrapper = _basename(word.text)
            takes_value = _WRAPPER_VALUE_OPTIONS.get(wrapper, frozenset())
            i += 1
            while i < len(words) and words[i].text.startswith("-"):
                option = words[i].text
                i += 1
                if option == "--":
                    break
                if option in takes_value:
                    i += 1  # its value (``sudo -u bob``, ``nice -n 5``), not the program
            if wrapper == "timeout" and i < len(words):
                i += 1  # the duration
        else:
            break
    return words[i:]


def parse(line: str, cwd: str | None = None) -> Parsed:
    """The simple commands of ``line`` with the directory each runs in, as far as the text
    says: ``cd DIR`` moves it for the commands after it; ``git -C DIR`` for that git
    command only. ``cwd`` anchors relative literal paths and is never a directory itself."""
    words_list, truncated = lex(line)
    directory: str | None = None
    known_base = cwd if cwd is not None and cwd.startswith("/") else None
    commands: list[SimpleCommand] = []
    named: list[str] = []
    for raw in words_list:
        words = _strip_prefixes(raw)
        if not words:
            continue
        program = _basename(words[0].text) if words[0].literal else ""
        if program in ("cd", "pushd"):
            target = next((w for w in words[1:] if not w.text.startswith("-")), None)
            if target is None or not target.literal:
                directory = None  # ``cd`` alone goes home; a substitution is unknowable
            else:
                directory = resolve(target.text, directory or known_base)
                if directory is not None:
                    named.append(directory)
            commands.append(SimpleCommand(tuple(words), directory))
            continue
        here = directory
        if program == "git":
            git_dir, rest = _git_options(words[1:], here or known_base)
            if git_dir is not None:
                here = git_dir if git_dir != "" else None
                if here is not None:
                    named.append(here)
            words = [words[0], *rest]
        commands.append(SimpleCommand(tuple(words), here))
    return Parsed(tuple(commands), tuple(dict.fromkeys(named)), truncated)


def _git_options(words: list[Word], base: str | None) -> tuple[str | None, list[Word]]:
    """(the ``-C`` directory: ``None`` not given, ``""`` not literal; the words from the
    subcommand on)."""
    directory: str | None = None
    i = 0
    while i < len(words) and words[i].text.startswith("-"):
        option = words[i].text
        if option == "-C" and i + 1 < len(words):
            target = words[i + 1]
            if target.literal and directory != "":
                directory = resolve(target.text, directory or base) or ""
            else:
                directory = ""
            i += 2
        elif option in _GIT_VALUE_OPTIONS and i + 1 < len(words):
            i += 2
        else:
            i += 1
    return directory, words[i:]


def resolve(path: str, base: str | None) -> str | None:
    """``path`` made absolute against ``base`` and normalised textually; ``None`` when it
    is relative with no absolute base, or empty."""
    if not path:
        return None
    if not path.startswith("/"):
        if base is None or not base.startswith("/"):
            return None
        path = base.rstrip("/") + "/" + path
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return "/" + "/".join(parts)


def _basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]
