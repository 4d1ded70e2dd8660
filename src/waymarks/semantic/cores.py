"""How many cores the embedding engine may take for one call, asked just before it.

Linux only (``/proc``, cgroup files); anywhere else, or when they cannot be read, one. The
cores counted are those this process may run on (its CPU affinity, and the control groups'
CPU quotas on the way to its own group); a core is spare when no other runnable task is
on it at that instant, as ``/proc/loadavg`` counts them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Final


def spare_cores(ours: Iterable[int] | None = None) -> int:
    """Cores no other task is running on at this instant: the cores this process may use
    less the runnable tasks ``/proc/loadavg`` counts, leaving out the threads ``ours``
    (native thread IDs: the caller's and the engine's own, whose waiting thread spins for
    a while after each call; ``None``: every thread of this process). Any other thread of
    this process is a rival like another process's. 1 where that cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as handle:
            running = int(handle.read(256).split()[3].split(b"/")[0])
        mine = 0
        for task in (os.listdir("/proc/self/task") if ours is None else map(str, ours)):
            try:
                with open(f"/proc/self/task/{task}/stat", "rb") as handle:
                    stat = handle.read(512)
            except FileNotFoundError:  # that thread has ended
                continue
            mine += stat[stat.rindex(b")") + 2:][:1] == b"R"
    except (OSError, ValueError, IndexError):
        return 1
    return max(1, usable_cores() - max(0, running - max(mine, 1)))


_usable: list[int] = []


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity, and no more than a control
    group's CPU quota allows (a container limited to one CPU on a many-core host: two
    threads would spin on its quota). Read once."""
    if not _usable:
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
        _usable.append(max(1, min(cores, _quota_cores() or cores)))
    return _usable[0]


def _quota_cores(root: str = "/sys/fs/cgroup", own: str = "/proc/self/cgroup") -> int | None:
    """Whole CPUs the control groups' quotas allow (``None``: no quota, or unknown): the
    smallest cgroup v2 ``cpu.max`` ("QUOTA PERIOD", or "max PERIOD") from this process's
    own group (``own`` names it) up to ``root``; else v1's quota and period files at the
    root (-1: none)."""
    found: list[int] = []
    for group in _groups(root, own):
        fields = _fields(os.path.join(group, "cpu.max"))
        if fields is not None:
            found.extend(_cores(fields))
    if not found:
        fields = _fields(os.path.join(root, "cpu/cpu.cfs_quota_us"),
                         os.path.join(root, "cpu/cpu.cfs_period_us"))
        if fields is not None:
            found.extend(_cores(fields))
    return min(found) if found else None


def _groups(root: str, own: str) -> list[str]:
    """``root`` and the folders from it down to this process's cgroup v2 group."""
    path = ""
    try:
        with open(own, "rb") as handle:
            for line in handle.read(4096).decode("utf-8", "replace").splitlines():
                if line.startswith("0::"):
                    path = line[3:].strip("/")
    except OSError:
        pass
    groups = [root]
    for part in filter(None, path.split("/")):
        if part in (".", ".."):
            break
        groups.append(os.path.join(groups[-1], part))
    return groups


def _fields(*paths: str) -> list[bytes] | None:
    fields: list[bytes] = []
    try:
        for path in paths:
            with open(path, "rb") as handle:
                fields += handle.read(64).split()
    except OSError:
        return None
    return fields


def _cores(fields: list[bytes]) -> list[int]:
    """[whole CPUs] of a (quota, period) pair; [] for none (``max``, -1) or garbage."""
    try:
        quota, period = int(fields[0]), int(fields[1])
    except (ValueError, IndexError):
        return []
    return [max(1, quota // period)] if quota > 0 and period > 0 else []


#: steal time (1/100 s) one two-thread call may see before the host counts as busy
STOLEN: Final = 2
#: how long a busy host keeps calls to one thread before two are tried again
COOLDOWN_S: Final = 30.0


class HostWatch:
    """Whether the machine's host has lately taken its cores away (a virtual machine's
    steal time): two engine threads wait for each other at every step, so one thread
    descheduled by the host stalls both. Measured on this project's 2-core virtual machine
    while its host was busy: one thread p50 / p99 24.8-25.0 / 30.2-32.6 ms, two 16.3-16.4 /
    41.6-56.1 ms, 4-6 hundredths of a second stolen during each query. A two-thread call
    that sees :data:`STOLEN` of steal keeps the next calls to one thread for
    :data:`COOLDOWN_S`."""

    def __init__(self) -> None:
        self._until = 0.0
        self._before: int | None = None

    def calm(self) -> bool:
        return time.monotonic() >= self._until

    def begin(self) -> None:
        self._before = stolen()

    def end(self) -> None:
        after = stolen()
        if self._before is not None and after is not None and after - self._before >= STOLEN:
            self._until = time.monotonic() + COOLDOWN_S


def stolen() -> int | None:
    """The machine's steal time so far, in 1/100 s (``/proc/stat``); ``None`` where it
    cannot be read."""
    try:
        with open("/proc/stat", "rb") as handle:
            return int(handle.readline().split()[8])
    except (OSError, ValueError, IndexError):
        return None
