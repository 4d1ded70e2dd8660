"""What every command is made of: the result it returns and the runtime it may use
(defined in :mod:`waymarks.commands.results`, without click, and re-exported here), and the
click classes that make ``-h``/``--help`` a request for help everywhere (never content)
and hand the help text back as a result instead of printing it.

What must stay true:

- parsing a command never opens the service: ``-h``/``--help`` (and any usage error) is
  answered before :meth:`Runtime.app` is called, so asking for help writes nothing; it
  is help wherever it stands before ``--``, an option's value too (:meth:`_Helped.
  asks_help`);
- a command returns one :class:`Result`; its ``data`` is the whole ``--json`` document;
- option names are case-insensitive and ``--`` ends options (the ``/context`` rules of
  :mod:`waymarks.core.arguments`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import click
import msgspec

from waymarks.commands.results import EXIT_ERROR as EXIT_ERROR  # re-exported
from waymarks.commands.results import EXIT_OK as EXIT_OK
from waymarks.commands.results import EXIT_REJECTED as EXIT_REJECTED
from waymarks.commands.results import Column as Column
from waymarks.commands.results import NullProgress as NullProgress
from waymarks.commands.results import ProgressFn as ProgressFn
from waymarks.commands.results import Result as Result
from waymarks.commands.results import Runtime as Runtime
from waymarks.commands.results import Shown as Shown
from waymarks.commands.results import Table as Table

CONTEXT_SETTINGS: dict[str, Any] = {
    "help_option_names": ["-h", "--help"],
    "token_normalize_func": str.lower,  # option and command names: case-insensitive
    "max_content_width": 100,
}
F = TypeVar("F", bound=Callable[..., Any])


def runtime() -> Runtime:
    """The runtime of the command being run."""
    found = click.get_current_context().find_object(Runtime)
    assert found is not None, "commands run with a Runtime as the context object"
    return found


def _show_help(ctx: click.Context, param: click.Parameter | None, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        text = ctx.get_help()
        raise Shown(Result({"usage": text, "command": ctx.command_path}, text))


def _help_option(names: Sequence[str]) -> click.Option:
    return click.Option(list(names), is_flag=True, expose_value=False, is_eager=True,
                        callback=_show_help, help="Show this help, with examples, and exit.")


def _set_json(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        found = ctx.find_object(Runtime)
        if found is not None:
            found.json = True


def json_option() -> click.Option:
    return click.Option(["--json"], is_flag=True, expose_value=False, callback=_set_json,
                        help="Print exactly one JSON document instead of text, e.g. "
                             "`waymarks pins --json`.")


class _Helped(click.Command):
    """What commands and groups share: a help option answering with a :class:`Shown`
    result, and the examples after the help text."""

    examples: tuple[str, ...] = ()

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        names = self.get_help_option_names(ctx)
        if not names or not self.add_help_option:
            return None
        if self._help_option is None:
            self._help_option = _help_option(names)
        return self._help_option

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _examples(formatter, self.examples)
        super().format_epilog(ctx, formatter)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing and self.asks_help(ctx, args):
            _show_help(ctx, self.get_help_option(ctx), True)  # (raises Shown)
        if not ctx.resilient_parsing:
            self.refuse_repeats(ctx, args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as problem:
            if problem.ctx is None:  # click's parser names none for a missing value: the
                problem.ctx = ctx    # error then pointed at `waymarks --help` (or at
            raise                    # `context`'s), not at this command's

    def refuse_repeats(self, ctx: click.Context, args: Sequence[str]) -> None:
        """A usage error for an option taking one value given twice before ``--``: click
        kept the last one in silence (``--source A --source B`` dropped A's provenance,
        ``--classification sensitive --classification normal`` lowered the level)."""
        # as click reads them: names in any case (`--CLASSIFICATION`), short ones too (`-o`)
        single = {name.lower(): param for param in self.get_params(ctx)
                  if isinstance(param, click.Option) and not param.is_flag
                  and not param.count and not param.multiple and param.nargs == 1
                  for name in param.opts}
        seen: set[click.Option] = set()
        tokens = iter(args)
        for token in tokens:
            if token == "--":
                return
            name, equals, _ = token.partition("=")
            if len(token) > 2 and token[0] == "-" and token[1] != "-" \
                    and token[:2].lower() in single:  # a short one, its value attached (-oFILE)
                name, equals = token[:2], "="
            param = single.get(name.lower())
            if param is None:
                if not ctx.allow_interspersed_args and not token.startswith("-"):
                    return  # the command a group's (or `context`'s) options run
                continue
            if not equals:
                next(tokens, None)  # its value, whatever it is
            if param in seen:
                hint = " (several entries: --source A,B)" if param.name == "source" else ""
                raise click.UsageError(f"{name} was given more than once; give it once"
                                       f"{hint}", ctx)
            seen.add(param)

    def asks_help(self, ctx: click.Context, args: Sequence[str]) -> bool:
        """Whether ``args`` hold ``-h``/``--help`` before ``--``, where it is this
        command's: an option's value too (click took ``--key -h`` as the key 'h' and
        stored it). A group's, or ``context``'s, are its options before the command
        they name; that command's own are asked by it."""
        names = {name.lower() for name in self.get_help_option_names(ctx)}
        if not names or not self.add_help_option:
            return False
        valued = {name.lower() for param in self.get_params(ctx)
                  if isinstance(param, click.Option) and not param.is_flag
                  and not param.count for name in param.opts}
        tokens = iter(args)
        for token in tokens:
            if token == "--":
                return False
            if token.lower() in names:
                return True
            if token.lower() in valued:  # its value, whatever it is (`--key --` too)
                value = next(tokens, "")
                if value.lower() in names:
                    return True
            elif not ctx.allow_interspersed_args and not token.startswith("-"):
                return False  # the command a group's (or `context`'s) options run
        return False


