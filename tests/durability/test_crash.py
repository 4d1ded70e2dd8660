"""Crash consistency: a writer process killed at any point loses nothing it acknowledged.

Each trial runs ``crash_writer.py`` in its own process against the real service (one home,
one project directory, one session file shared by every trial) and kills it with SIGKILL:

- ``wallclock``: from this process, at a random moment after the writer is ready;
- ``between``: inside the writer, after the ledger append and before the projection
  transaction commits (before or after the post-append sync);
- ``midline``: inside the writer, with only part of the entry line written and fsynced.

After every kill a fresh in-process :class:`Waymarks` on the same home and session checks:
every acknowledged item is present with the status its acknowledged writes give it, no
item or write appears twice, an entry that reached the ledger is projected and a torn one
never is, ``health()`` never raises and reports a half-written last line exactly, and the
projection equals a full rebuild of a copy. The next trial writes on to the same session,
so torn tails are terminated (and counted as skipped lines) by real appends.

``run_harness`` is shared with ``scripts/crash_soak.py`` (``--trials 300``).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.durability.crash_writer import STATUS_OPS, SUPERSEDE_OPS
from tests.store.test_rebuild import snapshot
from waymarks.service.app import Waymarks
from waymarks.service.semantic_backfill import SWITCH

WRITER = Path(__file__).with_name("crash_writer.py")
MODES = ("wallclock", "between", "midline")
WALLCLOCK_WRITES = 250  # more than fit before the latest kill: the kill lands mid-run
WALLCLOCK_MAX_DELAY = 0.12  # seconds after READY
WRITER_TIMEOUT = 60.0
TOKEN = re.compile(r"tok\d+x\d+")
KIND_OF_OP = {"pin": "pin", "repin": "pin", "unpin": "pin",
              "remember": "memory", "supersede": "memory", "expire": "memory"}


@dataclass
class TrialPlan:
    mode: str  # "wallclock" | "between" | "midline" | "none" (runs to the end)
    seed: int
    writes: int
    kill_at: int = -1
    variant: str = ""  # between: "before_sync" | "before_commit"
    cut: str = ""  # midline: "half" | "random" | "complete" | "terminator"
    delay: float | None = None  # wallclock: seconds after READY
    # check a copy of the projection, leaving the real one as the kill left it, so that the
    # next writer (not this checker) must bring it up to date
    check_copy: bool = False


@dataclass
class Expected:
    """What the acknowledged (or observed-landed) writes say about one item."""

    id: str
    kind: str
    token: str
    status: str
    acked: bool
    superseded_by: str | None = None
    supersedes: str | None = None


@dataclass
class Pending:
    """A write that was made but not acknowledged: it may or may not have landed."""

    trial: int
    op: str
    target: str | None
    token: str
    expect: str  # "land" | "never" | "either"
    awaits_tail: bool = False  # its line is the unterminated tail: unread until terminated


@dataclass
class Summary:
    seed: int
    trials: int = 0
    kills: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MODES, 0))
    wallclock_finished: int = 0  # the writer finished before the wall-clock kill
    acknowledged: int = 0  # ACK lines: writes the service returned Committed for
    acknowledged_items: int = 0  # distinct item IDs created by acknowledged writes
    landed_unacknowledged: int = 0  # killed after the append: found in the ledger, adopted
    lost: int = 0  # acknowledged items missing (distinct IDs)
    duplicates: int = 0  # an ID or a write's token seen twice
    status_errors: int = 0
    rebuild_mismatches: int = 0
    health_errors: int = 0
    torn_tails: int = 0  # half-written last lines left by a kill
    torn_tails_terminated: int = 0
    killed_after_terminator: int = 0  # died once the newline ending a torn line was durable
    torn_lines_used: int = 0  # complete-but-unterminated lines read after termination
    natural_tails: int = 0  # torn by a wall-clock kill inside write(): not expected on Linux
    ledger_lines: int = 0
    ledger_bytes: int = 0
    elapsed_s: float = 0.0
    violations: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations


def plan_trials(seed: int, trials: int, modes: tuple[str, ...] = MODES) -> list[TrialPlan]:
    """A deterministic schedule: modes in equal shares, shuffled; parameters drawn per trial."""
    rng = random.Random(seed)
    schedule = [modes[i % len(modes)] for i in range(trials)]
    rng.shuffle(schedule)
    plans: list[TrialPlan] = []
    for mode in schedule:
        after_midline = bool(plans) and plans[-1].mode == "midline"
        trial_seed = rng.getrandbits(32)
        check_copy = rng.random() < 0.5
        if mode == "wallclock":
            plans.append(TrialPlan(mode, trial_seed, WALLCLOCK_WRITES,
                                   delay=rng.uniform(0.0, WALLCLOCK_MAX_DELAY),
                                   check_copy=check_copy))
            continue
        writes = rng.randint(1, 5)
        plans.append(TrialPlan(
            mode, trial_seed, writes, kill_at=rng.randrange(writes),
            variant=rng.choice(["before_sync", "before_commit"]),
            # a torn line is pending after a midline trial: often die just as it is ended
            cut=rng.choice(["terminator"] if after_midline and rng.random() < 0.5
                           else ["half", "half", "random", "complete"]),
            check_copy=check_copy,
        ))
    return plans


class CrashHarness:
    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.seed = seed
        self.home = root / "home"
        self.project = root / "project"
        self.project.mkdir(parents=True, exist_ok=True)
        with Waymarks(self.home, cwd=str(self.project)) as app:
            info = app.session_new()
        self.session = Path(info.path)
        self.expected: dict[str, Expected] = {}
        self.pending: list[Pending] = []
        self.tail_owner: Pending | None = None
        self.summary = Summary(seed)
        self.trial = -1
        self.mode = ""
        self._lost: set[str] = set()
        self._duplicated: set[str] = set()

    # -- running a writer ---------------------------------------------------------

    def run_trial(self, plan: TrialPlan) -> None:
        self.trial += 1
        self.mode = plan.mode
        self.summary.trials += plan.mode != "none"  # the closing clean run is not a trial
        blocked = {p.target for p in self.pending if p.target}
        active = [e for e in self.expected.values()
                  if e.status == "active" and e.id not in blocked]
        config = {
            "home": str(self.home), "cwd": str(self.project), "session": str(self.session),
            "trial": self.trial, "seed": plan.seed, "writes": plan.writes, "mode": plan.mode,
            "kill_at": plan.kill_at, "variant": plan.variant, "cut": plan.cut,
            "pins": sorted(e.id for e in active if e.kind == "pin"),
            "memories": sorted(e.id for e in active if e.kind == "memory"),
        }
        lines, returncode, stderr = self._spawn(config, plan.delay)
        self._absorb(plan, lines, returncode, stderr)
        self.check(self._copy_home() if plan.check_copy else self.home)

    def _copy_home(self) -> Path:
        """A home holding a consistent copy of the projection (WAL included)."""
        copy = self.root / "checked"
        shutil.rmtree(copy, ignore_errors=True)
        copy.mkdir()
        if (self.home / "waymarks.db").exists():
            copy_db(self.home / "waymarks.db", copy / "waymarks.db")
        return copy

    def _spawn(self, config: dict[str, Any], delay: float | None) -> tuple[list[str], int, str]:
        config_path = self.root / "writer.json"
        config_path.write_text(json.dumps(config))
        err_path = self.root / "writer.err"
        env = {**os.environ, "WAYMARKS_HOME": str(self.home)}
        with open(err_path, "wb") as err:
            proc = subprocess.Popen([sys.executable, str(WRITER), str(config_path)],
                                    stdout=subprocess.PIPE, stderr=err, cwd=self.project,
                                    env=env)
        lines: list[str] = []
        ready = threading.Event()

        def pump() -> None:
            assert proc.stdout is not None
            for raw in proc.stdout:
                if not raw.endswith(b"\n"):
                    break  # cut short by the kill: not a message
                text = raw.decode(errors="replace").rstrip("\n")
                lines.append(text)
                if text == "READY":
                    ready.set()
            ready.set()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        if delay is not None:
            ready.wait(WRITER_TIMEOUT)
            time.sleep(delay)
            # not reaped yet (no wait/poll so far), so the PID is still this child's
            os.kill(proc.pid, signal.SIGKILL)
        try:
            returncode = proc.wait(timeout=WRITER_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            returncode = proc.wait()
            self._violate(f"writer hung for {WRITER_TIMEOUT}s and was killed")
        reader.join(10)
        assert proc.stdout is not None
        proc.stdout.close()
        return lines, returncode, err_path.read_text(errors="replace")

    def _absorb(self, plan: TrialPlan, lines: list[str], returncode: int, stderr: str) -> None:
        """Apply the acknowledged writes to the expectations; note the one in flight."""
        tries: dict[int, tuple[str, str | None, str]] = {}
        settled: set[int] = set()
        appended: set[int] = set()
        torn: dict[int, tuple[int, int]] = {}
        terminated: set[int] = set()
        done = False
        for line in lines:
            word, *rest = line.split()
            if word == "TRY":
                n, op, named, token = int(rest[0]), rest[1], rest[2], rest[3]
                tries[n] = (op, None if named == "-" else named, token)
            elif word == "ACK":
                n, op, item_id = int(rest[0]), rest[1], rest[2]
                settled.add(n)
                self._acknowledge(op, tries[n][1], item_id, tries[n][2])
            elif word == "REJ":
                settled.add(int(rest[0]))
                self._violate(f"write refused: {line}")
            elif word == "APPENDED":
                appended.add(int(rest[0]))
            elif word == "TORN":
                torn[int(rest[0])] = (int(rest[1]), int(rest[2]))
            elif word == "TERMINATED":
                terminated.add(int(rest[0]))
                self.summary.killed_after_terminator += 1
                if self.tail_owner is None:
                    self._violate("a torn line was terminated, but none was pending")
            elif word == "MISSED":
                self._violate(f"fault point not reached: {line}")
            elif word == "DONE":
                done = True
        killed = returncode == -signal.SIGKILL
        if killed:
            self.summary.kills[plan.mode] = self.summary.kills.get(plan.mode, 0) + 1
        elif returncode != 0 or not done:
            self._violate(f"writer exited {returncode} (done={done}): {stderr[-2000:]}")
        elif plan.mode == "wallclock":
            self.summary.wallclock_finished += 1
        elif plan.mode != "none":
            self._violate(f"writer finished without the injected {plan.mode} kill")
        if plan.mode in ("between", "midline") and killed and not (appended or torn
                                                                      or terminated):
            self._violate(f"{plan.mode} kill without its fault firing: {stderr[-2000:]}")
        in_flight = [n for n in tries if n not in settled]
        if len(in_flight) > 1:
            self._violate(f"more than one write in flight: {in_flight}")
        for n in in_flight:
            op, target, token = tries[n]
            if n in torn:
                cut, length = torn[n]
                pending = Pending(self.trial, op, target, token,
                                  "land" if cut == length - 1 else "never", awaits_tail=True)
                self.summary.torn_tails += 1
                if self.tail_owner is not None:  # the append terminated the older tail first
                    self._tail_terminated()
                self.tail_owner = pending
            elif n in terminated:  # only the newline before its line was written
                pending = Pending(self.trial, op, target, token, "never")
            else:
                pending = Pending(self.trial, op, target, token,
                                  "land" if n in appended else "either")
            self.pending.append(pending)

    def _acknowledge(self, op: str, target: str | None, item_id: str, token: str) -> None:
        self.summary.acknowledged += 1
        self._apply(op, target, item_id, token, acked=True)

    def _apply(self, op: str, target: str | None, item_id: str, token: str,
               acked: bool) -> None:
        kind = KIND_OF_OP[op]
        if op in STATUS_OPS:
            if item_id != target:
                self._violate(f"{op} of {target} acknowledged as {item_id}")
            assert target is not None
            self.expected[target].status = STATUS_OPS[op]
            return
        if item_id in self.expected:
            self._violate(f"ID {item_id} issued twice")
        self.expected[item_id] = Expected(item_id, kind, token, "active", acked,
                                          supersedes=target)
        if acked:
            self.summary.acknowledged_items += 1
        if op in SUPERSEDE_OPS:
            assert target is not None
            self.expected[target].status = "superseded"
            self.expected[target].superseded_by = item_id

    def _tail_terminated(self) -> None:
        owner = self.tail_owner
        assert owner is not None
        owner.awaits_tail = False
        self.summary.torn_tails_terminated += 1
        if owner.expect == "land":
            self.summary.torn_lines_used += 1
        self.tail_owner = None

    # -- checking ---------------------------------------------------------------------

    def check(self, home: Path) -> None:
        """Open ``home`` afresh in this process and hold it to everything acknowledged."""
        try:
            with Waymarks(home, cwd=str(self.project), session=str(self.session)) as app:
                try:
                    report: dict[str, Any] | None = app.health()
                except Exception:  # noqa: BLE001 - any exception from health is the finding
                    self.summary.health_errors += 1
                    self._violate(f"health() raised:\n{traceback.format_exc()}")
                    report = None
                views = app.items("pin") + app.items("memory")
        except Exception:  # noqa: BLE001 - reported with its traceback, then stop checking
            self._violate(f"reading the home raised:\n{traceback.format_exc()}")
            return
        data = self.session.read_bytes()
        self.summary.ledger_bytes = len(data)
        self.summary.ledger_lines = data.count(b"\n")
        tail = len(data) - (data.rfind(b"\n") + 1)
        if report is not None:
            self._check_health(report, tail)
        if tail and self.tail_owner is None:
            self._natural_tail()
        elif not tail and self.tail_owner is not None:
            self._tail_terminated()
        self._check_items(views)
        self._check_rebuild(home / "waymarks.db")

    def _check_health(self, report: dict[str, Any], tail: int) -> None:
        session = report.get("session") or {}
        if session.get("partialTailBytes") != tail:
            self._violate(f"health partialTailBytes={session.get('partialTailBytes')}, "
                          f"but the ledger ends with {tail} unterminated bytes")
        if report.get("integrity") != "ok":
            self._violate(f"health integrity: {report.get('integrity')}")
        if report.get("ok") != (not tail):
            self._violate(f"health ok={report.get('ok')} with a {tail}-byte tail")
        if report.get("recovered") or report.get("damagedCopies"):
            self._violate(f"a crash damaged the projection: recovered="
                          f"{report.get('recovered')}, copies={report.get('damagedCopies')}")
        sources = [s for s in report.get("sources", []) if s["path"] == str(self.session)]
        if len(sources) != 1 or sources[0]["unreadBytes"] != tail:
            self._violate(f"health sources {sources} do not stop at the {tail}-byte tail")
        terminated_torn = self.summary.torn_tails_terminated - self.summary.torn_lines_used
        if self.tail_owner is not None and not tail:
            terminated_torn += self.tail_owner.expect != "land"  # terminated by this trial
        counts = dict(report.get("anomalyCounts") or {})
        skipped = counts.pop("skipped", None)
        # a naturally torn line may have been complete (then used, not skipped)
        low = terminated_torn - self.summary.natural_tails
        if counts != {"unknown": 0, "malformed": 0} or skipped is None \
                or not low <= skipped <= terminated_torn:
            self._violate(f"anomalies {report.get('anomalyCounts')}, expected "
                          f"{terminated_torn} skipped torn lines")

    def _natural_tail(self) -> None:
        """A kill from outside left a torn line (the write syscall itself was interrupted)."""
        mine = [p for p in self.pending if p.trial == self.trial]
        if not mine:
            self._violate("a partial last line that no write in flight explains")
            return
        mine[-1].awaits_tail = True
        self.tail_owner = mine[-1]
        self.summary.torn_tails += 1
        self.summary.natural_tails += 1

    def _check_items(self, views: list[Any]) -> None:
        ids = Counter(v.id for v in views)
        tokens: dict[str, list[Any]] = {}
        for view in views:
            for token in TOKEN.findall(view.text):
                tokens.setdefault(token, []).append(view)
        for item_id, count in ids.items():
            if count > 1 and item_id not in self._duplicated:
                self._duplicated.add(item_id)
                self.summary.duplicates += 1
                self._violate(f"item {item_id} listed {count} times")
        for token, holders in tokens.items():
            if len(holders) > 1:
                key = f"token:{token}"
                if key not in self._duplicated:
                    self._duplicated.add(key)
                    self.summary.duplicates += 1
                    self._violate(f"write {token} applied {len(holders)} times: "
                                  f"{[v.id for v in holders]}")
        by_id = {v.id: v for v in views}
        self._resolve_pending(by_id, tokens)
        for expected in self.expected.values():
            view = by_id.get(expected.id)
            if view is None:
                if expected.id not in self._lost:
                    self._lost.add(expected.id)
                    self.summary.lost += expected.acked
                    what = "acknowledged" if expected.acked else "landed"
                    self._violate(f"{what} {expected.kind} {expected.id} ({expected.token}) "
                                  "is missing")
                continue
            problems = []
            if view.kind != expected.kind:
                problems.append(f"kind {view.kind} != {expected.kind}")
            if view.status != expected.status:
                problems.append(f"status {view.status} != {expected.status}")
            if view.superseded_by != expected.superseded_by:
                problems.append(f"supersededBy {view.superseded_by} != {expected.superseded_by}")
            if view.supersedes != expected.supersedes:
                problems.append(f"supersedes {view.supersedes} != {expected.supersedes}")
            if expected.token not in view.text:
                problems.append(f"text {view.text!r} lacks {expected.token}")
            if problems:
                self.summary.status_errors += 1
                self._violate(f"{expected.kind} {expected.id}: {'; '.join(problems)}")
                expected.status, expected.superseded_by = view.status, view.superseded_by
        for item_id in by_id.keys() - self.expected.keys():
            self._violate(f"item {item_id} ({by_id[item_id].text!r}) matches no write made")
            view = by_id[item_id]
            self.expected[item_id] = Expected(item_id, view.kind, "", view.status, False,
                                              view.superseded_by, view.supersedes)

    def _resolve_pending(self, by_id: dict[str, Any], tokens: dict[str, list[Any]]) -> None:
        still = []
        for pending in self.pending:
            holders = tokens.get(pending.token, [])
            if pending.op in STATUS_OPS:
                target = by_id.get(pending.target or "")
                landed = target is not None and target.status == STATUS_OPS[pending.op]
            else:
                landed = bool(holders)
            where = f"unacknowledged {pending.op} {pending.token} of trial {pending.trial}"
            if pending.awaits_tail:
                if landed:
                    self._violate(f"{where}: its unterminated line was applied")
                still.append(pending)
                continue
            if pending.expect == "land" and not landed:
                self._violate(f"{where}: in the ledger but not in the projection")
            if pending.expect == "never" and landed:
                self._violate(f"{where}: a torn line was applied")
            if landed:
                self.summary.landed_unacknowledged += 1
                item_id = pending.target if pending.op in STATUS_OPS else holders[0].id
                assert item_id is not None
                self._apply(pending.op, pending.target, item_id, pending.token, acked=False)
        self.pending = still

    def _check_rebuild(self, db_path: Path) -> None:
        incremental = snapshot(db_path)
        # a new scratch home each time: reusing one raced whatever a rebuild there left
        # running (an embedding worker then recreated it while it was removed)
        scratch = Path(tempfile.mkdtemp(prefix="rebuilt-", dir=self.root))
        try:
            copy_db(db_path, scratch / "waymarks.db")
            try:
                with Waymarks(scratch, cwd=str(self.project),
                              session=str(self.session)) as app:
                    app.rebuild_index()
            except Exception:  # noqa: BLE001 - reported with its traceback
                self.summary.rebuild_mismatches += 1
                self._violate(f"rebuild_index raised:\n{traceback.format_exc()}")
                return
            rebuilt = snapshot(scratch / "waymarks.db")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if rebuilt != incremental:
            self.summary.rebuild_mismatches += 1
            self._violate(f"projection differs from a rebuild: {describe(incremental, rebuilt)}")

    def finish(self) -> None:
        """A clean run that terminates any torn tail, then delete the database and rebuild."""
        self.run_trial(TrialPlan("none", self.seed ^ 0xF1A1, 3))
        if self.tail_owner is not None or any(p.awaits_tail for p in self.pending):
            self._violate("a torn tail survived a clean write")
        before = snapshot(self.home / "waymarks.db")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.home / 'waymarks.db'}{suffix}").unlink(missing_ok=True)
        with Waymarks(self.home, cwd=str(self.project), session=str(self.session)) as app:
            app.items("pin")
        after = snapshot(self.home / "waymarks.db")
        if after != before:
            self.summary.rebuild_mismatches += 1
            self._violate(f"state rebuilt from the ledger differs: {describe(before, after)}")

    def _violate(self, message: str) -> None:
        self.summary.violations.append(f"seed {self.seed} trial {self.trial} ({self.mode}): "
                                       f"{message}")


def copy_db(source_path: Path, target_path: Path) -> None:
    source, target = sqlite3.connect(source_path), sqlite3.connect(target_path)
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()


def describe(a: dict[str, list[Any]], b: dict[str, list[Any]]) -> str:
    """The first difference between two snapshots, short enough to read."""
    for table in a:
        if a[table] != b.get(table):
            rows_a, rows_b = a[table], b.get(table, [])
            for i, (x, y) in enumerate(zip(rows_a, rows_b, strict=False)):
                if x != y:
                    return f"{table} row {i}: {x!r} != {y!r}"
            return f"{table}: {len(rows_a)} rows != {len(rows_b)} rows"
    return "no difference"


def run_harness(root: Path, trials: int, seed: int,
                plans: list[TrialPlan] | None = None) -> Summary:
    """Run ``trials`` killed writers (or ``plans``) on one session, checking after each.
    Its writes and rebuilds wake no embedding worker (``WAYMARKS_SEMANTIC_BACKFILL`` off
    here and in its writers): the subject is the ledger, and outside pytest
    (``crash_soak.py`` with the semantic extra) a worker wrote into the scratch home of
    the rebuild check while it was removed, and the soak died (``FileExistsError``)."""
    started = time.monotonic()
    was = os.environ.get(SWITCH)
    os.environ[SWITCH] = "off"
    try:
        harness = CrashHarness(root, seed)
        for plan in plans if plans is not None else plan_trials(seed, trials):
            harness.run_trial(plan)
        harness.finish()
    finally:
        if was is None:
            os.environ.pop(SWITCH, None)
        else:
            os.environ[SWITCH] = was
    harness.summary.elapsed_s = round(time.monotonic() - started, 2)
    return harness.summary


def summary_json(summary: Summary) -> dict[str, Any]:
    return {**asdict(summary), "ok": summary.ok}


def assert_clean(summary: Summary) -> None:
    assert summary.violations == [], "\n".join(summary.violations[:10])
    assert (summary.lost, summary.duplicates, summary.rebuild_mismatches,
            summary.health_errors, summary.status_errors) == (0, 0, 0, 0, 0)


# -- tests ---------------------------------------------------------------------------


@pytest.mark.slow
def test_killed_writers_lose_nothing_acknowledged(tmp_path: Path) -> None:
    """24 trials, 8 per kill mode, all on one session; then a clean run and a rebuild."""
    summary = run_harness(tmp_path, trials=24, seed=20260101)
    assert_clean(summary)
    assert summary.kills["between"] == 8
    assert summary.kills["midline"] == 8
    assert summary.kills["wallclock"] + summary.wallclock_finished == 8
    assert summary.torn_tails + summary.killed_after_terminator >= 8
    assert summary.torn_tails_terminated == summary.torn_tails
    assert summary.acknowledged > 0 and summary.landed_unacknowledged >= 8


@pytest.mark.parametrize("cut", [  # "complete" (the one whose line lands) in the fast lane
    pytest.param("half", marks=pytest.mark.slow), pytest.param("random", marks=pytest.mark.slow),
    "complete"])
def test_torn_line_is_reported_then_terminated(tmp_path: Path, cut: str) -> None:
    """A line cut short is reported by health; the next write ends it. Only a line that
    was complete but for its newline is then used (the write it holds lands)."""
    plans = [
        TrialPlan("between", 11, 2, kill_at=1, variant="before_commit"),
        TrialPlan("midline", 12, 3, kill_at=2, cut=cut),
        TrialPlan("midline", 13, 2, kill_at=0, cut="half"),  # terminates, then tears again
    ]
    summary = run_harness(tmp_path, trials=len(plans), seed=7, plans=plans)
    assert_clean(summary)
    assert summary.torn_tails == summary.torn_tails_terminated == 2
    assert summary.torn_lines_used == (cut == "complete")
    # the between kill lands; the complete torn line lands once terminated
    assert summary.landed_unacknowledged == 1 + (cut == "complete")


@pytest.mark.slow
def test_killed_just_after_ending_a_torn_line(tmp_path: Path) -> None:
    """Dying once the newline that ends a torn line is durable: the torn line is counted
    as skipped, the write that ended it never lands, and the next write goes on cleanly."""
    plans = [
        TrialPlan("midline", 21, 2, kill_at=1, cut="half"),
        TrialPlan("midline", 22, 3, kill_at=0, cut="terminator", check_copy=True),
    ]
    summary = run_harness(tmp_path, trials=len(plans), seed=8, plans=plans)
    assert_clean(summary)
    assert summary.killed_after_terminator == 1
    assert summary.torn_tails == summary.torn_tails_terminated == 1
    assert summary.landed_unacknowledged == 0
