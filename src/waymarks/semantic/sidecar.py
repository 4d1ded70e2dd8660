"""The stored vectors as one file beside the projection, for a one-shot process.

A fresh process (``waymarks recall``, a hook without its helper) read every stored vector
row from SQLite on each query, checked its checksum and its text's hash, and assembled a
matrix: ~80 ms of CPU at 10k records, most of a hybrid recall's. The same rows, once read
and checked, are written here as one contiguous float32 matrix, and the next process maps
the file (one read) instead.

The projection stays the truth and this file is disposable: it names the stamp of the
rows it was built from (:meth:`waymarks.store.recall_vectors.VectorStore.stamp`) and is
used only while the projection's stamp is still that one; any other file, stale, cut
short, of another model or damaged (a CRC-32 covers every byte before it), is not used:
the caller reads the rows from SQLite again, and the home's background worker writes it
anew (never the prompt path: :func:`waymarks.service.semantic_recall.refresh_kept_vectors`).

Layout (a contract between versions: a change of any part changes :data:`MAGIC`):
``MAGIC``, the header's length (4 bytes, little-endian), the header (JSON: ``stamp``,
``model``, ``dim``, ``count``: the rows, ``blob``: the bytes of their IDs), zeros up to a
multiple of 8, each row's record row ID (int64, little-endian), the rows' vectors
(float32, little-endian, ``dim`` each), where each row's item ID ends in the blob (int64),
the rows in the order of their IDs' bytes (int64), the blob (each ID's UTF-8), and the
CRC-32 of all that (4 bytes, little-endian). The IDs are looked up where they lie
(:mod:`waymarks.semantic.mapped_ids`): the first layout (:data:`FIRST_MAGIC`) kept them as
one JSON list in the header, decoded and mapped on every read (~19 ms of CPU at 65k
vectors, ~10 times that at a million); a file of it is stale, written anew by the worker.
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec
import numpy as np

from waymarks.files.atomic import write_atomic
from waymarks.files.reading import open_regular
from waymarks.semantic import Nearest
from waymarks.semantic.mapped_ids import MappedIds, layout
from waymarks.semantic.matrix import VectorMatrix

#: the file's first bytes, and its layout's version
MAGIC: Final = b"WAYMARKS-VECTORS-2\n"
#: the first layout's (the IDs in the header): a file of it is stale, not damaged
FIRST_MAGIC: Final = b"WAYMARKS-VECTORS-1\n"
#: the file beside the projection ``waymarks.db``: ``waymarks.db-vectors``
SUFFIX: Final = "-vectors"
_LENGTH: Final = struct.Struct("<I")


class Header(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    stamp: list[int]
    model: str
    dim: int
    count: int
    blob: int


_DECODER: Final = msgspec.json.Decoder(Header)


class Damaged(ValueError):
    """The file is not one this module wrote whole (cut short, changed, another format)."""


def path_of(database: Path | str) -> Path:
    """Where the vectors of the projection at ``database`` are kept."""
    return Path(f"{os.fspath(database)}{SUFFIX}")


def write(path: Path, stamp: Sequence[int], model: str, matrix: Nearest) -> None:
    """Write ``matrix``'s rows (built: see :meth:`VectorMatrix.rows`) as read at ``stamp``
    (atomically, private to the user: vectors say something of the texts)."""
    ids, rowids, rows = matrix.rows()
    ends, order, blob = layout(ids)
    header = msgspec.json.encode(Header(list(stamp), model, int(rows.shape[1]), len(ids),
                                        len(blob)))
    start = len(MAGIC) + _LENGTH.size + len(header)
    parts = (MAGIC, _LENGTH.pack(len(header)), header, bytes(-start % 8),
             np.asarray(rowids, dtype="<i8").data, np.ascontiguousarray(rows, dtype="<f4").data,
             ends.data, order.data, blob)
    crc = 0
    for part in parts:  # (the matrix is copied once, into the file's bytes)
        crc = zlib.crc32(part, crc)
    write_atomic(path, b"".join((*parts, _LENGTH.pack(crc))), mode=0o600)


def identity(path: Path) -> list[int] | None:
    """What tells the file at ``path`` from any other, and from itself once changed (its
    device, inode, size, and times of change: a write or a replacement changes one), to
    be noted once it is written (:func:`read`'s ``written``); ``None`` when it cannot be
    looked at."""
    try:
        return _identity(os.stat(path))
    except OSError:
        return None


def _identity(info: os.stat_result) -> list[int]:
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def read(path: Path, stamp: Sequence[int], model: str, dim: int,
         written: Sequence[int] | None = None) -> VectorMatrix | None:
    """The matrix kept at ``path`` when it was built at ``stamp`` for ``model``'s vectors
    of ``dim`` values; ``None`` when there is none or it is stale (another stamp, model or
    length). Raises :class:`Damaged` for a file that is not whole, ``OSError`` for one
    that cannot be read. ``written``: the :func:`identity` noted when the file was
    written whole; while the file is still that one its CRC-32 is not taken again (~4 ms
    of CPU at 10k vectors, on every one-shot recall)."""
    try:
        with open_regular(path) as handle:  # (a FIFO there: refused, never waited on)
            info = os.fstat(handle.fileno())
            if info.st_size <= len(MAGIC) + 2 * _LENGTH.size:
                raise Damaged(f"{path} is cut short")
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return None
    unchanged = written is not None and list(written) == _identity(info)
    view = memoryview(data)
    if bytes(view[:len(MAGIC)]) == FIRST_MAGIC:
        return None  # (the first layout: stale)
    if bytes(view[:len(MAGIC)]) != MAGIC:
        raise Damaged(f"{path} is not a file of stored vectors")
    (length,) = _LENGTH.unpack_from(view, len(MAGIC))
    start = len(MAGIC) + _LENGTH.size
    try:
        header = _DECODER.decode(view[start:start + length])
    except msgspec.DecodeError as exc:
        raise Damaged(f"{path}: its header cannot be read ({exc})") from exc
    if (header.stamp, header.model, header.dim) != (list(stamp), model, dim):
        return None
    count = header.count
    offset = start + length + -(start + length) % 8
    ids_at = offset + 8 * count + 4 * dim * count
    end = ids_at + 16 * count + header.blob
    if min(count, header.blob) < 0 or len(view) != end + _LENGTH.size or (
            not unchanged and _LENGTH.unpack_from(view, end)[0] != zlib.crc32(view[:end])):
        raise Damaged(f"{path} does not hold the bytes written (cut short or changed)")
    rowids = np.frombuffer(data, dtype="<i8", count=count, offset=offset)
    rows = np.frombuffer(data, dtype="<f4", count=dim * count,
                         offset=offset + 8 * count).reshape(count, dim)
    order = np.frombuffer(data, dtype="<i8", count=count, offset=ids_at + 8 * count)
    ends = _int64s(view[ids_at:ids_at + 8 * count])
    if count and (ends[-1] != header.blob or int(order.min()) < 0
                  or int(order.max()) >= count):
        raise Damaged(f"{path}: its IDs are not as written")  # (whole, yet not ours)
    ids = MappedIds(ends, _int64s(view[ids_at + 8 * count:ids_at + 16 * count]), data,
                    ids_at + 16 * count)
    return VectorMatrix.of(dim, ids, rowids, rows)


def _int64s(view: memoryview) -> Sequence[int]:
    """Little-endian int64s, each read a Python ``int`` (a NumPy scalar costs ~10 times
    more, and a lookup reads ~40)."""
    if sys.byteorder == "little":
        return view.cast("q")
    return np.frombuffer(view, dtype="<i8").tolist()  # type: ignore[no-any-return]
