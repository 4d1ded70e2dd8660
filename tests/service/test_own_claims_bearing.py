"""The claims a learned claim is weighed against are those that can bear on it: the
person's claims in effect about its subject (which may say the same or contradict it),
and those they took out of effect that say its sentence. Every claim of the subject, of
any status, was read and verified: a supersede chain of 10k versions on the subject (a
counter a script updates) cost 0.24 s CPU per learned claim per plan. The decisions are
those of the whole read, on random stores of chains, retirements and marked texts. Real
session files, real rebuild, real SQLite."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from waymarks.ledger.discovery import session_dir, session_file_name
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed
from waymarks.service.own_claims import OwnClaims
from waymarks.store.reads import ProjectionReads

SID = "5e55c0de-0000-4000-8000-00000000b0a2"
SUBJECTS = ["billing database port", "auth service port", "build cache", "deploy counter"]
LEVELS = ["internal", "sensitive", "local-only"]


def _sentence(rng: random.Random, subject: str, value: int) -> str:
    text = f"The {subject} is {value}"
    if subject == "build cache":
        text = f"The build cache lives in /srv/c{value}"
    return text + rng.choice(["", ".", "!"])


def _marked(rng: random.Random, text: str) -> str:
    """``text`` as stored: plain, marked whole (spaces or its period inside the tags),
    marked in part, or with an escaped tag."""
    level = rng.choice(LEVELS)
    form = rng.randrange(6)
    if form == 1:
        return f"[ds4:{level}]{text}[/ds4:{level}]"
    if form == 2:
        return f"[ds4:{level}] {text} [/ds4:{level}]"
    if form == 3 and " is " in text:
        head, tail = text.split(" is ", 1)
        return f"{head} is [ds4:{level}]{tail}[/ds4:{level}]"
    if form == 4:
        return f"[ds4:{level}]{text.split()[0]}[/ds4:{level}] {' '.join(text.split()[1:])}"
    return text.upper() if form == 5 else text


class _Ledger:
    def __init__(self, cwd: str, rng: random.Random) -> None:
        self.cwd, self.rng = cwd, rng
        self.ms = 1_767_225_600_000
        self.lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": SID,
                                             "timestamp": "2026-01-01T00:00:00.000Z",
                                             "cwd": cwd}]
        self.active: list[str] = []

    def _id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128)))

    def _append(self, data: dict[str, Any]) -> None:
        n = len(self.lines)
        self.ms += 1
        data = {"schemaVersion": 1, "mutationId": self._id(), "createdAt": self.ms, **data}
        self.lines.append({"type": "custom", "customType": "ds4-context-memory-v1",
                           "id": f"{n:08x}", "parentId": f"{n - 1:08x}",
                           "timestamp": f"2026-01-01T00:{n // 60000 % 60:02d}:"
                                        f"{n // 1000 % 60:02d}.{n % 1000:03d}Z",
                           "data": data})

    def write(self, claim: str, previous: str | None = None, scope: str | None = None) -> str:
        item_id = self._id()
        scope = scope or self.rng.choice(["project", "project", "session"])
        item: dict[str, Any] = {"id": item_id, "scope": scope, "claim": claim,
                                "createdAt": self.ms, "sourceEntryIds": []}
        if scope == "project":
            item["projectPath"] = self.cwd
        data: dict[str, Any] = {"operation": "supersede" if previous else "add", "item": item}
        if previous:
            data["previousId"] = previous
            self.active.remove(previous)
        self._append(data)
        self.active.append(item_id)
        return item_id

    def retire(self, item_id: str, status: str) -> None:
        self._append({"operation": "status", "memoryId": item_id, "status": status,
                      "reason": "wrong"})
        self.active.remove(item_id)

    def save(self, home: Path) -> Path:
        path = session_dir(home, self.cwd) / session_file_name("2026-01-01T00:00:00.000Z",
                                                               SID)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return path


def _random_store(rng: random.Random, cwd: str) -> tuple[_Ledger, list[str]]:
    """Claims of a few subjects, chains of supersedes, retirements, marked texts; and
    the learned texts to weigh: sentences stored (in effect or retired), their values
    changed, and others."""
    ledger = _Ledger(cwd, rng)
    said: list[str] = []
    for _ in range(rng.randrange(20, 60)):
        subject = rng.choice(SUBJECTS)
        text = _sentence(rng, subject, rng.randrange(8))
        said.append(text)
        move = rng.random()
        if move < 0.45 or not ledger.active:
            ledger.write(_marked(rng, text))
        elif move < 0.8:  # a chain: supersede one in effect, often of the same subject
            ledger.write(_marked(rng, text), rng.choice(ledger.active))
        else:
            ledger.retire(rng.choice(ledger.active), rng.choice(["invalid", "expired"]))
    learned = [*rng.sample(said, min(12, len(said))),
               *(_sentence(rng, rng.choice(SUBJECTS), rng.randrange(8)) for _ in range(8)),
               "The weather is fine today.", "Rebase feature branches onto main."]
    return ledger, learned


def _whole_read(self: ProjectionReads, partitions: list[str], subject: Any, norm: str,
                also: Any = ()) -> list[str]:
    """The read before: every claim sharing the subject or saying the text, any status."""
    from waymarks.store import claim_subjects

    found: dict[str, None] = {}
    for partition in dict.fromkeys(partitions):
        found.update(dict.fromkeys(item_id for item_id, _text in claim_subjects.sharing(
            self.db, partition, subject or frozenset())))
        norms = list(dict.fromkeys((norm, *also)))
        found.update(dict.fromkeys(str(item_id) for (item_id,) in self.db.execute(
            "SELECT id FROM items WHERE kind = 'memory' AND partition = ? AND norm IN"
            f" ({', '.join('?' * len(norms))}) ORDER BY seq", (partition, *norms))))
    return list(found)


def _decisions(app: Waymarks, texts: list[str]) -> list[tuple[str | None, ...]]:
    mine = OwnClaims(app)
    return [(mine.held(t), mine.said(t), mine.retired(t), mine.contradicted(t))
            for t in texts]


@pytest.mark.parametrize("seed", range(12))
def test_the_claims_that_bear_decide_as_the_whole_read_did(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rng = random.Random(seed)
    home = tmp_path / "home"
    ledger, learned = _random_store(rng, str(project.resolve()))
    app = Waymarks(home, cwd=str(project), session=str(ledger.save(home)))
    app.trust(str(project))
    app.rebuild_index()
    now = _decisions(app, learned)
    with monkeypatch.context() as patch:
        patch.setattr(ProjectionReads, "memory_about", _whole_read)
        before = _decisions(app, learned)
    assert now == before
    assert any(any(d) for d in now)  # (the stores hold some held, said or retired)
    app.close()


def test_a_learned_claim_about_a_long_chain_reads_only_the_claims_that_bear(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim superseded 300 times, a claim retired saying the learned sentence (marked
    in part: compared without its tags): the learned claims are weighed against the
    version in effect and the retired one, not the 300."""
    rng = random.Random(7)
    home = tmp_path / "home"
    ledger = _Ledger(str(project.resolve()), rng)
    chain: list[str] = []
    for n in range(300):
        chain.append(ledger.write(f"The deploy counter is {n}.", chain[-1] if chain else None,
                                  "project"))
    previous = chain[-1]
    wrong = ledger.write("The deploy counter is [ds4:sensitive]9000[/ds4:sensitive].",
                         scope="session")
    ledger.retire(wrong, "invalid")
    app = Waymarks(home, cwd=str(project), session=str(ledger.save(home)))
    app.trust(str(project))
    app.rebuild_index()
    read: list[int] = []
    items = Waymarks.items

    def counting(self: Waymarks, kind: str, **kwargs: Any) -> Any:
        found = items(self, kind, **kwargs)
        if kind == "memory":
            read.append(len(found))
        return found

    monkeypatch.setattr(Waymarks, "items", counting)
    mine = OwnClaims(app)
    assert mine.held("The deploy counter is 299") == previous  # the same sentence
    assert mine.contradicted("The deploy counter is 17") == previous
    assert mine.retired("The deploy counter is 9000") == wrong
    assert mine.held("The deploy counter is 9000") == previous  # theirs says otherwise
    assert mine.retired("The deploy counter is 17") == chain[17]  # the version saying it
    assert read == [1, 2, 2], read  # every version of the subject: 301 a text
    app.close()


