"""Text analysis for recall: the features a record or a query is made of.

A feature is a string key with a kind prefix:
- ``w:`` an ordinary word (English words stemmed, others case-folded);
- ``c:`` a concept from the curated Chinese/English map (synonyms are one feature);
- ``p:`` an exact path literal, ``f:`` an exact filename literal (kept whole, never split).

Invariants: analysis is deterministic and pure (the segmenter and stemmer are offline
libraries with fixed dictionaries); stop words never become features; a path such as
``/work/pi-memory-evolution`` yields the path and its filename, not the word ``memory``;
a record's file name yields the word of its stem too (``README.md``: ``readme``), a query's not.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Final

import msgspec

from waymarks.core.lazy_re import lazy
from waymarks.core.text import straight_apostrophes, undotted_i
from waymarks.recall.code_flags import flags_read
from waymarks.recall.vocabulary import (
    AGENT_NOUNS,
    ASKED_WHOM,
    ATTRIBUTE_VALUES,
    CONCEPTS,
    FILLER,
    FRAMING_PATTERNS,
    GENERIC,
    PHRASAL_WORDS,
    STOP_WORDS,
    VERSION_AFTER_NAME,
    VERSION_ALONE,
)


def _segment_han(run: str) -> list[str]:
    """Chinese words from the maintained offline segmenter (bigrams if it is missing).

    Imported on first use: loading its dictionary costs ~140 ms, which an English-only
    query in a fresh process (a hook) should not pay.
    """
    global _jieba_cut
    if _jieba_cut is None:
        try:
            import rjieba

            _jieba_cut = rjieba.cut
        except ImportError:  # pragma: no cover - exercised only without the wheel
            _jieba_cut = _bigrams
    return [w for w in _jieba_cut(run) if w.strip()]


_jieba_cut: Callable[[str], list[str]] | None = None


def han_words(text: str) -> list[str]:
    """The words of a folded text holding Chinese, as the analysis cuts its Chinese (each
    mark, "、", and each function word, "和", an item of its own). A text without a Han
    character is cut about as the segmenter cuts one (:data:`_UNSEGMENTED`) without
    loading it (~140 ms of CPU, which an English prompt in a fresh process should not
    pay: "what port does the cache use?" loaded it to find the word before "cache")."""
    if text.isascii() or _HAN.search(text) is None:
        return _UNSEGMENTED.findall(text)
    return _segment_han(text)

try:
    import Stemmer as _stemmer_module  # type: ignore[import-not-found]

    _STEMMER = _stemmer_module.Stemmer("english")

    def _stem(word: str) -> str:
        return str(_STEMMER.stemWord(word))
except ImportError:  # pragma: no cover
    def _stem(word: str) -> str:
        return word

_PATH: Final = lazy(
    r"(?<![\w/.~-])(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]+(?::\d+(?::\d+)?)?"
    r"|(?<![\w/.-])[\w@+-]+(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,7}(?::\d+(?::\d+)?)?(?![\w/])"
)
_LINE_REF: Final = lazy(r"(?::\d+){1,2}$")
_KNOWN_EXTENSIONS: Final = frozenset(
    """
    py pyi ts tsx js jsx mjs cjs json jsonl md rst txt toml yaml yml ini cfg conf lock rs go
    c h cc cpp hpp java kt swift rb php cs sh bash zsh fish sql db sqlite html css scss vue
    svelte xml csv tsv log env gradle mk cmake dockerfile proto
    """.split()
)
_WORDS: Final = lazy(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_HAN_CHARS: Final = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: a run of Chinese; an ASCII text (``str.isascii``: constant time) is never searched for
#: one: compiling these classes of 28,000 characters cost an English prompt ~1.3 ms
_HAN: Final = lazy(rf"[{_HAN_CHARS}]+")
#: text with no Chinese, cut about as the segmenter cuts it (a run of ASCII letters, digits
#: and ``._%#&+-`` a word, any other mark alone): "healthz-endpoint", "v1.2", "50%"
_UNSEGMENTED: Final = lazy(r"[A-Za-z0-9+#&._%-]+|\S")
_KANA_HANGUL_CHARS: Final = r"\u3040-\u30ff\u31f0-\u31ff\uac00-\ud7af\u1100-\u11ff"
_KANA_HANGUL: Final = lazy(rf"[{_KANA_HANGUL_CHARS}]+")
_FENCE: Final = lazy(r"```.*?(?:```|$)", re.S)
_PASTED_LINE: Final = lazy(
    r"^\s*(?:File \".*\", line \d+|at .*\(.*:\d+(?::\d+)?\)|at [\w.$<>]+ \(|"
    r"diff --git |--- |\+\+\+ |@@ .* @@|[+-](?![+-])|Traceback \(most recent call last\)|"
    r"\S+:\d+:\d+)",
    re.IGNORECASE,
)
_QUOTED_QUESTION: Final = lazy(r"“[^”]*[?？]”|「[^」]*[?？]」|\"[^\"]*[?？]\"")
_NUMBER: Final = lazy(r"^\d+$")
#: a path match that may be words joined by slashes (:func:`_slash_reading`)
_WORD_RUN: Final = lazy(r"[^\W\d_]+(?:/[^\W\d_]+)+")
_POSSESSIVE: Final = lazy(r"['’]s$")
#: Chinese, Japanese or Korean run into the start or the end of an ASCII path
#: (:func:`_path_span`)
_CJK_EDGE: Final = lazy(
    rf"^[{_HAN_CHARS}{_KANA_HANGUL_CHARS}]+(?=[a-z0-9]|\.{{1,2}}/|~/)"
    rf"|(?<=[a-z0-9])[{_HAN_CHARS}{_KANA_HANGUL_CHARS}]+$")


class Analysis(msgspec.Struct, frozen=True):
    """Features of one text, in first-seen order, with the literal constraints it states."""

    features: tuple[str, ...]
    literals: frozenset[str] = frozenset()  # literal features typed as part of the ask
    pasted: frozenset[str] = frozenset()  # literal features that came in pasted material
    quoted: tuple[str, ...] = ()  # features only inside quoted questions

    @property
    def empty(self) -> bool:
        return not self.features


def fold(text: str) -> str:
    """NFKC, case-folded, apostrophes straight ("what’s" is the stop word "what's" and
    "node’s" the possessive of "node", as typed on a phone), no dot above an i ("İlker" is
    "ilker", not "lker")."""
    return undotted_i(straight_apostrophes(unicodedata.normalize("NFKC", text).casefold()))


def strip_framing(text: str) -> str:
    """Remove conversational recall framing ("do you remember…", "还记得…吗") from a query."""
    return _blank_framing(fold(text)).strip()


def _blank_framing(text: str) -> str:
    """Framing replaced by spaces of the same length, so positions stay valid."""
    for cues, pattern in FRAMING_PATTERNS:
        if any(cue in text for cue in cues):  # (each match contains one of its cues)
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def owner_asked(folded: str) -> str:
    """A folded question asking whom to ask about a thing (:data:`ASKED_WHOM`) as one
    asking who owns it, padded to its length, so positions stay valid."""
    return ASKED_WHOM.sub(_who_owns, folded) if "who" in folded else folded


def _who_owns(match: re.Match[str]) -> str:
    return "who owns".ljust(len(match.group(0)))


def _joined_phrasal(text: str) -> str:
    """Each of :data:`PHRASAL_WORDS` typed as two words written as one ("on-call":
    "oncall"), padded with spaces to its length, so positions stay valid."""
    for cues, pattern in PHRASAL_WORDS:
        # (loops, not any() over a generator: every record and question passes here, and
        # building the generator cost more than the scans it spares, 4 % of an analysis)
        for cue in cues:
            if cue in text:
                text = pattern.sub(_one_word, text)
                break
    return text


def _one_word(match: re.Match[str]) -> str:
    """A phrasal word's match without its space or hyphen, padded to its length."""
    return _JOINT.sub("", match.group(0)).ljust(len(match.group(0)))


