"""Text rules: normalisation for duplicates, conservative key derivation, claim polarity.

All three are pure and deterministic; replay depends on them, so a change here changes
which stored records are duplicates or conflicts. Treat their outputs as a contract:
tests pin the examples of seed 000.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Final

from waymarks.core.lazy_re import lazy

_TRAILING_PUNCT = " .!;:,"
_KEY_CHARS = lazy(r"[^\w./-]+")
_KEY_SEPARATORS = lazy(r"[-_.]+")
#: the longest key stored, folded: an explicit key longer than this is refused
#: (``too_long``: cut, two keys became one), a derived one cut to it
MAX_KEY_CHARS: Final = 160

#: ``subject <verb> value`` shapes recognised for automatic keys (seed 000)
_KEYED_CLAIM = lazy(
    r"^(?P<subject>[^=]+?)\s*(?:\bdefaults?\s+to\b|\bis\b|\bare\b|=)\s*(?P<value>.+)$",
    re.IGNORECASE,
)
#: where each verb of :data:`_KEYED_CLAIM` begins (:func:`_keyed_subject`)
_VERB_TEXTS: Final = ("is", "are", "default", "=")
#: words that make a subject too vague to key on ("It is broken", "This = that")
_VAGUE_SUBJECTS: Final = frozenset(
    {"it", "this", "that", "there", "here", "what", "which", "who", "he", "she", "they",
     "everything", "nothing", "something", "anything"}
)
_MAX_SUBJECT_WORDS: Final = 6
_ARTICLES: Final = frozenset({"the", "a", "an", "our"})

_POLARITY_WORDS: Final[dict[str, int]] = {
    "enabled": 1, "disabled": -1,
    "on": 1, "off": -1,
    "true": 1, "false": -1,
    "allowed": 1, "forbidden": -1, "disallowed": -1,
    "required": 1, "optional": -1,
    "supported": 1, "unsupported": -1,
    "active": 1, "inactive": -1,
}
_NEGATIONS: Final = frozenset({"not", "never", "no", "isn't", "aren't", "isnt", "arent"})
_WORD = lazy(r"[\w'-]+", re.UNICODE)
_ANY_POLARITY_WORD = lazy(r"\b(?:" + "|".join(_POLARITY_WORDS) + r")\b")
_CONTRACTION = lazy(r"n't\b")  # "isn't" -> "is not", so both forms share a base


#: invisible format characters: soft hyphen, zero-width space and joiners, directional
#: marks, embeddings and isolates, word joiner and invisible operators, byte-order mark
INVISIBLE: Final = lazy(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate (half of a UTF-16 pair: JSON may escape one, as
    JavaScript writes a string cut inside an emoji, and Python's ``json`` reads it) as
    U+FFFD, so that it can be encoded as UTF-8; any other text unchanged."""
    if is_unicode(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clip_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, never inside a character (a lone
    surrogate is U+FFFD first: :func:`well_formed`)."""
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        text = well_formed(text)
        encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode("utf-8", errors="ignore")


#: the apostrophes a keyboard or an app types for ``'`` (right and left single quotation
#: marks: macOS, iOS and Slack write "isn’t"; the modifier letter apostrophe), which NFKC
#: leaves as they are
_APOSTROPHES: Final = str.maketrans("\u2019\u2018\u02bc", "'''")


def straight_apostrophes(text: str) -> str:
    """``text`` with each typographic apostrophe as ``'`` (one character for one: positions
    stay valid), so that "isn’t" is the "isn't" a rule knows. For the write-time check
    and recall's analysis: :func:`normalize` and :func:`polarity` keep what the ledgers
    already written replay to."""
    return text if text.isascii() else text.translate(_APOSTROPHES)


def undotted_i(folded: str) -> str:
    """A case-folded text with the dot above an ``i`` dropped: ``"İ".casefold()`` is ``i``
    and U+0307, a combining mark no word holds, so "İlker" was the word "lker" (and
    "Ilker" another). Only after an ``i``: other marks tell words apart."""
    return folded.replace("i\u0307", "i") if "\u0307" in folded else folded


def fold_unicode(text: str) -> str:
    """NFKC, invisible format characters dropped, case-folded: the comparison form of a
    text's characters (:func:`normalize` also collapses spaces and trailing punctuation)."""
    return INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).casefold()