class Command(_Helped):
    """A command whose help option answers with a :class:`Shown` result and which takes
    ``--json`` wherever it is (as a :class:`Group` does)."""

    def __init__(self, *args: Any, examples: Sequence[str] = (), **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT_SETTINGS)
        super().__init__(*args, **kwargs)
        self.params.append(json_option())
        self.examples = tuple(examples)


#: registers a group's commands (see :meth:`Group.later`)
Loader = Callable[["Group"], None]


class Group(_Helped, click.Group):
    """A group of commands; with ``default``, the group's name alone (or followed by
    options) runs that subcommand (``waymarks memory`` lists memory).

    Commands may be registered :meth:`later`: the loader runs (importing its module) when
    one of its names is looked up, so a command line builds only the command it runs
    (building and importing all of them cost every command about 15 ms)."""

    command_class = Command

    def __init__(self, *args: Any, default: str | None = None,
                 examples: Sequence[str] = (), **kwargs: Any) -> None:
        kwargs.setdefault("context_settings", CONTEXT_SETTINGS)
        kwargs.setdefault("no_args_is_help", False)
        super().__init__(*args, **kwargs)
        if not any(param.name == "json" for param in self.params):  # (the CLI's root has)
            self.params.append(json_option())  # `learn --help --json` was "no such option"
        self.default = default
        self.examples = tuple(examples)
        #: names in the order the help lists them, loaded or not
        self.order: list[str] = list(self.commands)
        self._later: dict[str, tuple[tuple[str, ...], Loader]] = {}

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(cmd, name)
        added = name or cmd.name
        if added is not None and added not in self.order:
            self.order.append(added)

    def later(self, names: Sequence[str], loader: Loader) -> None:
        """``loader(self)`` registers exactly ``names``, when one of them is wanted."""
        for name in names:
            self._later[name] = (tuple(names), loader)
            if name not in self.order:
                self.order.append(name)

    def load(self, name: str) -> None:
        """Run the loader of ``name`` if it has not run."""
        pending = self._later.get(name)
        if pending is None:
            return
        names, loader = pending
        for each in names:
            del self._later[each]
        before = set(self.commands)
        loader(self)
        added = set(self.commands) - before
        if added != set(names):
            raise RuntimeError(f"the loader of {', '.join(names)} registered "
                               f"{', '.join(sorted(added)) or 'nothing'}")

    def load_all(self) -> None:
        for name in list(self._later):
            self.load(name)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self.load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        try:  # a copy: click parses (and consumes) an option-like name before failing
            return super().resolve_command(ctx, list(args))
        except click.UsageError:
            if not self._later:
                raise
            # no such command: click offers close names from the commands built, so all
            self.load_all()
            return super().resolve_command(ctx, args)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        help_names = set(self.get_help_option_names(ctx))
        # the group's own flags (``--json``) may come first: `memory --json add` is `add`
        flags = {name for param in self.params if isinstance(param, click.Option)
                 and param.is_flag for name in (*param.opts, *param.secondary_opts)}
        own = 0
        while own < len(args) and args[own] in flags:
            own += 1
        rest = args[own:]
        if self.default is not None and not ctx.resilient_parsing and (
                not rest or (rest[0].startswith("-") and rest[0].lower() not in help_names)):
            args = [*args[:own], self.default, *rest]
        return super().parse_args(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            summary = command.get_short_help_str(limit=formatter.width - 24)
            if name == self.default:
                summary += " (the default)"
            rows.append((name, summary))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        # in the order they were added: related ones together
        return [name for name in self.order if name in self.commands or name in self._later]


def _examples(formatter: click.HelpFormatter, examples: Sequence[str]) -> None:
    """An ``Examples:`` section, each example on its own line as written (to copy)."""
    if not examples:
        return
    with formatter.section("Examples"):
        for example in examples:
            formatter.write(f"{'':>{formatter.current_indent}}{example}\n")


def command(group: click.Group, name: str, *, summary: str, examples: Sequence[str],
            stores: Mapping[str, str] | None = None, **kwargs: Any) -> Callable[[F], F]:
    """Register a command in ``group``; ``summary`` is its help's first paragraph.
    ``stores``: the parameters whose text the command stores (name: what it is, as a
    refusal names it), refused before it runs when they hold a control character that is
    not text (:mod:`waymarks.commands.stored_text`)."""

    def decorate(function: F) -> F:
        doc = summary if function.__doc__ is None else \
            f"{summary}\n\n{inspect.cleandoc(function.__doc__)}"
        callback: Callable[..., Any] = function
        if stores:
            from waymarks.commands.stored_text import checking

            callback = checking(function, stores)
        cmd = Command(name, callback=callback, help=doc, examples=examples,
                      params=list(reversed(getattr(function, "__click_params__", []))),
                      **kwargs)
        group.add_command(cmd)
        return function

    return decorate


def invoke(group: click.Group, tokens: Sequence[str], run: Runtime,
           prog: str = "waymarks") -> Result:
    """Parse ``tokens`` as one command of ``group`` and run it. Help raises
    :class:`Shown`; bad arguments raise :class:`click.UsageError`."""
    with group.make_context(prog, list(tokens), obj=run) as ctx:
        result = group.invoke(ctx)
    if not isinstance(result, Result):
        raise click.UsageError("Missing command.", ctx)
    return result


class CommandInfo(msgspec.Struct, frozen=True):
    """One runnable command of a group, as the tests and docs walk them."""

    path: tuple[str, ...]
    command: click.Command
    options: tuple[str, ...]
    flags: tuple[str, ...]
    arguments: tuple[str, ...]


def walk(group: click.Group, prefix: tuple[str, ...] = ()) -> list[CommandInfo]:
    """Every group and command under ``group`` (groups too: they answer ``-h``)."""
    found = []
    if isinstance(group, Group):
        group.load_all()
    for name, cmd in group.commands.items():
        path = (*prefix, name)
        options = tuple(o for p in cmd.params if isinstance(p, click.Option) and not p.is_flag
                        for o in p.opts)
        flags = tuple(o for p in cmd.params if isinstance(p, click.Option) and p.is_flag
                      for o in p.opts)
        arguments = tuple(p.human_readable_name for p in cmd.params
                          if isinstance(p, click.Argument))
        found.append(CommandInfo(path, cmd, options, flags, arguments))
        if isinstance(cmd, click.Group):
            found += walk(cmd, path)
    return found
