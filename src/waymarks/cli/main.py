"""``waymarks`` entry point.

Kept lean on purpose: ``waymarks hook claude-code EVENT`` runs on every prompt a person
sends in Claude Code, so it is answered (:func:`waymarks.cli.launchers.hook_fast_path`)
before click, rich or the command table are imported; so is ``waymarks recall``
(:func:`waymarks.cli.lean.recall_fast_path`: a one-shot recall per question, run without
the cyclic garbage collector, from msgspec's import on; when :func:`main` runs the
process's own command line, the process ends as soon as the answer is written, with the
collector still off and without the interpreter's teardown:
:func:`waymarks.spawn.imports.end_process`, as it does after a hook that ran in it), and so is
``waymarks mcp`` over stdio. Everything else is :func:`waymarks.cli.app.run`.
"""

import os
import sys

from waymarks.cli.home import default_home
from waymarks.spawn.switches import CLI_HELPER, switched_off


def main(argv: list[str] | None = None, *, warm: bool = True) -> int:
    """Run a command line; its exit status. ``argv`` ``None``: this process's own (the
    console script, ``python -m waymarks.cli.main``), which a one-shot recall may end, and
    which a warm helper's child may run (:mod:`waymarks.cli.warm`; ``warm=False``: the
    child itself)."""
    try:
        return _main(list(sys.argv[1:] if argv is None else argv), owns_process=argv is None,
                     warm=warm)
    except BrokenPipeError:  # `waymarks … | head`: the reader left; not an error of ours
        # (a command's result meets it in the runner, which keeps its exit status;
        # here only what is written outside it: help, the version)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # Ctrl-C outside a command's work (its result being
        from waymarks.cli.runner import INTERRUPTED, note  # written): as within it
        from waymarks.commands.results import EXIT_INTERRUPTED

        note(INTERRUPTED)
        return EXIT_INTERRUPTED


def _main(argv: list[str], owns_process: bool, warm: bool) -> int:
    if "hook" in argv:  # the launchers module is large: only a hook's command line loads it
        from waymarks.cli.launchers import hook_fast_path

        hooked = hook_fast_path(argv, default_home, owns_process=owns_process)
        if hooked is not None:
            return hooked
    if argv and argv[-1] == "--version" and set(argv[:-1]) <= {"--json"}:
        from waymarks import __version__  # asked often, by scripts too: no CLI library

        try:
            if sys.stdout is None:  # (closed: >&-)
                raise OSError
            print(f'{{"version": "{__version__}"}}' if argv[:-1] else f"waymarks {__version__}",
                  flush=True)
        except BrokenPipeError:
            raise
        except OSError:  # (> /dev/full: a traceback, exit 1)
            from waymarks.cli.runner import output_lost, stdout_to_null

            stdout_to_null()
            return output_lost()
        return 0
    if "_WAYMARKS_COMPLETE" in os.environ:
        from waymarks.cli.app import complete

        return complete()
    helper = None
    # a one-shot command: a warm helper's child runs it, if any (switched off: the helper's
    # client is not even imported, ~1.2M instructions of a one-shot recall)
    if owns_process and warm and not switched_off(os.environ.get(CLI_HELPER, "")):
        from waymarks.cli import warm as warm_start

        helper = warm_start.routed(argv, default_home())
        if helper is not None:
            ran, wanted = warm_start.run(argv, helper)
            if ran is not None:
                return ran
            if not wanted:  # one listens there, and refused this command: runs on
                helper = None
    from waymarks.spawn.imports import end_process, import_msgspec, import_pathlib, short_lived

    with short_lived():  # from the first import on (msgspec's and pathlib's: 11 collections)
        import_msgspec()  # before anything imports it with typing_extensions (7-13 ms)
        import_pathlib()
        from waymarks.cli.lean import mcp_fast_path, recall_fast_path

        answered = recall_fast_path(argv)
        if helper is not None and answered is not None:
            warm_start.start(helper)  # for the next command (after this one's answer)
        if answered is not None and owns_process:
            # ended with the collector still off: switched on, it collected at the next
            # allocation every object the recall's imports made (~100k, 6-13 ms of CPU)
            end_process(answered)  # returns only while a thread runs
    if answered is None:
        answered = mcp_fast_path(argv)  # a server: lives on
    if answered is not None:
        return answered
    from waymarks.cli.app import run

    if helper is not None:
        try:
            return run(argv)
        finally:
            warm_start.start(helper)
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
