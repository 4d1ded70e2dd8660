"""The optional semantic signal: the embedder port and the fusion rule.

Recall stays pure: an :class:`Embedder` is an adapter passed in by the caller (see
:mod:`waymarks.semantic`), and what reaches scoring is data, a cosine similarity per
candidate ID (:class:`Semantic`). Without one, scoring is exactly the lexical engine.

Fusion happens *before* the gates decide (the gates stay: precision is the product):

- a record's similarity is first calibrated to ``[0, 1]`` by the model's own range
  (``(cos - floor) / (ceil - floor)``, clipped: e5-type models put unrelated text at a
  cosine of 0.7-0.8, so raw cosines would flatten every ranking);
- relevance and focus coverage are each a weighted sum, ``(1 - w) * lexical + w * sem``,
  so the coverage gate (0.45) sees the fused value;
- a record with a lexical match and a fair similarity (``sem >= support``) is let past
  the gates that count lexical matches (two of three features; a single match beside
  words the store does not know): a paraphrase shares fewer words than it means (a Han
  record only at ``qualify_han``: any two short Chinese texts sit near);
- a record whose similarity is below ``veto`` is not eligible on shared words alone (an
  everyday word in common with a record about something else); an exact path or filename
  the query names still carries it;
- a record with no lexical match at all (another language, other words) is eligible only
  on a *strong* similarity (``sem >= SEMANTIC_QUALIFY``), or on a lower one when it is
  the query's nearest record by a margin (``qualify_nearest``): every other gate that does
  not need a lexical match (status, literals, the conversation's subject) still applies;
  across scripts (an English query, a Chinese claim), where no word can match, the
  query's *nearest* record qualifies on a lower similarity (``cross_script``).

A candidate without a similarity (no vector yet, or a vector of another model) keeps its
lexical score, never an error. The weights were chosen on the LoCoMo development split
(``benchmarks/locomo.py``); they belong to the model and come with the embedder.
"""

from __future__ import annotations

import functools
import heapq
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Final, Protocol

import msgspec

from waymarks.recall import cross_lingual

#: a calibrated similarity at or above this qualifies a record with no lexical match
SEMANTIC_QUALIFY: Final = 0.8


class Calibration(msgspec.Struct, frozen=True):
    """How one model's cosines map to ``[0, 1]``, and how much they weigh in fusion."""

    floor: float
    ceil: float
    weight: float
    qualify: float = SEMANTIC_QUALIFY
    #: a calibrated similarity at or above this lets a record with a lexical match past
    #: the gates that count matches (a paraphrase shares fewer words than it means)
    support: float = 0.5
    #: across scripts (an English query, a Chinese claim) no word can match: the record
    #: qualifies on this lower similarity when it is also the query's nearest record
    cross_script: float = 0.3
    #: a record that has a vector and is less similar than this (calibrated) is far in
    #: meaning from the query: words it shares do not make it an answer, unless the query
    #: names it by an exact path or filename (0: no veto)
    veto: float = 0.0
    #: fused, an eligible record is cut below this share of the best one's relevance (the
    #: lexical engine's 0.75 unless the model's calibration says otherwise)
    relative: float = 0.75
    #: ``qualify`` for a Han record (None: ``qualify``; never below it): a model may put
    #: any short Chinese text nearer to any query than two related English texts
    qualify_han: float | None = None
    #: the scripts of the queries the cross-script rule serves (a model whose similarity
    #: from one script to the other is noise for short texts serves only the other)
    cross_from: tuple[str, ...] = ("han", "latin")
    #: across scripts, the record must also be this much (raw cosine) nearer than the
    #: next candidate of a script other than the query's (:meth:`Semantic.among`), or
    #: than ``floor`` when it is the only one
    cross_margin: float = 0.0
    #: ``(query script, margin)``: that direction served at its own ``cross_margin``
    #: (:mod:`waymarks.recall.cross_lingual`)
    cross_margins: tuple[tuple[str, float], ...] = ()
    #: the query scripts whose cross-script margin is taken between cosines less each
    #: record's mean cosine with the store's other records (:attr:`Semantic.hubs`): a
    #: record near every record of the store is near every query of the other script too
    centre_from: tuple[str, ...] = ()
    #: fused, a record whose one fault is coverage under the bar (0.45) but at or above
    #: this is eligible beside a record that passes every gate (scoring's ``_beside``),
    #: as one the veto alone refused is (1.0: none)
    beside: float = 1.0
    #: a Latin record (:func:`says_enough`) with no lexical match qualifies from this lower
    #: similarity too when it is the query's nearest record that may be recalled, nearer
    #: than every other by ``nearest_margin`` (raw cosine): it stands out of the store, as
    #: one among many near ones does not (None: no such rule)
    qualify_nearest: float | None = None
    nearest_margin: float = 0.0
    #: a record's relevance gains this share of the best of its conversational neighbours'
    #: (:mod:`waymarks.recall.neighbours`; ranking only, no gate reads it; 0: none)
    neighbours: float = 0.0
    #: a similarity tells a record from others only by this much (raw cosine; None: any
    #: does): a record the lexical relative cutoff cuts stays within the fused one only
    #: when it is this much nearer in meaning than the records the words rank best
    #: (:meth:`Semantic.nearer`). Claims of one shape ("The payments service listens on
    #: port 8030.", "The billing service …") sit within about 0.02 of each other for any
    #: question of that shape, so fusion lifted every one of them a little towards the best.
    #: Likewise a fair similarity lifts the gates asking a record to name the question's
    #: subject only for the nearest record that may be recalled, by this much
    #: (:meth:`Semantic.apart`): "where does the tracker config live?" is near every "The
    #: X config lives in …"
    distinct: float | None = None

    def __post_init__(self) -> None:
        if not (-1.0 <= self.floor < self.ceil <= 1.0 and 0.0 <= self.weight <= 1.0
                and 0.0 < self.qualify <= 1.0 and 0.0 < self.support <= 1.0
                and 0.0 < self.cross_script <= 1.0 and 0.0 <= self.veto < 1.0
                and 0.0 < self.relative <= 1.0 and 0.0 <= self.cross_margin < 1.0
                and all(0.0 < margin < 1.0 for _, margin in self.cross_margins)
                and 0.0 < self.beside <= 1.0 and 0.0 <= self.nearest_margin < 1.0
                and 0.0 <= self.neighbours <= 1.0
                and (self.distinct is None or 0.0 <= self.distinct < 1.0)
                and (self.qualify_nearest is None or 0.0 < self.qualify_nearest <= self.qualify)
                and (self.qualify_han is None or self.qualify <= self.qualify_han <= 1.0)):
            raise ValueError(f"invalid calibration {self!r}")

    def calibrate(self, cosine: float) -> float:
        return min(1.0, max(0.0, (cosine - self.floor) / (self.ceil - self.floor)))


