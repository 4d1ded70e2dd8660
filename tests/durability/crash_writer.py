"""A writer process for the crash-consistency harness (``test_crash.py``).

Run as ``python crash_writer.py CONFIG.json``. It opens the real service
(:class:`~waymarks.service.app.Waymarks`) on the configured home, project directory and
session file, and makes a seeded mix of pin and memory writes. The parent kills it with
SIGKILL at a random moment, or the writer kills itself at an injected point:

- ``between``: after the ledger append returned (the line is durable) and before the
  projection transaction commits, either before the post-append ``Projection.sync``
  (``before_sync``) or after it, with the transaction still open (``before_commit``);
- ``midline``: the entry line is written only in part (``half``, a ``random`` cut, or
  ``complete``: every byte but the final newline), made durable, and the process dies;
  with ``terminator`` and an earlier torn line pending, the process dies right after the
  newline that ends that line is durable, at the first append and before its own line
  (with no torn line pending, it cuts write ``kill_at`` in half instead).

The faults are injected here by wrapping ``SessionFile._write_durably``, ``append`` and
``Projection.sync``; nothing in ``src/`` knows about them. Only the standard library and
``waymarks`` are imported, so the process starts quickly.

Protocol, one line per event on stdout, flushed at once (the parent trusts only these)::

    READY                        the service is constructed, writes begin
    TRY <n> <op> <target|-> <token>   write n is about to be made
    ACK <n> <op> <id>            write n returned Committed: it is acknowledged
    REJ <n> <op> <outcome> <code>    write n was refused or a duplicate (never expected)
    APPENDED <n>                 (between) the entry of write n is durable; dying now
    TORN <n> <cut> <length>      (midline) <cut> of <length> bytes are durable; dying now
    TERMINATED <n>               (midline) the newline ending an earlier torn line is durable
    MISSED <n>                   an armed fault point was never reached (harness bug)
    DONE                         every write was made; exiting normally

Ops: ``pin``, ``remember``, ``supersede`` (memory), ``repin`` (pin superseding a pin),
``unpin`` and ``expire`` (memory). The token is unique per write and appears in its text,
so the parent can find a write that landed without being acknowledged.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

STATUS_OPS = {"unpin": "deleted", "expire": "expired"}
SUPERSEDE_OPS = ("supersede", "repin")
ADD_OPS = ("pin", "remember")
OPS = (*ADD_OPS, *SUPERSEDE_OPS, *STATUS_OPS)


def pin_text(token: str, rng: random.Random) -> str:
    return rng.choice([
        f"Run the alpha checks before merging ({token}).",
        f"Prefer small commits in {token}.",
        f"Keep the {token} notes short and plain.",
    ])


def claim_text(token: str, rng: random.Random) -> str:
    """A unique claim: keyed (``X is Y``), polar (``X is enabled``) or plain."""
    number = rng.randint(1000, 9999)
    return rng.choice([
        f"The probe {token} port is {number}.",
        f"Probe {token} alpha cache is {rng.choice(['enabled', 'disabled'])}.",
        f"Service {token} defaults to region eu-{number}.",
        f"Alpha note {token} recorded measurement {number}.",
    ])


def token_of(trial: int, n: int) -> str:
    return f"tok{trial}x{n}"


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


class Faults:
    """The armed fault, if any, and the wrappers that fire it."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.mode: str = config["mode"]
        self.kill_at: int = config.get("kill_at", -1)
        self.variant: str = config.get("variant", "")
        self.cut: str = config.get("cut", "half")
        self.rng = random.Random(config["seed"] ^ 0x5EED)
        self.current = -1
        self.appended = False

    def armed(self, mode: str) -> bool:
        return self.mode == mode and self.current == self.kill_at

    def install(self) -> None:
        from waymarks.ledger.session_file import SessionFile
        from waymarks.store.projection import Projection

        faults = self
        original_write = SessionFile._write_durably
        original_append = SessionFile.append
        original_sync = Projection.sync

        def write_durably(self: Any, data: bytes) -> None:
            # the lone b"\n" that terminates an earlier torn line is never cut
            if faults.mode == "midline" and faults.cut == "terminator" and data == b"\n":
                original_write(self, data)
                emit(f"TERMINATED {faults.current}")
                die()
            if faults.armed("midline") and data != b"\n":
                length = len(data)
                if faults.cut == "complete":
                    cut = length - 1
                elif faults.cut == "random":
                    cut = faults.rng.randint(1, length - 1)
                else:
                    cut = length // 2
                original_write(self, data[:cut])  # write + fsync of the first part only
                emit(f"TORN {faults.current} {cut} {length}")
                die()
            original_write(self, data)

        def append(self: Any, entry: Any, new_id: Any) -> Any:
            result = original_append(self, entry, new_id)
            faults.appended = True
            if faults.armed("between") and faults.variant == "before_sync":
                emit(f"APPENDED {faults.current}")
                die()
            return result

        def sync(self: Any, session: Any, now_ms: int) -> Any:
            report = original_sync(self, session, now_ms)
            if faults.appended and faults.armed("between") and faults.variant == "before_commit":
                emit(f"APPENDED {faults.current}")
                die()  # the projection transaction is still open: it never commits
            return report

        SessionFile._write_durably = write_durably  # type: ignore[method-assign]
        SessionFile.append = append  # type: ignore[method-assign]
        Projection.sync = sync  # type: ignore[method-assign]


