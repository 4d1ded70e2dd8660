"""Whether a listening address reaches only this machine (the HTTP adapters' default).

Both HTTP adapters (MCP over HTTP, the web inspector) serve on loopback unless the person
passes an explicit flag; this is the one definition of loopback they share. ``0.0.0.0``,
``::`` and every other name or address are not loopback: they reach other machines. Pure.

:func:`host_names` is the ``Host`` headers such a server answers to: both check it, so a
page whose DNS name was rebound to 127.0.0.1 (it sends its own name) is refused.
"""

from __future__ import annotations

import ipaddress
from typing import Final

#: names that resolve to this machine only (the usual /etc/hosts entries)
LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` reaches only this machine (``127.0.0.0/8``, ``::1``, a loopback
    name)."""
    name = host.strip().strip("[]").lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_names(host: str, port: int | str) -> frozenset[str]:
    """The ``Host`` header values a client sends for a server listening on ``host:port``:
    its own spelling and, for a loopback address, every loopback name (a client may use
    any of them). ``port`` ``"*"``: any port (the MCP SDK's pattern). On port 80 (and for
    any port) the names alone as well: a client leaves HTTP's default port out of
    ``Host``, and a server on port 80 refused every browser."""
    spelled = host_spellings(host)
    names = {f"{name}:{port}" for name in spelled}
    if str(port) in ("80", "*"):
        names |= spelled
    return frozenset(names)


def host_spellings(host: str) -> frozenset[str]:
    """The names (no port; an IPv6 address bracketed) a client reaching a server listening
    on ``host`` puts in ``Host``: its own spelling and, for a loopback address, every
    loopback name."""
    shown = url_host(host)
    return frozenset({shown, "localhost", "127.0.0.1", "[::1]"} if is_loopback(host)
                     else {shown})


def url_host(host: str) -> str:
    """``host`` as a URL (or a ``Host`` header, or ``host:port`` said to people) names it:
    an IPv6 address in brackets, so the colon before the port is told apart."""
    bare = host.strip().strip("[]")
    return f"[{bare}]" if ":" in bare else bare
