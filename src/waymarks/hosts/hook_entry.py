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
it does not, :func:`~waymarks.hosts.cc_client.complete_import_path` adds the site
directories as a normal start would, and the hook runs in this process as it did from
the console script. Only the command line ``install`` writes is accepted (anything else:
a usage message naming ``waymarks hook claude-code``, exit 2). No ``from __future__``.
"""

import sys


def _run(argv: list[str]) -> int:
    here = __file__.rsplit("/", 3)[0]  # .../waymarks/hosts/hook_entry.py -> its directory
    if here not in sys.path:
        sys.path.append(here)
    if len(argv) != 5 or argv[0] != "--home" or argv[2:4] != ["hook", "claude-code"]:
        sys.stderr.write("usage: PYTHON -I -S hook_entry.py --home DIR hook claude-code "
                         "EVENT (what `waymarks claude-code install` writes); for anything "
                         "else run `waymarks`, e.g. `waymarks hook claude-code --help`\n")
        return 2
    home = argv[1]
    if home.startswith("~"):
        from os.path import expanduser

        home = expanduser(home)
    from waymarks.hosts.cc_client import run

    return run(argv[4:], home)


if __name__ == "__main__":
    sys.exit(_run(sys.argv[1:]))
