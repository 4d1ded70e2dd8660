"""What Claude Code's hooks run: ``PYTHON -I -S <this file> --home H hook claude-code EVENT``.

``PostToolUse`` runs after every tool call, so most of a hook's cost is the interpreter's
own start. ``claude-code install`` writes this file's path, run by the interpreter of the
installation, instead of the ``waymarks`` console script:

- ``-S``: no ``site`` (no site-packages scan, no ``.pth`` files, no ``os``: ~6 ms of CPU
  per process); the client path needs only the standard library and this package, whose
  directory (the one holding ``waymarks/``: a venv's or the user's site-packages, or a
  checkout's ``src`` for an editable install) is put on the import path here, after the
  standard library;
- ``-I``: isolated: no ``PYTHON*`` variables, no user site, nothing of the working
  directory (the person's project) on the import path.

What must stay true: this file and the client it runs (:mod:`waymarks.hosts.cc_client`)
import nothing but ``sys``, ``posix`` and ``_socket`` until the helper has answered; when
it does not, :func:`~waymarks.spawn.detached.complete_import_path` adds the site
directories as a normal start would, and the hook runs in this process as it did from
the console script. The command line is the one ``install`` writes, parsed as the console
script's hook path parses it (:func:`~waymarks.hosts.cc_client.hook_arguments`: ``--home``
and an optional ``--json`` in any order, then ``hook claude-code EVENT``). Anything else
is a usage message naming ``waymarks hook claude-code`` on standard error and exit 1:
never 2, which Claude Code reads as "block the tool call or prompt" (a broken hook
command must not stop the person's work). A hook that ran in this process ends it once
answered, without the interpreter's teardown and with the cyclic collector still off
(:func:`~waymarks.hosts.cc_client.run`, ``owns_process``). No ``from __future__``.
"""

import sys


def _run(argv: list[str]) -> int:
    here = __file__.rsplit("/", 3)[0]  # .../waymarks/hosts/hook_entry.py -> its directory
    if here not in sys.path:
        sys.path.append(here)
    from waymarks.hosts.cc_client import hook_arguments, run

    parsed = hook_arguments(argv)
    home = parsed[0] if parsed is not None else None
    if parsed is None or home is None:
        sys.stderr.write("waymarks: not a hook command line: " + " ".join(argv) + "\n"
                         "usage: PYTHON -I -S hook_entry.py --home DIR [--json] hook "
                         "claude-code EVENT (what `waymarks claude-code install` writes); "
                         "for anything else run `waymarks`, e.g. `waymarks hook claude-code "
                         "--help`\n")
        return 1  # not 2: Claude Code blocks the tool call or prompt on a hook's exit 2
    if home.startswith("~"):
        from os.path import expanduser

        home = expanduser(home)
    return run([parsed[1]], home, owns_process=True)  # (a hook done here: ends it)


if __name__ == "__main__":
    sys.exit(_run(sys.argv[1:]))