class Embedder(Protocol):
    """A text embedder (an adapter: it may load a model, use threads and native code).

    ``model`` names the vectors it makes: a stored vector of another ``model`` is stale.
    Vectors are L2-normalised float32, little-endian, ``dim`` values, as bytes."""

    @property
    def model(self) -> str: ...

    @property
    def dim(self) -> int: ...

    @property
    def calibration(self) -> Calibration: ...

    def query(self, text: str) -> bytes: ...

    def passages(self, texts: Sequence[str]) -> list[bytes]: ...


class Semantic(msgspec.Struct, frozen=True):
    """The semantic side of one query: each candidate's cosine, and how to use it."""

    cosines: Mapping[str, float]
    calibration: Calibration
    #: the query's script (:func:`script`), for the cross-script rule
    query_script: str = ""
    #: the two highest distinct cosines of the candidates in another script than the
    #: query's (set by :meth:`among` for one candidate list): with a ``cross_margin``, a
    #: record across scripts must be the nearest of them by that much
    rivals: tuple[float, ...] = ()
    #: the two highest distinct cosines of the candidates that may be recalled, any script
    #: (set by :meth:`among` when the calibration has a ``qualify_nearest``)
    nearest: tuple[float, ...] = ()
    #: each candidate's mean cosine with the store's other records (a query of a script in
    #: ``centre_from``): the cross-script margin (:attr:`rivals`, :meth:`across`) compares
    #: the cosines less it
    hubs: Mapping[str, float] = msgspec.field(default_factory=dict)

    def among(self, records: Iterable[tuple[str, str]]) -> Semantic:
        """This side for one list of candidates, ``(id, text)``: with the cosines of those
        in another script than the query's (:attr:`rivals`), when the margin needs them.
        Every other script is a rival, not only the one the rule reaches: a Russian claim
        nearer to a Chinese query than every English one is no reason to take that one.
        Identical vectors (the same text in two scopes) are one rival: a claim's copy is
        no other claim it must be nearer than. ``records``: those that may be recalled.
        With a ``qualify_nearest``, the two nearest of them too (:attr:`nearest`)."""
        calibration = self.calibration
        cross = bool(calibration.cross_margin) and self.query_script in calibration.cross_from
        near = calibration.qualify_nearest is not None or calibration.distinct is not None
        if not cross and not near:
            return self
        cosines = self.cosines
        known = [(i, cosines[i], text) for i, text in records if i in cosines]
        nearest = tuple(heapq.nlargest(2, {cosine for _, cosine, _ in known})) if near else ()
        foreign = {self._apart_value(i, cosine) for i, cosine, text in known
                   if script(text) != self.query_script} if cross else set()
        return msgspec.structs.replace(self, rivals=tuple(heapq.nlargest(2, foreign)),
                                       nearest=nearest)

    def score(self, candidate_id: str) -> float | None:
        """The calibrated similarity, or ``None`` when the record has no vector."""
        cosine = self.cosines.get(candidate_id)
        return None if cosine is None else self.calibration.calibrate(cosine)

    def fuse(self, lexical: float, sem: float | None) -> float:
        if sem is None:
            return lexical
        weight = self.calibration.weight
        return (1.0 - weight) * lexical + weight * sem

    def qualifies(self, sem: float | None, text: str = "", candidate_id: str = "") -> bool:
        """Whether a record (``text``, ``candidate_id``) with no lexical match is near
        enough on its own: at ``qualify``, or at ``qualify_nearest`` when it stands out
        (:meth:`stands_out`)."""
        if sem is None:
            return False
        if sem < self.calibration.qualify:
            return self.stands_out(sem, text, candidate_id)
        kind = script(text)
        if kind == "latin" and says_enough(text):
            return True
        high = self.calibration.qualify_han
        strict = high is None or sem >= high
        # Han, or a script the bundled model barely reads: any two short texts of it sit
        # near, and text its tokenizer does not know is one vector (Cherokee, Tifinagh):
        # only very near, and only from a query in that script. So a Latin text of too
        # little to place (:func:`says_enough`), and one of no letter only from a query
        # of none
        return strict and (kind == "han" or kind == self.query_script)

    def stands_out(self, sem: float, text: str, candidate_id: str) -> bool:
        """Whether a Latin record that says enough is the query's nearest among those that
        may be recalled (:meth:`among`) by ``nearest_margin``, at ``qualify_nearest``. The
        query is embedded in lower case, which puts it about 0.01 nearer every record:
        ``qualify`` moved with it, so a lone claim a paraphrase names ("is the newcheckout
        toggle active?", "Feature flag new-checkout is enabled in production.": cosine
        0.859, the next claim 0.78) keeps the cosine it qualified at before (0.85), while
        the nearest of many near ones (another person's chat) does not."""
        low = self.calibration.qualify_nearest
        if low is None or sem < low:
            return False  # (most candidates: the text is not looked at)
        return self._nearest_by(candidate_id, self.calibration.nearest_margin) \
            and script(text) == "latin" and says_enough(text)

    def apart(self, candidate_id: str) -> bool:
        """Whether the record is the nearest of those that may be recalled (:meth:`among`)
        by the calibration's ``distinct`` margin: its similarity then says which thing it is
        about, not only the question's shape, which every claim of that shape shares. With
        no margin, any record is."""
        margin = self.calibration.distinct
        return True if margin is None else self._nearest_by(candidate_id, margin)

    def _nearest_by(self, candidate_id: str, margin: float) -> bool:
        """Whether the record is the nearest of those that may be recalled (:meth:`among`),
        nearer than the next by ``margin`` (raw cosine; than ``floor`` when alone)."""
        if not self.nearest:
            return False
        best, *rest = self.nearest
        if self.cosines.get(candidate_id) != best:
            return False
        other = rest[0] if rest else self.calibration.floor
        return best - other >= margin

    def nearer(self, candidate_id: str, than: Iterable[str]) -> bool:
        """Whether the record is nearer in meaning than each record of ``than`` that has
        a vector by the calibration's ``distinct`` margin (raw cosine): its meaning, not the
        question's shape they share, sets it apart. With no margin, any record is; without
        a vector, or with none of ``than`` to compare, none is."""
        margin = self.calibration.distinct
        if margin is None:
            return True
        cosine = self.cosines.get(candidate_id)
        rivals = [self.cosines[i] for i in than if i in self.cosines and i != candidate_id]
        return cosine is not None and bool(rivals) and cosine - max(rivals) >= margin

    def lifts(self, candidate_id: str, lexical: float, relevance: float,
              best: Iterable[str]) -> bool:
        """Whether fusion may keep a record (``lexical``, fused ``relevance``) within the
        relative cutoff that its words alone would not reach (scoring's ``_cut``): nearer
        in meaning than the records the words rank ``best`` (:meth:`nearer`), or raised by
        its conversational neighbours (:mod:`waymarks.recall.neighbours`: the turn beside
        a question's answer, which shares few of its words)."""
        own = self.fuse(lexical, self.score(candidate_id))
        return relevance > own or self.nearer(candidate_id, best)

    def supports(self, sem: float | None, text: str = "") -> bool:
        """Whether a record (``text``) with a lexical match is near enough in meaning to
        be let past the gates that count matches. A Han record only at ``qualify_han``:
        any two short Chinese texts sit above ``support`` (a review: 数据库密码是什么？
        recalled 数据库每天凌晨三点备份。 on the one word they share)."""
        if sem is None or sem < self.calibration.support:
            return False
        high = self.calibration.qualify_han
        return high is None or sem >= high or script(text) != "han"

    def far(self, sem: float | None, text: str = "") -> bool:
        """Whether a record (``text``) with a vector is too far in meaning to be an answer.
        Never one in the other script than the query's: across scripts a model puts even
        a translation lower (数据库端口是多少 and "The database port is 5433." at cosine 0.80,
        under the veto's 0.81), and the words they share are concepts the analysis mapped
        on purpose."""
        if sem is None or sem >= self.calibration.veto:
            return False
        return not self._paired(script(text) if text else "")

    def across(self, candidate_id: str, text: str) -> bool:
        """Whether a record in the other script qualifies: the query's script is one the
        rule serves (``cross_from``), the record is at least ``cross_script`` similar, and
        the nearest to the query (within ``NEAREST_MARGIN`` of the best cosine) or, with
        a ``cross_margin``, the nearest of the records in its script (:meth:`among`) by
        that much (a model may put every text of the query's own script nearer)."""
        cosine = self.cosines.get(candidate_id)
        calibration = self.calibration
        if cosine is None or self.query_script not in calibration.cross_from \
                or calibration.calibrate(cosine) < calibration.cross_script:
            return False
        # the record's script only now: read a character at a time, for every candidate
        # of every query (an English one, which the rule does not serve, included), it
        # was the most of a warm hybrid recall's scoring at 10k memories
        kind = script(text)
        if not self._paired(kind) or (kind == "latin" and not says_enough(text)):
            return False
        if not calibration.cross_margin:
            return cosine >= max(self.cosines.values()) - NEAREST_MARGIN
        value = self._apart_value(candidate_id, cosine)
        best, *rest = self.rivals or (value,)
        if value >= best and not rest:  # the only one: by its cosine above the floor
            value, best, rest = cosine, cosine, [calibration.floor]
        other = best if value < best else rest[0]
        return value - other >= calibration.cross_margin \
            and cross_lingual.nearest_of_all(self, cosine)

    def _apart_value(self, candidate_id: str, cosine: float) -> float:
        """The value the cross-script margin compares: the cosine, less the record's
        mean cosine with the store's other records for a query whose script the
        calibration centres (:attr:`hubs`)."""
        return cosine - self.hubs[candidate_id] if candidate_id in self.hubs else cosine

    def _paired(self, kind: str) -> bool:
        """Whether a record of script ``kind`` is across :data:`CROSS_PAIR` from the query
        (the pair the cross-script rule was measured on: Chinese and English)."""
        return kind != self.query_script and {kind, self.query_script} == CROSS_PAIR