#: what parts the two words of a phrasal one
_JOINT: Final = lazy(r"[\s-]+")


def analyze(text: str, *, query: bool = False) -> Analysis:
    """Features of ``text``; for a query, framing is dropped and literals become constraints."""
    folded = fold(text)
    pasted_spans: list[tuple[int, int]] | None = None  # only a path match asks (rare)
    # a record's quoted question is no evidence of its answer (seed 004), but a query's is
    # the question asked ('a teammate asked "what port …?"'); every quoted question holds
    # a question mark and a quote (most texts: no scan at all)
    quoted_spans = [m.span() for m in _QUOTED_QUESTION.finditer(folded)] if (
        not query and ("?" in folded or "？" in folded)
        and ('"' in folded or "“" in folded or "「" in folded)) else []
    features: dict[str, None] = {}
    literals: set[str] = set()
    pasted: set[str] = set()
    quoted_only: dict[str, None] = {}

    def add(feature: str, position: int) -> None:
        if quoted_spans and _inside(position, quoted_spans):
            if feature not in features:
                quoted_only[feature] = None
            return
        features[feature] = None
        quoted_only.pop(feature, None)

    rest = folded
    # every path or filename match holds a "/" or a "." (most texts: no scan at all)
    if "/" in folded or "." in folded:
        masked: list[str] | None = None
        typed = text if len(text) == len(folded) else ""  # (positions agree)
        for match in _PATH.finditer(folded):
            start, end = _path_span(match)
            raw = folded[start:end]
            reading = _slash_reading(raw, typed[start:end], query)
            if reading == "both" and folded.count("`", 0, start) % 2:
                # in a span of code, two words joined by a slash are what the command
                # names (`kubectl rollout restart deploy/auth`), no words of the claim:
                # "how does auth deploy?" recalled that restart by its "deploy"
                reading = "path"
            if reading == "words" or _url_port(folded, start, raw):
                continue  # its words are analysed as words
            literal = _literal_features(raw, query)
            if not literal:
                continue
            for feature in literal:
                add(feature, start)
            # a file:line[:col] reference is a pointer into pasted material, not a constraint
            if pasted_spans is None:
                pasted_spans = _pasted_spans(folded)
            in_paste = _inside(start, pasted_spans) or bool(_LINE_REF.search(
                raw.rstrip(").,;:")))
            (pasted if in_paste else literals).update(literal[:1])
            if reading == "both":
                continue  # (unmasked: its words are analysed as words too)
            if masked is None:
                masked = list(folded)
            masked[start:end] = " " * (end - start)
        if masked is not None:
            rest = "".join(masked)
    if query:  # after literals are masked, so framing words inside paths are kept
        rest = _blank_framing(rest)
        rest = owner_asked(rest)
    rest = _joined_phrasal(rest)
    flags: tuple[tuple[str, int], ...] = ()
    if "`" in rest and "-" in rest:  # a command's flags: its options, no work the text says
        rest, flags = flags_read(rest, word_feature)
    if not quoted_spans and rest.isascii():  # the common case: every word is one feature
        for word in _WORDS.findall(rest):
            word_key = _ascii_word_feature(word)
            if word_key is not None:
                features[word_key] = None
        features.update(dict.fromkeys(feature for feature, _ in flags))
        return Analysis(tuple(features), frozenset(literals), frozenset(pasted - literals))
    for match in _WORDS.finditer(rest):
        word = match.group(0)
        if word.isascii():  # one word, one feature (the common case, memoized)
            word_key = _ascii_word_feature(word)
            if word_key is not None:
                add(word_key, match.start())
            continue
        for part in _split_scripts(word):
            word_key = word_feature(part)
            if word_key is not None:
                add(word_key, match.start())
    for feature, position in flags:
        add(feature, position)
    for feature in quoted_only:
        features.pop(feature, None)
    return Analysis(tuple(features), frozenset(literals), frozenset(pasted - literals),
                    tuple(quoted_only))


