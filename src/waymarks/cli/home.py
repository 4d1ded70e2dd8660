"""Where a person's Waymarks home is when ``WAYMARKS_HOME`` does not say.

The home is platformdirs' user data directory for ``waymarks``. Importing platformdirs
costs ~9 ms (it brings ``tempfile``, ``shutil``, ``random``, compression modules) on every
start without ``WAYMARKS_HOME`` (measured: 78.1 against 69.4 ms), so the ordinary Linux
case is answered here from the XDG rules every platformdirs release agrees on:
``$XDG_DATA_HOME/waymarks`` when that is an absolute path, else
``$HOME/.local/share/waymarks`` when ``HOME`` is absolute. Any other case (another
platform, Android, a relative or missing ``HOME``, a relative ``XDG_DATA_HOME``, which
platformdirs releases treat differently) is platformdirs' answer, as before. Imports only
``os`` and ``sys`` (and the shell quoting of :mod:`waymarks.core.text` when a home is named).
"""

from __future__ import annotations

import os
import sys

APP = "waymarks"


def default_home() -> str:
    """``WAYMARKS_HOME`` (``~`` expanded), else the user data directory."""
    chosen = os.environ.get("WAYMARKS_HOME")
    if chosen:
        return os.path.expanduser(chosen)
    return user_data_dir()


def user_data_dir() -> str:
    """platformdirs' ``user_data_dir("waymarks", appauthor=False)``."""
    android = os.environ.get("ANDROID_DATA") == "/data" and \
        os.environ.get("ANDROID_ROOT") == "/system"  # platformdirs may pick Android's
    if sys.platform.startswith("linux") and not android:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        if xdg and os.path.isabs(xdg) and xdg == xdg.strip():
            return os.path.join(xdg, APP)
        home = os.environ.get("HOME", "")
        if not xdg.strip() and home and os.path.isabs(home) and home == home.strip():
            # as ``~`` expands: without the trailing slashes ("/" stays "/")
            return os.path.join(home.rstrip("/") or "/", ".local", "share", APP)
    from platformdirs import user_data_dir as platform_dir

    return str(platform_dir(APP, appauthor=False))


def home_option(home: str, *, any_shell: bool = False) -> str:
    """`` --home HOME`` (quoted as a shell reads it) for a command a message names, unless
    a bare ``waymarks`` in this shell uses ``home`` (``any_shell``: with ``WAYMARKS_HOME``
    set and without it, for an installer, whose hooks run in another environment): a
    message of ``waymarks --home H learn on`` that named a bare command sent the person's
    next step to another home."""
    bare = (user_data_dir(), default_home()) if any_shell else (default_home(),)
    if {os.path.realpath(p) for p in (home, *bare)} == {os.path.realpath(home)}:
        return ""
    from waymarks.core.text import shell_command

    return f" --home {shell_command([home])}"