def normalize(text: str) -> str:
    """Comparison form of a pin or claim: NFKC, case-folded, invisible format characters
    dropped, whitespace collapsed, trailing sentence punctuation dropped. Two texts with
    the same form are duplicates (a zero-width space cannot make one look new, nor hide
    a contradiction's subject)."""
    # ASCII is already NFKC and its casefold is lower(): skip the Unicode work (replay hot path)
    folded = text.lower() if text.isascii() else fold_unicode(text)
    return " ".join(folded.split()).rstrip(_TRAILING_PUNCT)


def normalize_key(key: str, *, cut: bool = True) -> str:
    """Slug form of an explicit ``--key`` (``Package Export Mode`` -> ``package-export-mode``).

    Letters and digits of any script are kept, as are ``.``, ``_``, ``/`` and ``-``; an
    empty result means the key had no letters or digits and must be refused. Cut to
    :data:`MAX_KEY_CHARS` unless ``cut`` is false (a write checks the whole slug's length).
    """
    slug = _slug(unicodedata.normalize("NFKC", key).casefold(), cut)
    return slug if any(c.isalnum() for c in slug) else ""


def loose_key(key: str) -> str:
    """:func:`normalize_key` with ``_``, ``.`` and ``-`` as one separator, and no trailing
    punctuation: ``db_port``, ``DB port``, ``db.port`` and ``db port.`` are one name.
    For comparing two explicit keys a writer chose; never stored (stored keys replay
    through :func:`normalize_key`, and old ledgers keep their meaning)."""
    return _KEY_SEPARATORS.sub("-", normalize_key(key)).strip("-")


def derive_key(claim: str) -> str | None:
    """A key for claims shaped ``X defaults to Y``, ``X is Y`` or ``X = Y``, else ``None``.

    Conservative on purpose: the subject must be short, concrete and contain a letter, so
    that unrelated claims never share a key by accident.
    """
    return derive_key_normalized(normalize(claim))


def derive_key_normalized(norm: str) -> str | None:
    """:func:`derive_key` for text already passed through :func:`normalize`."""
    if "is" not in norm and "are" not in norm and "default" not in norm and "=" not in norm:
        return None  # cheap pre-check: none of the verbs can match
    keyed = _keyed_subject(norm)
    if keyed is None:
        return None
    words = keyed.split()
    while words and words[0] in _ARTICLES:
        words = words[1:]
    subject = " ".join(words)
    if not words or len(words) > _MAX_SUBJECT_WORDS:
        return None
    if words[0] in _VAGUE_SUBJECTS or any(w in _NEGATIONS for w in words):
        return None
    slug = _slug(subject)
    if len(slug) < 2:
        return None
    # a letter: in ASCII, exactly what changes case (no generator over the characters)
    lettered = slug.lower() != slug.upper() if slug.isascii() else any(
        c.isalpha() for c in slug)
    return slug if lettered else None


