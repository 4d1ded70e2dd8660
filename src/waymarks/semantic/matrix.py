"""Cosines of one query against many stored vectors, with NumPy (part of the extra).

Vectors are bytes (L2-normalised little-endian float32); a vector of another length than
the query's (another model) gets no cosine: the caller treats it as missing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def dot_all(query: bytes, vectors: Sequence[bytes]) -> list[float]:
    """``query · v`` for each ``v`` (``nan`` where the lengths differ)."""
    if not vectors:
        return []
    q = np.frombuffer(query, dtype="<f4")
    size = len(query)
    same = [i for i, v in enumerate(vectors) if len(v) == size]
    out = [float("nan")] * len(vectors)
    if same:
        matrix = np.frombuffer(b"".join(vectors[i] for i in same), dtype="<f4").reshape(
            len(same), q.shape[0])
        for i, value in zip(same, (matrix @ q).tolist(), strict=True):
            out[i] = float(value)
    return out
