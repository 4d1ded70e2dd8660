"""Whether the repository's text queued for the learning model may still be sent: the
trust decision it was captured under, checked again at the model step (the rules:
:mod:`waymarks.service.evolution_untrust`). Imports no evolution module: capture (its
hook path) and the step both ask it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from waymarks.service.trust import TrustStore

if TYPE_CHECKING:
    from pathlib import Path

#: the source kinds whose text is the repository's (a person's ``statement`` is not)
REPOSITORY_KINDS: Final = frozenset({"summary", "progress"})
#: the projects whose repository text was captured under Pi's decision alone
HOST_TRUST_FILE: Final = "host-trusted-projects.json"


class HostTrusted(TrustStore):
    """The projects Pi trusted when a summary or work turn of theirs was captured (and
    Waymarks' list did not hold them): a list kept as the trust list is."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.path = home / HOST_TRUST_FILE
        self.lock = home / (HOST_TRUST_FILE + ".lock")


def trusted_now(home: Path, origin: str) -> bool:
    """Whether Waymarks' list trusts ``origin`` (a list that cannot be read: no)."""
    from waymarks.service.outcomes import ServiceError

    try:
        return origin in TrustStore(home).projects()
    except ServiceError:
        return False


def record_host_trust(home: Path, origin: str) -> None:
    """Keep that Pi's decision let ``origin``'s repository text be captured (best effort:
    without it, a caller other than Pi holds the source to Waymarks' list)."""
    from waymarks.service.outcomes import ServiceError

    store = HostTrusted(home)
    try:
        if origin not in store.projects() and not trusted_now(home, origin):
            store.trust(origin)
    except (ServiceError, OSError):
        pass


def forget_host_trust(home: Path, origin: str) -> None:
    """``waymarks untrust``: Pi's decision kept for ``origin`` no longer holds (an
    unreadable record is replaced: it can only tighten)."""
    from waymarks.service.outcomes import ServiceError

    store = HostTrusted(home)
    try:
        kept = store.projects()
    except ServiceError:
        kept = [origin]
    if origin in kept:
        with store._turn():
            store._write([p for p in _readable(store) if p != origin])


def _readable(store: HostTrusted) -> list[str]:
    from waymarks.service.outcomes import ServiceError

    try:
        return store.projects()
    except ServiceError:
        return []


def sendable(home: Path, kind: str, origin: str, host: tuple[str, bool] | None) -> bool:
    """Whether a queued source of ``kind`` from ``origin`` may go to the model now:
    a person's statement always; the repository's text while the rule that let it be
    captured still trusts ``origin`` (``host``: the calling host's decision on its own
    project, asked now)."""
    from waymarks.service.outcomes import ServiceError

    if kind not in REPOSITORY_KINDS:
        return True
    if host is not None and host[0] == origin:
        return host[1]
    if trusted_now(home, origin):
        return True
    try:
        return origin in HostTrusted(home).projects()
    except ServiceError:
        return False




def held_decision(home: Path, origin: str, host: bool | None) -> bool | None:
    """The Pi decision a queued capture (a spool retry, away from Pi) was made under, as
    it stands now: a yes ``waymarks untrust`` took back since (no longer kept) is none,
    and Waymarks' list decides."""
    from waymarks.service.outcomes import ServiceError

    if not host:
        return host
    try:
        return True if origin in HostTrusted(home).projects() else None
    except ServiceError:
        return None
