"""Whether the repository's text queued for the learning model may still be sent: the
trust decision it was captured under, checked again at the model step (the rules:
:mod:`waymarks.service.evolution_untrust`). Imports no evolution module: capture (its
hook path) and the step both ask it."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Final

from waymarks.service.trust import TrustStore

#: the source kinds whose text is the repository's (a person's ``statement`` is not)
REPOSITORY_KINDS: Final = frozenset({"summary", "progress"})
#: the projects whose repository text was captured under Pi's decision alone
HOST_TRUST_FILE: Final = "host-trusted-projects.json"


class HostTrusted(TrustStore):
    """The projects Pi trusted when a summary or work turn of theirs was captured (and
    Waymarks' list did not hold them): a list kept as the trust list is, with the Pi agent
    directory each decision was read from (``piAgentDirs``: the step outside Pi reads
    Pi's trust store there again)."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.path = home / HOST_TRUST_FILE
        self.lock = home / (HOST_TRUST_FILE + ".lock")
        self._agent_dir: str | None = None

    def agent_dirs(self) -> dict[str, str]:
        """Each kept project's Pi agent directory (none for a list an earlier version
        wrote, or one that cannot be read)."""
        from waymarks.service.pi_trust_store import json_object

        data = json_object(self.path)
        dirs = data.get("piAgentDirs") if data is not None else None
        if not isinstance(dirs, dict):
            return {}
        return {k: v for k, v in dirs.items() if isinstance(k, str) and isinstance(v, str)}

    def keep(self, origin: str, agent_dir: str) -> None:
        with self._turn():
            self._agent_dir = agent_dir
            self._write([*(p for p in self.projects() if p != origin), origin], origin)

    def _write(self, projects: list[str], added: str | None = None) -> None:
        import json

        from waymarks.files.atomic import write_atomic

        dirs = {p: d for p, d in self.agent_dirs().items() if p in projects}
        if added is not None and self._agent_dir is not None:
            dirs[added] = self._agent_dir
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        text = json.dumps({"projects": sorted(projects), "piAgentDirs": dirs}, indent=2)
        write_atomic(self.path, text + "\n", mode=0o600)


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
    from waymarks.service.pi_trust_store import default_agent_dir

    store = HostTrusted(home)
    agent = str(default_agent_dir())  # the bridge's: Pi's own, where it read the decision
    try:
        if trusted_now(home, origin):
            return
        if origin not in store.projects() or store.agent_dirs().get(origin) != agent:
            store.keep(origin, agent)
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
    if kind not in REPOSITORY_KINDS:
        return True
    if host is not None and host[0] == origin:
        return host[1]
    return trusted_now(home, origin) or held_yes(home, origin)


def held_yes(home: Path, origin: str) -> bool:
    """Whether Pi's yes kept for ``origin`` at capture still holds, away from Pi: kept
    (``waymarks untrust`` did not take it back), and Pi's trust store, read again where
    it was read at capture, still holds the person's yes (an entry at or above the
    project saying true, or Pi set to trust every project). A yes Pi's store no longer
    holds (the person set it to false in Pi, and never opened the project in Pi again)
    is stale: forgotten, as ``untrust`` forgets it. An agent directory that is gone
    cannot be asked: the yes is held as captured."""
    from waymarks.service.outcomes import ServiceError
    from waymarks.service.pi_trust_store import default_agent_dir, person_trusts

    store = HostTrusted(home)
    try:
        if origin not in store.projects():
            return False
    except ServiceError:
        return False
    recorded = store.agent_dirs().get(origin)
    agent = Path(recorded) if recorded else default_agent_dir()
    if not agent.is_dir() or person_trusts(origin, agent):
        return True
    with contextlib.suppress(ServiceError, OSError):  # the next step finds it stale again
        forget_host_trust(home, origin)
    return False


def held_decision(home: Path, origin: str, host: bool | None) -> bool | None:
    """The Pi decision a queued capture (a spool retry, away from Pi) was made under, as
    it stands now: a yes ``waymarks untrust`` took back since (no longer kept), or Pi's
    trust store no longer holds, is none, and Waymarks' list decides."""
    if not host:
        return host
    return True if held_yes(home, origin) else None
