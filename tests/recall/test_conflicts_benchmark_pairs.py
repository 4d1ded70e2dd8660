"""benchmarks/conflicts.py --pairs PATH: a set of pairs kept outside the repository (a blind
held-out set) is measured as the fixture is, and a file it cannot measure is refused whole."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = ROOT / "benchmarks" / "conflicts.py"


def _bench() -> SimpleNamespace:
    return SimpleNamespace(**runpy.run_path(str(BENCHMARK), run_name="conflicts_bench_pairs"))


def _given(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    pairs: list[dict[str, object]] = [
        {"a": "The tile-cache service listens on port 7310.",
         "b": "The tile-cache service listens on port 7311.", "conflict": True,
         "kind": "value", "lang": "en", "scopes": "same", "tag": "t-given", "area": "ports"},
        {"a": "The tile-cache service listens on port 7310.",
         "b": "The tile-cache service is written in Go.", "conflict": False,
         "kind": "same-subject-other-attribute", "lang": "en", "scopes": "same",
         "tag": "t-given", "area": "services"},
        {"a": "瓦片缓存服务的日志保留 7 天。", "b": "瓦片缓存服务部署在杭州区域。",
         "conflict": False,
         "kind": "same-subject-other-attribute", "lang": "zh", "scopes": "same"},
    ]
    path = tmp_path / "given.json"
    path.write_text(json.dumps(pairs, ensure_ascii=False), encoding="utf-8")
    return path, pairs


def test_the_pairs_of_a_given_file_are_measured_instead_of_the_fixture(tmp_path: Path) -> None:
    path, pairs = _given(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(BENCHMARK), "--pairs", str(path)], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["pairs"] == 3
    assert set(out["groups"]) == {"tag:t-given", "tag:t-given:ports", "tag:t-given:services",
                                  "overall", "lang:zh", "kind:same-subject-other-attribute"}
    tagged = out["groups"]["tag:t-given"]["write_check"]
    assert (tagged["conflicting"], tagged["other"]) == (1, 1)
    # everything else as without the option: the same figures as measure() of those pairs
    assert out == {**_bench().measure(pairs), "semantic": False}


@pytest.mark.parametrize(("content", "said"), [
    (None, "cannot read the pairs of"),
    ("[{\"a\": ", "cannot read the pairs of"),
    ("{}", "holds no list of pairs"),
    ("[]", "holds no list of pairs"),
    (json.dumps([{"a": "x", "b": "y", "conflict": "yes", "scopes": "same", "lang": "en",
                  "kind": "value"}]), "pair 0 has no true/false 'conflict'"),
    (json.dumps([{"a": "x", "b": "y", "conflict": True, "scopes": "same", "lang": "en",
                  "kind": "value"},
                 {"a": "x", "b": " ", "conflict": True, "scopes": "same", "lang": "en",
                  "kind": "value"}]), "pair 1 has no text in 'b'"),
    (json.dumps([{"a": "x", "b": "y", "conflict": True, "scopes": "both", "tag": "t",
                  "area": "ports"}]), "pair 0 has no 'scopes'"),
    (json.dumps([{"a": "x", "b": "y", "conflict": True, "scopes": "same", "tag": "t"}]),
     "pair 0 has no 'area'"),
], ids=["missing", "not-json", "object", "empty", "conflict-word", "blank-b", "scopes",
        "no-area"])
def test_a_file_it_cannot_measure_is_refused_whole_with_a_message(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None,
        said: str) -> None:
    path = tmp_path / "pairs.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert _bench().main(["--pairs", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and said in captured.err and str(path) in captured.err
    if content is None:
        assert not path.exists()
    else:
        assert path.read_text(encoding="utf-8") == content
