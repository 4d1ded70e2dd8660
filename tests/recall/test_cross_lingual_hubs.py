"""A Chinese question reaches the English claim that answers it (issue 20, cross-lingual).

The bundled model puts a short English claim near every Chinese question by how near it
sits to the store as a whole: a claim near every other claim is near every query of the
other script too. The cross-script margin from a Chinese query (``centre_from``) is
therefore taken between cosines less each claim's cosine with the store's mean vector
(its *hub* value, :meth:`VectorMatrix.hubs`). Cosines below are the bundled model's for
benchmarks/everyday_xling.py's questions on the everyday store (rounded)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

np = pytest.importorskip("numpy", reason="the semantic extra is not installed")

from tests.recall.test_fusion import record  # noqa: E402
from waymarks.recall.fusion import semantic_side  # noqa: E402
from waymarks.recall.plan import direct_plan  # noqa: E402
from waymarks.recall.scoring import Stats, score_all  # noqa: E402
from waymarks.semantic.e5 import CALIBRATION  # noqa: E402
from waymarks.semantic.matrix import VectorMatrix  # noqa: E402
from waymarks.service.app import Waymarks  # noqa: E402

CLAIMS = [record("approvals", "Production deploys need two approvals."),
          record("freeze", "Deploys are frozen on Fridays after 15:00."),
          record("branch", "The default branch is main.")]


def chosen(query: str, cosines: dict[str, float], hubs: dict[str, float] | None) -> list[str]:
    ids = [c.id for c in CLAIMS]
    side, _ = semantic_side(ids, [cosines[i] for i in ids], [], CALIBRATION, query=query,
                            hubs=[hubs[i] for i in ids] if hubs else ())
    stats = Stats(len(CLAIMS), {f: 1 for c in CLAIMS for f in c.body})
    return [s.candidate.id for s in score_all(direct_plan(query), CLAIMS, stats, side)
            if s.eligible]


def test_the_answer_nearer_than_its_hub_value_says_qualifies_across_scripts() -> None:
    # 生产环境部署需要几个审批?: the answer 0.835, the next English claim 0.810 (0.025:
    # under the margin, 0.03) but that one sits nearer to the whole store
    query = "生产环境部署需要几个审批?"
    cosines = {"approvals": 0.835, "freeze": 0.810, "branch": 0.79}
    hubs = {"approvals": 0.790, "freeze": 0.826, "branch": 0.80}
    assert chosen(query, cosines, None) == []
    assert chosen(query, cosines, hubs) == ["approvals"]


def test_a_claim_near_the_whole_store_is_no_answer_for_being_nearest() -> None:
    # nearest by 0.04, but only as near as it is to every claim: no answer
    query = "前端部署在哪里?"
    cosines = {"approvals": 0.846, "freeze": 0.806, "branch": 0.79}
    assert chosen(query, cosines, None) == ["approvals"]
    hubs = {"approvals": 0.850, "freeze": 0.800, "branch": 0.79}
    assert chosen(query, cosines, hubs) == []


def test_only_the_scripts_the_calibration_names_are_centred() -> None:
    from waymarks.recall.fusion import centres

    assert centres(CALIBRATION, "客户数据必须存放在哪个区域?", 100)
    assert not centres(CALIBRATION, "客户数据必须存放在哪个区域?", 3)  # no crowd to centre on
    assert not centres(CALIBRATION, "where must customer data be stored?", 100)
    assert not centres(CALIBRATION, "", 100)


def test_the_matrix_finds_the_nearest_by_the_centred_cosine_and_gives_hub_values() -> None:
    dim = 384
    rng = np.random.default_rng(5)
    common = rng.standard_normal(dim)
    rows = np.stack([common * 2.0 + rng.standard_normal(dim) for _ in range(30)]
                    + [rng.standard_normal(dim)]).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    matrix = VectorMatrix(dim)
    matrix.extend((n + 1, f"r{n:02d}", row.astype("<f4").tobytes())
                  for n, row in enumerate(rows))
    # a query near the lone row (r30) and near the crowd's mean
    query = rows[30] * 0.6 + rows[:30].mean(axis=0)
    query = (query / np.linalg.norm(query)).astype("<f4")
    cos = rows @ query
    hub = (rows @ rows.sum(axis=0) - 1.0) / (len(rows) - 1)  # (each row's others)
    assert int(np.argmax(cos)) != 30 and int(np.argmax(cos - hub)) == 30
    ids, _ = matrix.nearest(query.tobytes(), [], 1)
    assert "r30" not in ids
    crowd = matrix.crowd()  # (every row: a one-shot process's matrix)
    ids, cosines = matrix.nearest(query.tobytes(), [], 1, centred=1, crowd=crowd)
    assert "r30" in ids and len(ids) == 2
    assert matrix.hubs(ids, crowd) == pytest.approx([float(hub[int(i[1:])]) for i in ids], abs=1e-6)
    assert cosines == pytest.approx([float(cos[int(i[1:])]) for i in ids], abs=1e-6)


@pytest.mark.slow
@pytest.mark.semantic
def test_chinese_questions_recall_the_english_claims_that_answer_them(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    """The everyday store embedded by the real model: a Chinese question whose English
    answer stands out of the store once each claim's hub value is taken off is answered
    (before: nothing recalled); one no claim answers still recalls nothing."""
    from tests.recall import everyday_store
    from tests.recall.test_fusion_cutoff import embedded

    app, texts = embedded(make_app, monkeypatch, everyday_store.CLAIMS)

    def recalled(question: str) -> list[str]:
        return [texts[i] for i in app.recall(question).selected]

    assert recalled("客户数据必须存放在哪个区域?") == ["Customer data must stay in the EU region."]
    assert recalled("生产环境部署需要几个审批?") == ["Production deploys need two approvals."]
    assert recalled("搜索服务在哪个机房?") == []
    assert recalled("前端用了哪个 CSS 框架?") == []


def test_a_rows_hub_value_is_the_same_in_a_matrix_of_the_rows_a_session_sees() -> None:
    """A long-lived process's matrix holds the vectors its session sees and sums every
    stored vector as it reads them (``Crowd.extend``, in batches); a one-shot process's
    holds every vector (``VectorMatrix.crowd``). The two give each row the same hub value,
    to the bit, and the same nearest by the centred cosine."""
    from waymarks.semantic.matrix import Crowd

    dim = 384
    rng = np.random.default_rng(11)
    rows = rng.standard_normal((90, dim)).astype(np.float32)
    rows[:40] += rng.standard_normal(dim).astype(np.float32) * 3  # the others' crowd
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    stored = [(n + 1, f"r{n:02d}", row.astype("<f4").tobytes()) for n, row in enumerate(rows)]
    seen = [row for row in stored if row[0] % 3 == 0]  # a third of them: 30
    everything, visible = VectorMatrix(dim), VectorMatrix(dim)
    everything.extend(stored)
    visible.extend(seen)
    read = Crowd(dim)
    for start in range(0, len(stored), 17):  # read as a warm memo reads: past its last row
        read.extend(stored[start:start + 17])
    whole = everything.crowd()
    assert (read.count, read.watermark) == (90, 90)
    assert read.total.tobytes() == whole.total.tobytes()
    ids = [item_id for _, item_id, _ in seen]
    assert visible.hubs(ids, read) == everything.hubs(ids, whole)
    # ... which a crowd of the visible rows alone does not give (what the warm path took)
    assert visible.hubs(ids, visible.crowd()) != everything.hubs(ids, whole)
    query = (rows[2] + rows[50]).astype("<f4")
    query = (query / np.linalg.norm(query)).astype("<f4").tobytes()
    retired = everything.flags_except(ids)  # (the one-shot path leaves the unseen out)
    assert visible.nearest(query, [], 5, None, 3, read) == everything.nearest(
        query, [], 5, retired, 3, whole)


class _Store:
    """What ``VectorMemo`` reads of a ``VectorStore``: rows by session, each read noted."""

    def __init__(self, rows: dict[str, list[tuple[int, str, bytes]]]) -> None:
        self.rows, self.reads = rows, []  # type: list[tuple[str | None, int]]

    def rewrites(self) -> int:
        return 0

    def kept_sum(self, model: str) -> None:
        return None  # (no sum kept with a projection: every vector is read)

    def vectors(self, model: str, visible_to: tuple[str, str | None] | None = None,
                after: int = 0) -> list[tuple[int, str, bytes]]:
        session = None if visible_to is None else visible_to[0]
        self.reads.append((session, after))
        return sorted(row for who, rows in self.rows.items() if session in (None, who)
                      for row in rows if row[0] > after)


def test_a_long_lived_process_sums_every_sessions_vectors_once() -> None:
    """The memo's crowd is every stored vector, whichever session it serves: kept when
    it starts over for another session, read again on a new index generation."""
    from waymarks.service.semantic_recall import VectorMemo

    dim = 384
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((5, dim)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    stored = [(n + 1, f"r{n}", row.astype("<f4").tobytes()) for n, row in enumerate(rows)]
    store = _Store({"s1": stored[:2], "s2": stored[2:]})
    embedder = type("E", (), {"model": "m", "dim": dim})()
    memo = VectorMemo()
    held = memo.current(store, embedder, ("s1", None), 1)  # type: ignore[arg-type]
    crowd = memo.crowd_of(store, embedder)  # type: ignore[arg-type]
    assert (len(held), crowd.count) == (2, 5)
    whole = VectorMatrix(dim)
    whole.extend(stored)
    assert crowd.total.tobytes() == whole.crowd().total.tobytes()
    memo.current(store, embedder, ("s2", None), 1)  # type: ignore[arg-type]
    assert memo.crowd_of(store, embedder) is crowd  # type: ignore[arg-type]
    assert store.reads[-1] == (None, 5)  # (past the last row read: nothing new)
    memo.current(store, embedder, ("s2", None), 2)  # type: ignore[arg-type]
    assert memo.crowd_of(store, embedder) is not crowd  # type: ignore[arg-type]
    assert store.reads[-1] == (None, 0)