def word_feature(word: str) -> str | None:
    """The feature of one word, or ``None`` for stop words and filler."""
    if word in STOP_WORDS or word in FILLER or (len(word) == 1 and word.isascii() and not (
            word.isdigit())):
        return None
    concept = CONCEPTS.get(word)
    if concept is not None:
        return "c:" + concept
    if word.isascii():
        word = _POSSESSIVE.sub("", word)  # "caroline's" is about Caroline
        if word in AGENT_NOUNS or (word[-1:] == "s" and word[:-1] in AGENT_NOUNS):
            return "w:" + word.removesuffix("s")  # "exporters": the thing, not the verb
        stem = _stem(word) if word.isalpha() else word
        if stem in FILLER:
            return None
        concept = CONCEPTS.get(stem)
        if concept is not None:
            return "c:" + concept
        return "w:" + stem
    return "w:" + word


#: :func:`word_feature` of an ASCII word, memoized: pure, and a store's words repeat
_ascii_word_feature: Final = functools.lru_cache(maxsize=65_536)(word_feature)


def word_order(text: str) -> tuple[str, ...]:
    """The features of ``text``'s words in the order it says them, each time it says them
    (no paths read apart, no stop words): which word a text says right after another
    ("the search config"), which :attr:`Analysis.features`, each once and paths first,
    cannot tell."""
    folded = _joined_phrasal(fold(text))
    return tuple(f for word in _WORDS.findall(folded)
                 if (f := _ascii_word_feature(word) if word.isascii() else word_feature(word)))