def _keyed_subject(norm: str) -> str | None:
    """The subject :data:`_KEYED_CLAIM` matches in ``norm``, or ``None`` when it does not
    match or its value is blank.

    Printable ASCII (every normalized English claim) is matched without the expression,
    which tries its verbs at every position of the subject (6-9 us a claim, a third of a
    replay's rules): only where a verb's text occurs (``str.find``), in order, the first
    that the expression would take. There, ``\\s`` is a space, case folding is
    ``str.lower`` and a word character is a letter, a digit or ``_``; the subject is the
    shortest prefix without ``=`` that spaces and a verb at a word boundary follow, with
    at least one character after the verb. Anything else takes the expression itself
    (``tests/core/test_text.py`` holds the two equal)."""
    if not (norm.isascii() and norm.isprintable()):
        match = _KEYED_CLAIM.match(norm)
        return None if match is None or not match.group("value").strip() else match.group(
            "subject")
    low = norm.lower()
    size = len(low)
    starts: list[int] = []
    for verb in _VERB_TEXTS:
        at = low.find(verb, 1)  # the subject holds one character at least
        while at >= 0:
            starts.append(at)
            at = low.find(verb, at + 1)
    starts.sort()
    for start in starts:
        cut = start  # the subject ends where the spaces before the verb begin
        while cut > 1 and low[cut - 1] == " ":
            cut -= 1
        if "=" in low[:cut]:
            return None  # so do the subjects of every later verb
        first = low[start]
        if first == "=":
            end = start + 1
        else:
            before = low[start - 1]
            if before.isalnum() or before == "_":
                continue
            end = start + (2 if first == "i" else 3 if first == "a" else 7)
            if first == "d":  # defaults? to
                if end < size and low[end] == "s":
                    end += 1
                if end >= size or low[end] != " ":
                    continue
                while end < size and low[end] == " ":
                    end += 1
                if not low.startswith("to", end):
                    continue
                end += 2
            if end < size and (low[end].isalnum() or low[end] == "_"):
                continue
        if end >= size:
            continue  # the value needs a character
        return norm[:cut] if low[end:].strip() else None
    return None


def polarity(claim: str) -> tuple[str, int] | None:
    """``(base, sign)`` for claims that assert or deny a state (``Feature is enabled``).

    The base is the claim with its polarity word and negations removed, so ``Feature is
    enabled``, ``Feature is disabled`` and ``Feature is not enabled`` share one base; the
    sign is +1 or -1. Claims with no polarity word, or with two, return ``None``.
    """
    return polarity_normalized(normalize(claim))


def polarity_normalized(norm: str) -> tuple[str, int] | None:
    """:func:`polarity` for text already passed through :func:`normalize`."""
    if _ANY_POLARITY_WORD.search(norm) is None:
        return None
    words = _WORD.findall(_CONTRACTION.sub(" not", norm))
    hits = [i for i, w in enumerate(words) if w in _POLARITY_WORDS]
    if len(hits) != 1:
        return None
    sign = _POLARITY_WORDS[words[hits[0]]]
    kept: list[str] = []
    for i, word in enumerate(words):
        if i == hits[0]:
            kept.append("<state>")
        elif word in _NEGATIONS:
            sign = -sign
        else:
            kept.append(word)
    return " ".join(kept), sign


def _slug(text: str, cut: bool = True) -> str:
    slug = _KEY_CHARS.sub("-", text).strip("-")
    return slug[:MAX_KEY_CHARS] if cut else slug


def visible(text: str) -> bool:
    """Whether ``text`` holds anything but whitespace, control characters (NUL, BEL, ESC:
    a pin of them was planned into every prompt) and invisible format characters."""
    if text.isprintable():
        return bool(text.strip()) and (text.isascii() or bool(INVISIBLE.sub("", text).strip()))
    return bool(INVISIBLE.sub("", "".join(
        ch for ch in text if unicodedata.category(ch) != "Cc")).strip())


def one_line(text: str) -> str:
    """``text`` as one plain line: each control character (C0, DEL, C1: line breaks, tabs,
    ESC of a terminal sequence) a space, the invisible format characters of
    :data:`INVISIBLE` (directional overrides, zero-width characters) gone, runs of
    whitespace one space, the ends stripped. For text no person typed (a model's claim):
    shown anywhere, it can neither drive a terminal nor hide or reorder its own words."""
    if text.isprintable() and "  " not in text and text == text.strip():
        return text
    spaced = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in text)
    return " ".join(INVISIBLE.sub("", spaced).split())