#: how far below the best cosine a record still counts as the nearest
NEAREST_MARGIN: Final = 0.01


#: the two scripts the cross-script rule joins (:meth:`Semantic.across`)
CROSS_PAIR: Final = frozenset({"han", "latin"})


def says_enough(text: str) -> bool:
    """Whether a Latin text holds enough for a model to place it by meaning: two words of
    two letters or more that it reads (ASCII letters, or letters on an ASCII base: é).
    A lone word ("TODO"), no letter ("###", "→ ✓ ★"), or letters named Latin that no
    tokenizer knows ("ꞁꞃꞅꞇ ꞁꞃꞅ") sat at cosine 0.83-0.87 to most short requests ("please
    refactor this function"), past ``qualify``: recalled by meaning alone for any of
    them. Such a record qualifies as one of a script the model barely reads does."""
    words = run = 0
    for ch in text:
        if _readable(ch):
            run += 1
            continue
        words += run >= 2
        run = 0
        if words >= 2:
            return True
    return words + (run >= 2) >= 2


@functools.cache
def _readable(ch: str) -> bool:
    """A letter a model reads as a Latin one: ASCII, or decomposed to an ASCII base."""
    if ch.isascii():
        return ch.isalpha()
    base = unicodedata.decomposition(ch).split(" ")[0]  # "0065 0301" (é); "" or "<compat> …"
    return ch.isalpha() and base[:1] not in ("", "<") and _readable(chr(int(base, 16)))