def says_value(attribute: str, text: str, subjects: frozenset[str]) -> bool:
    """Whether ``text`` holds a value of ``attribute``'s shape (``ATTRIBUTE_VALUES``);
    a port only in the port range; a dotted version only after a word naming one of the
    query's ``subjects`` ("Python 3.13" for "which Python version?")."""
    if attribute == "c:port":
        return _says_port(text)
    if attribute == "c:version":
        if _says_v_version(text):
            return True
        if not subjects:  # "which version do we use?": a dotted number of no other kind
            return VERSION_ALONE.search(text) is not None
        return bool(_versioned(text) & subjects)
    pattern = ATTRIBUTE_VALUES.get(attribute)
    return pattern is not None and pattern.search(text) is not None


#: another spelling a record may name a dropped name by
_NAME_SPELLINGS: Final[dict[str, tuple[str, ...]]] = {
    "go": ("golang",), "c#": ("csharp",), "c++": ("cpp",)}


def says_name(text: str, name: str) -> bool:
    """Whether ``text`` holds ``name`` as a word (``Rust`` or ``rust``, ``C#``, ``Golang``
    for ``Go``); a one-letter name, or one that is also a common word ("Go": "we go
    with"), only as written or by a listed spelling."""
    if len(name.rstrip("+#")) > 1 and name.casefold() not in STOP_WORDS:
        folded = text.casefold()
        return any(_holds_word(folded, spelling) for spelling in (
            name.casefold(), *_NAME_SPELLINGS.get(name.casefold(), ())))
    return _holds_word(text, name) or any(
        _holds_word(text.casefold(), spelling)
        for spelling in _NAME_SPELLINGS.get(name.casefold(), ()))


def _holds_word(text: str, word: str) -> bool:
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if (start == 0 or not text[start - 1].isalnum()) and (
                end == len(text) or not (text[end].isalnum() or text[end] in "+#")):
            return True
        start = text.find(word, start + 1)
    return False


@functools.lru_cache(maxsize=65_536)  # a store's texts, asked again by every plan
def _says_port(text: str) -> bool:
    return any(0 < int(m.group(1)) <= 65535 for m in ATTRIBUTE_VALUES["c:port"].finditer(text))


@functools.lru_cache(maxsize=65_536)
def _says_v_version(text: str) -> bool:
    return ATTRIBUTE_VALUES["c:version"].search(text) is not None


@functools.lru_cache(maxsize=65_536)
def _versioned(text: str) -> frozenset[str | None]:
    """The words a dotted number follows in ``text`` ("Python 3.13"), as features and as
    names (``=go``: "Go" is a stop word, no feature; see :func:`version_subjects`)."""
    found: set[str | None] = set()
    for match in VERSION_AFTER_NAME.finditer(text):
        word = match.group(1)
        found.add(word_feature(word.lower()))
        found.add("=" + word.casefold())
    return frozenset(found)


def version_subjects(words: Iterable[str], names: Iterable[str]) -> frozenset[str]:
    """What a version must follow to be the asked subject's: a query's subject words'
    features, and the names it asks as written ("Go version?" names ``Go``) or by a listed
    spelling ("Golang 1.22" is Go's version, as :func:`says_name` reads it)."""
    return frozenset(words) | frozenset(
        "=" + spelling for name in names
        for spelling in (name.casefold(), *_NAME_SPELLINGS.get(name.casefold(), ())))