def is_unicode(text: str) -> bool:
    """False for strings with lone surrogates (bytes that were not UTF-8), which no UTF-8
    ledger line can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def all_unicode(value: object) -> bool:
    """No string (key or value) anywhere in the decoded JSON ``value`` holds a lone
    surrogate (an escaped ``"\\ud800"``); iterative: the depth is whatever ``json.loads``
    accepted."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not is_unicode(item):
                return False
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def escaped(text: str, keep: str = "") -> str:
    """``text`` with every character that is not printable escaped (``\\n``, ``\\r``,
    ``\\t``, else ``\\uXXXX``: controls, ESC, format and bidi characters), so stored text
    cannot drive a terminal or hide itself where it is shown; the characters in ``keep``
    (say ``"\\n\\t"`` for a body whose lines are its own) stay.

    Only the pieces between two kept characters (the lines) that hold a character to
    escape are rebuilt character by character: a line break made the whole text not
    printable, and an export's 54 MB went through a Python loop a character at a time
    (6.7 of its 9.4 s). The pieces are split and checked in C, the result the same."""
    if text.isprintable():
        return text
    if not keep:
        return _escape_each(text, keep)
    pieces = _kept_splitter(keep).split(text)  # the kept characters are pieces too
    unsafe = [at for at, piece in enumerate(pieces)
              if not piece.isprintable() and piece not in keep]
    if not unsafe:
        return text
    for at in unsafe:
        pieces[at] = _escape_each(pieces[at], keep)
    return "".join(pieces)


def _escape_each(text: str, keep: str) -> str:
    return "".join(ch if ch.isprintable() or ch in keep
                   else _ESCAPES.get(ch, f"\\u{ord(ch):04x}") for ch in text)


def _kept_splitter(keep: str) -> re.Pattern[str]:
    """A pattern splitting text at each character of ``keep``, keeping them as pieces."""
    pattern = _SPLITTERS.get(keep)
    if pattern is None:
        pattern = _SPLITTERS[keep] = re.compile(f"([{re.escape(keep)}])")
    return pattern


_ESCAPES: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SPLITTERS: dict[str, re.Pattern[str]] = {}


def named_command(home: str, *words: str) -> str:
    """``waymarks --home HOME WORDS`` as a shell reads it: a command a hook's or the MCP
    server's message names, for their home. They run with the ``--home`` install wrote,
    which the person's shell (its ``WAYMARKS_HOME``, or none) need not use: a bare
    `waymarks health` looked at another home."""
    return shell_command(["waymarks", "--home", home, *words])


def shell_command(words: Iterable[str]) -> str:
    """A command line as a shell reads it (``shlex.quote``: a ``;``, ``$(…)`` or a space in
    a folder's name quoted, so the line shown is the one that runs, pasted or not); a word
    holding a character that is not printable (a zero-width joiner in a folder's emoji, an
    ESC) in bash's ``$'…'`` with that character escaped (:func:`_ansi_c`): seen, and still
    what runs.
    Every command a message or a page suggests with a stored word in it (a project's path,
    a teammate's item ID) is written by this."""
    import shlex  # (only when a message suggests a command)

    return " ".join(shlex.quote(word) if word.isprintable() else _ansi_c(word)
                    for word in words)


def _ansi_c(word: str) -> str:
    """``word`` quoted as bash's ``$'…'`` reads it: backslash and quote escaped, a character
    that is not printable as ``\\u001b`` in ASCII and as its UTF-8 bytes past it
    (``\\xe2\\x80\\x8d``). bash makes ``\\u200d`` that character only in a locale whose
    encoding holds it: in the C locale (a container, an ssh session without one) it kept
    ``\\u200D`` as six characters, another word; bytes are read alike in every locale."""
    def one(ch: str) -> str:
        if ch in "\\'":
            return "\\" + ch
        if ch.isprintable():
            return ch
        if ch.isascii():
            return f"\\u{ord(ch):04x}"
        try:  # (a path's byte that was no UTF-8, decoded as a lone surrogate: that byte)
            data = ch.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            data = ch.encode("utf-8", "surrogatepass")
        return "".join(f"\\x{byte:02x}" for byte in data)

    return "$'" + "".join(one(ch) for ch in word) + "'"


#: how much of an argument a refusal echoes back
ECHO_CHARS = 64