def script(text: str) -> str:
    """The script most of a text's letters are in: ``han`` when its Han characters,
    counted twice (one often says what a Latin word of several letters does), are at
    least the letters of every other script; else ``latin`` (accented letters too) when
    they are at least every other's; else that script's Unicode name (``cyrillic``,
    ``hangul``, ``kana`` for Hiragana and Katakana, ``cherokee``); ``""`` with no letter."""
    if text.isascii():  # (most records: one pass in C, as the loop below would answer)
        return "latin" if _ASCII_LETTER.search(text) else ""
    han = latin = 0
    others: dict[str, int] = {}
    for ch in text:
        if ch.isascii():
            latin += ch.isalpha()
        elif "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf":
            han += 1
        elif ch.isalpha():
            kind = _script_of(ch)
            if kind == "latin":
                latin += 1
            elif kind == "han":
                han += 1
            else:
                others[kind] = others.get(kind, 0) + 1
    other, most = max(others.items(), key=lambda pair: (pair[1], pair[0]), default=("", 0))
    if not (han or latin or most):
        return ""
    if 2 * han >= max(latin, most):
        return "han"
    return "latin" if latin >= most else other


@functools.cache
def _script_of(ch: str) -> str:
    """The script of a letter outside ASCII and the main Han blocks, by its Unicode name
    (``CYRILLIC SMALL LETTER A``: ``cyrillic``)."""
    words = unicodedata.name(ch, "").replace("-", " ").split()
    for word in words:
        if word in _NAMED:
            return _NAMED[word]
    return words[0].lower() if words else "unnamed"