def choose(rng: random.Random, pins: list[str], memories: list[str]) -> tuple[str, str | None]:
    """The next op and its target among the active items this writer knows."""
    weights = {"pin": 30, "remember": 35, "supersede": 10, "repin": 5, "unpin": 10,
               "expire": 10}
    while True:
        op = rng.choices(list(weights), list(weights.values()))[0]
        pool = pins if op in ("repin", "unpin") else memories
        if op in ADD_OPS:
            return op, None
        if pool:
            return op, pool.pop(rng.randrange(len(pool)))


def run(config: dict[str, Any]) -> int:
    from waymarks.service.app import Waymarks
    from waymarks.service.outcomes import Committed

    faults = Faults(config)
    faults.install()
    rng = random.Random(config["seed"])
    pins: list[str] = list(config.get("pins", []))
    memories: list[str] = list(config.get("memories", []))
    trial = int(config["trial"])
    app = Waymarks(Path(config["home"]), cwd=config["cwd"], session=config["session"])
    emit("READY")
    for n in range(int(config["writes"])):
        faults.current = n
        faults.appended = False
        op, target = choose(rng, pins, memories)
        token = token_of(trial, n)
        emit(f"TRY {n} {op} {target or '-'} {token}")
        if op == "pin":
            outcome = app.pin(pin_text(token, rng))
        elif op == "remember":
            outcome = app.remember(claim_text(token, rng))
        elif op == "supersede":
            assert target is not None
            outcome = app.supersede_memory(target, claim_text(token, rng))
        elif op == "repin":
            outcome = app.pin(pin_text(token, rng), supersedes=target)
        elif op == "unpin":
            assert target is not None
            outcome = app.unpin(target, f"done with it ({token})")
        else:
            assert target is not None
            outcome = app.set_memory_status(target, "expired", f"stale ({token})")
        if faults.current == faults.kill_at and faults.mode in ("between", "midline"):
            emit(f"MISSED {n}")
        if not isinstance(outcome, Committed):
            emit(f"REJ {n} {op} {outcome.outcome} {getattr(outcome, 'code', '-')}")
            continue
        emit(f"ACK {n} {op} {outcome.id}")
        if op in ("pin", "repin"):
            pins.append(outcome.id)
        elif op in ("remember", "supersede"):
            memories.append(outcome.id)
    app.close()
    emit("DONE")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"usage: {argv[0]} CONFIG.json", file=sys.stderr)
        return 2
    return run(json.loads(Path(argv[1]).read_text()))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