def echoed(argument: str, limit: int = ECHO_CHARS) -> str:
    """An argument as a message may repeat it: its first ``limit`` characters, escaped
    (:func:`escaped`), and ``…`` when there was more (a 120 KB argument is not echoed whole)."""
    return escaped(argument[:limit]) + ("…" if len(argument) > limit else "")


def unknown_id(kind: str, ref: str, where: str, listing: str) -> str:
    """How every command says that an ID (or a name) it was given names nothing, one
    shape: ``no KIND 'REF' WHERE; list them with `LISTING``` (the argument echoed: at most
    :data:`ECHO_CHARS` of it, escaped; ``where`` may be empty). ``memory show`` quoted the
    ID, ``unpin`` did not, the team commands gave Python's repr (a 100 KB argument whole),
    ``personal show`` did not name it."""
    return f"no {kind} '{echoed(ref)}'{' ' + where if where else ''}; list them with `{listing}`"


def typed_id(ref: str) -> str:
    """An ID argument as a person typed it: stripped, and in lower case when it is hex
    digits alone (a learned claim's 24): those IDs are lower case and may be typed in either
    case (``7933447A…`` was refused as unknown); other text (a legacy ID) as given."""
    ref = ref.strip()
    return ref.lower() if ref and all(c in "0123456789abcdefABCDEF" for c in ref) else ref


def ids_named(ids: Iterable[str], ref: str) -> list[str]:
    """The IDs ``ref`` names: itself when it is one, else those it is a prefix of; IDs are
    lower-case, so a ref typed in capitals (``9E76``) names what its lower case does."""
    known = list(ids)
    for typed in dict.fromkeys((ref, ref.lower())):
        if typed in known:
            return [typed]
        found = [i for i in known if i.startswith(typed)]
        if found:
            return found
    return []


class Naming:
    """The shortest prefix of an ID, of at least ``least`` characters, that
    :func:`ids_named` over ``ids`` takes for that ID alone: a command a message suggests
    must act on the item it names. Another ID starting with the same characters (any a
    teammate's file chose) makes it longer; the ID whole when even that is the start of
    another (it is then named exactly). The closest IDs are an ID's sorted neighbours."""

    def __init__(self, ids: Iterable[str], least: int = 12) -> None:
        self.ordered = sorted(set(ids))
        self.least = least

    def ref(self, item_id: str) -> str:
        from bisect import bisect_left

        at = bisect_left(self.ordered, item_id)
        near = [o for o in self.ordered[max(0, at - 1):at + 2] if o != item_id]
        common = max((common_start(item_id, o) for o in near), default=0)
        return item_id[:max(self.least, common + 1)]


def common_start(one: str, other: str) -> int:
    """How many characters ``one`` and ``other`` start with alike."""
    n = 0
    for a, b in zip(one, other, strict=False):
        if a != b:
            break
        n += 1
    return n


#: the control characters a text file holds as text: tab, line feed, carriage return (CRLF
#: line ends) and form feed (a page break in source files)
TEXT_CONTROLS: Final = frozenset("\t\n\r\f")
_CONTROL_NAMES: Final = {0x00: "NUL", 0x07: "BEL", 0x08: "backspace", 0x0B: "vertical tab",
                         0x1B: "ESC", 0x7F: "DEL"}


def stray_control(text: str) -> str | None:
    """Where ``text`` first holds a control character that is not text (C0 but tab, line
    feed, carriage return and form feed; DEL; C1), as ``"NUL (U+0000) at line 1, column
    6"``; None when it holds none. What a binary file or a terminal's escape sequence
    puts in a text: stored, it was kept escaped (``\\u0000``) and planned into prompts."""
    if text.isprintable():
        return None
    for at, ch in enumerate(text):
        if unicodedata.category(ch) == "Cc" and ch not in TEXT_CONTROLS:
            line = text.count("\n", 0, at) + 1
            column = at - (text.rfind("\n", 0, at) + 1) + 1
            name = _CONTROL_NAMES.get(ord(ch))
            shown = f"{name} (U+{ord(ch):04X})" if name else f"U+{ord(ch):04X}"
            return f"{shown} at line {line}, column {column}"
    return None