_ASCII_LETTER: Final = re.compile("[A-Za-z]")
_NAMED: Final = {"LATIN": "latin", "CJK": "han", "HIRAGANA": "kana", "KATAKANA": "kana"}


#: records found by meaning alone that join the lexical candidates of a query
SEMANTIC_CANDIDATES: Final = 20


def semantic_side(ids: Sequence[str], cosines: Sequence[float], lexical: Sequence[str],
                  calibration: Calibration, limit: int = SEMANTIC_CANDIDATES,
                  query: str = "", hubs: Sequence[float] = ()) -> tuple[Semantic, list[str]]:
    """The query's :class:`Semantic` over ``ids`` (cosines in the same order; ``nan`` for
    a vector that cannot be compared), and the best ``limit`` IDs by cosine that the
    lexical side did not find (they become candidates too). ``hubs``: each one's mean
    cosine with the store's other records (:func:`centres`; empty: none), and then the best
    :data:`CENTRED_CANDIDATES` by the cosine less it are candidates too."""
    known = {i: c for i, c in zip(ids, cosines, strict=True) if c == c}  # drop nan
    found = set(lexical)
    extra = sorted((i for i in known if i not in found), key=lambda i: (-known[i], i))[:limit]
    kind = script(query)
    held = {i: h for i, h in zip(ids, hubs, strict=True) if i in known} if hubs else {}
    if held:
        taken = set(extra)
        extra += [i for i in sorted((i for i in held if i not in found),
                                    key=lambda i: (held[i] - known[i], i)
                                    )[:CENTRED_CANDIDATES] if i not in taken]
    return Semantic(known, cross_lingual.for_query(calibration, kind), kind,
                    hubs=held), extra


#: records found by their cosine less their hub value (:func:`semantic_side`) that join
#: the candidates of a query whose script the calibration centres
CENTRED_CANDIDATES: Final = 3


def centres(calibration: Calibration, query: str, records: int) -> bool:
    """Whether the cross-script margin of ``query`` over a store of ``records`` vectors
    compares cosines less each record's mean cosine with the others (its script is in
    ``centre_from``, and the store is a crowd of at least :data:`CENTRE_RECORDS`: in a
    few records one claim kept in two scopes is most of its copy's mean)."""
    return records >= CENTRE_RECORDS and centred_script(calibration, query)


def centred_script(calibration: Calibration, query: str) -> bool:
    """Whether ``query``'s script is one the calibration centres (``centre_from``), what a
    store's size is then asked for (:func:`centres`)."""
    return bool(calibration.centre_from) and script(query) in calibration.centre_from


#: the fewest records whose mean says how near one of them sits to the store as a whole
CENTRE_RECORDS: Final = 30