def test_a_read_catches_the_subject_rows_up_a_bounded_share_at_a_time(
        make_app: Callable[..., Waymarks], project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After a re-fold, or a rebuild a read ran, the subject rows are left behind: the first
    plan of a team project, or weighing a learned claim, signed every claim of the store
    to catch them up (10 s CPU, 20 s wall at 100k claims: past the prompt hook's 10 s). A
    request signs a bounded share; those after it the rest, and then answer as before."""
    from waymarks.service import own_claims
    from waymarks.store import claim_subjects

    app = make_app()
    app.trust(str(project))
    written = [app.remember(f"The worker {n} pool size is {n + 2}.", scope="project")
               for n in range(7)]
    last = written[-1]
    assert isinstance(last, Committed)
    # (no "X is Y": the replay rule's key, read by its index, would find it at once)
    question = "The worker 6 pool size was set to 99."
    assert OwnClaims(app).contradicted(question) == last.id
    with app.projection.transaction():  # as a re-fold leaves them
        claim_subjects.reset(app.projection.db)
    monkeypatch.setattr(own_claims, "READ_CATCH_UP", 3, raising=False)
    answers = []
    while app.projection.claim_subjects_behind():
        answers.append(OwnClaims(app).contradicted(question))
    assert answers == [None, None, last.id]  # the 7th claim is signed by the third