#: the scope an origin names before its place ("session:1f88…", "project:/home/me/shop")
_ORIGIN_SCOPES: Final = frozenset({"session", "project", "branch"})


def origin_features(origin: str) -> tuple[str, ...]:
    """The features of a record's origin, the place it was written (a session's ID, a
    project's path), without the scope word before it: "session" was a word of every
    claim written in a session, so "what is the session timeout?" found any timeout or
    expiry through it, as if the claim named a session."""
    scope, colon, place = origin.partition(":")
    return analyze(place if colon and scope in _ORIGIN_SCOPES else origin).features


def is_generic(feature: str) -> bool:
    """Generic configuration words cannot qualify a record on their own."""
    return feature[2:] in GENERIC


def is_literal(feature: str) -> bool:
    return feature.startswith(("p:", "f:"))


def is_numeric(feature: str) -> bool:
    return bool(_NUMBER.match(feature[2:]))


def _path_span(match: re.Match[str]) -> tuple[int, int]:
    """Where a path match's path is: without the Chinese run into its start or its end.
    Chinese is typed with no space, so a path typed against it ran over the sentence
    ("数据库配置在db/config.toml里吗", "is the database config in db/config.toml?"): one
    literal that no record holds, and the prompt recalled nothing; so in Japanese
    ("ポートはdb/config.tomlのどこ"). A Chinese path ("文档/设计.md") keeps its Chinese:
    only a run against an ASCII letter or digit of it goes."""
    text = match.group(0)
    head = tail = 0
    if not text.isascii():
        for edge in _CJK_EDGE.finditer(text):
            if edge.start() == 0:
                head = edge.end()
            else:
                tail = len(text) - edge.start()
    return match.start() + head, match.end() - tail


def _slash_reading(raw: str, typed: str, query: bool) -> str:
    """How a path match is read: ``"path"``, ``"words"`` joined by slashes, or ``"both"``.

    Words: Chinese (typed with no space, the match ran over the sentence around the
    slash: "数据库/缓存的端口是多少"), or two words with a stop word or a single letter on
    either side ("and/or", "w/o", "y/n"); taken for a literal, which no record holds,
    "and/or" made a prompt recall nothing at all. Two other words are read by how a query
    types them: both in capitals, words ("CI/CD", "TCP/IP", "UI/UX"), else a folder
    ("src/app"). A record holds them both ways (``"both"``), since a query may type them
    either way: "CI/CD" held as words only was missed by "ci/cd", and "src/app" held as a
    path only by "SRC/APP"."""
    text = raw.rstrip(").,;:")
    if _WORD_RUN.fullmatch(text) is None:
        return "path"
    if not text.isascii() and _HAN.search(text):
        return "words"
    words = text.split("/")
    if len(words) != 2:
        return "path"
    if any(len(word) == 1 or word in STOP_WORDS for word in words):
        return "words"
    if not query:
        return "both"
    return "words" if typed.rstrip(").,;:").isupper() else "path"


#: a port and the path after it (``8080/healthz``)
_PORT_PATH: Final = lazy(r"\d+/")


def _url_port(folded: str, start: int, raw: str) -> bool:
    """Whether a path match is a URL's port and path ("http://localhost:8080/healthz":
    ``8080/healthz`` after the host's colon). Its words are words, as a URL's are
    without a port: read as the literal ``8080/healthz``, the port and the path's
    words were no words of the record, so "what is on localhost:8080?" and "the
    healthz endpoint" found nothing."""
    return start > 0 and folded[start - 1] == ":" and _PORT_PATH.match(raw) is not None


def _literal_features(raw: str, query: bool = False) -> list[str]:
    """``p:`` and ``f:`` features of a path or filename match, then, in a record, the
    words a file is named by ("README.md": ``w:readm``; :func:`_named_by`);
    [] if it is no path or filename. A claim naming README.md or CONTRIBUTING.md held
    neither word, so "update the readme" or "what does the contributing guide ask?"
    never found it. A query keeps the literal alone: typed, it is what a record must
    hold; pasted (a traceback's "main.py:12"), its stem is a common word ("main")."""
    text = _LINE_REF.sub("", raw.rstrip(").,;:"))
    while text.startswith("./") and len(text) > 2:
        # "./config/app.toml" is config/app.toml: typed one way, a claim typed the other
        # held another literal, and the query recalled nothing ("../" is another place)
        text = text[2:]
    if "/" in text:
        name = text.rstrip("/").rsplit("/", 1)[-1]
        out = ["p:" + text, *([] if query else _tails(text))]
        if "." in name.strip("."):
            out += ["f:" + name, *([] if query else _named_by(name))]
        return out
    extension = text.rsplit(".", 1)[-1] if "." in text else ""
    if extension not in _KNOWN_EXTENSIONS:
        return []
    return ["f:" + text, *([] if query else _named_by(text))]


