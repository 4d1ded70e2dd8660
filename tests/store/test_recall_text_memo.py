"""The recall index analyses a text once however many records in one add say it (a fork's
copy of a claim, a repeated claim), and writes the rows each record would get alone."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

import waymarks.store.recall_index as recall_index
from waymarks.recall import analysis
from waymarks.store.migrations import migrate
from waymarks.store.recall_index import RecallIndex, RecordInput

TEXTS = ["The billing service uses Redis for caching",
         "Deploys of auth happen every Tuesday",
         'A teammate asked "what port does search use?" and it is 9200']


def _index(records: list[RecordInput]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None)
    migrate(db, 0)
    db.execute("BEGIN")
    RecallIndex(db, items_backed=False).add(records, fresh=True)
    db.execute("COMMIT")
    return db


def _rows(db: sqlite3.Connection) -> list[Any]:
    return db.execute("SELECT item_id, text, body_count, fields, checksum FROM"
                      " recall_records ORDER BY rowid").fetchall()


def test_a_text_said_by_many_records_is_analysed_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = analysis.analyze

    def counted(text: str, **kwargs: Any) -> analysis.Analysis:
        calls.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(recall_index, "analyze", counted)
    records = [RecordInput(id=f"id-{copy}-{n}", text=text, origin=f"session:s{copy}")
               for n, text in enumerate(TEXTS) for copy in range(4)]
    db = _index(records)
    assert sorted(calls) == sorted(TEXTS)
    # each record's row is the one it gets indexed alone
    alone = [row for record in records for row in _rows(_index([record]))]
    assert _rows(db) == alone
    terms = dict(db.execute("SELECT term, doc FROM recall_vocab").fetchall())
    assert terms and set(terms.values()) <= {4, 8, 12}


def test_aliases_are_analysed_with_their_record(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [RecordInput(id="a", text=TEXTS[0], aliases=("cache store",)),
               RecordInput(id="b", text=TEXTS[0])]
    db = _index(records)
    fields = [recall_index._FIELDS_DECODER.decode(f) for (f,) in db.execute(
        "SELECT fields FROM recall_records ORDER BY rowid")]
    assert fields[0]["aliases"] and not fields[1]["aliases"]
    assert fields[0]["body"] == fields[1]["body"]