#: the most shorter paths a record's path is also held as (:func:`_tails`)
MAX_TAILS: Final = 6


def _tails(path: str) -> list[str]:
    """A record's path as the paths it ends with, of two parts or more
    ("src/app/config.py": ``p:app/config.py``; "/srv/a.py": ``p:srv/a.py``), the shortest
    :data:`MAX_TAILS`: a person types a path from the folder they think in, and a claim
    naming src/app/config.py was never found by "app/config.py", another literal.

    The two last parts when both are words ("attic/frontend/backend") are held as their
    words, not as that pair's path: a query reads such a pair as a folder when a record
    holds it as a path (:mod:`waymarks.recall.slashed`), and a longer path ending in it
    made "frontend/backend" that folder, never the words a claim says apart; its words
    still find the path ("src/app" finds "packages/web/src/app")."""
    whole = path.rstrip("/")
    parts = whole.lstrip("/").split("/")
    out: list[str] = []
    for start in range(max(0, len(parts) - 1 - MAX_TAILS), len(parts) - 1):
        tail = "/".join(parts[start:])
        if tail == whole:
            continue
        if start == len(parts) - 2 and parts[-2].isalpha() and parts[-1].isalpha():
            out += [f for f in map(word_feature, parts[-2:]) if f is not None]
        else:
            out.append("p:" + tail)
    return out


#: the most words a file name's stem is read as (:func:`_named_by`)
MAX_STEM_WORDS: Final = 4


def _named_by(name: str) -> list[str]:
    """The word features of a file name's stem ("readme.md": ``w:readm``;
    "docker-compose.yml": ``w:docker``, ``w:compos``), when it is at most
    :data:`MAX_STEM_WORDS` words of ASCII letters joined by ``-`` or ``_`` (".env",
    "v2-notes.md" and "设计.md" name none)."""
    words = name.split(".", 1)[0].replace("_", "-").split("-")
    if len(words) > MAX_STEM_WORDS or not all(w.isascii() and w.isalpha() for w in words):
        return []
    return [f for f in map(_ascii_word_feature, words) if f is not None]


def _split_scripts(word: str) -> list[str]:
    """Segment Han runs with the dictionary segmenter, kana/hangul runs into bigrams."""
    if word.isascii():
        return [word]
    parts: list[str] = []
    position = 0
    for match in re.finditer(f"{_HAN.pattern}|{_KANA_HANGUL.pattern}", word):
        if match.start() > position:
            parts.append(word[position:match.start()])
        run = match.group(0)
        parts.extend(_segment_han(run) if _HAN.fullmatch(run) else _bigrams(run))
        position = match.end()
    if position < len(word):
        parts.append(word[position:])
    return [p for p in parts if p]


def _bigrams(run: str) -> list[str]:
    if len(run) < 2:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


def _pasted_spans(text: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _FENCE.finditer(text)]
    offset = 0
    for line in text.splitlines(keepends=True):
        if _PASTED_LINE.match(line):
            spans.append((offset, offset + len(line)))
        offset += len(line)
    return spans


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def first_match(text: str, features: frozenset[str]) -> int | None:
    """Where in ``text`` the first word or literal with one of ``features`` starts."""
    folded = fold(text)
    if len(folded) != len(text):  # case folding changed lengths: positions would drift
        folded = text.lower() if len(text.lower()) == len(text) else text
    best: int | None = None
    for feature in features:
        if is_literal(feature):
            found = folded.find(feature[2:])
            if found >= 0 and (best is None or found < best):
                best = found
    for match in _WORDS.finditer(folded):
        if best is not None and match.start() >= best:
            break
        if any(word_feature(w) in features for w in _split_scripts(match.group(0))):
            return match.start()
    return best
