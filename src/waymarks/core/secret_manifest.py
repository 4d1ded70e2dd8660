"""A Kubernetes Secret's ``data:``: base64 values that are credentials because of the
manifest they stand in (``kubectl get secret app -o yaml``, a chart's rendered output).

``DATABASE_URL: cG9zdGdyZXM6Ly9…`` under ``data:`` holds ``postgres://admin:PASSWORD@…``
encoded, and a ``.dockerconfigjson`` value a registry's password: no rule reads through
base64, so they went to the model in clear. The rule takes the lines of a ``data:``
block (``KEY: VALUE`` lines at one indent, comments, deeper lines) when a ``kind: Secret``
stands in the same text, and :func:`manifest_values` gives one span per base64 value (the
only rule whose match is several spans): ``DATABASE_URL: [REDACTED:kubernetes-secret]``,
its key kept. A value cut by the text's end (a paste cut short) goes too; a comment, a
chart's template or an empty value is skipped, hiding no other (each of these made the
whole block no Secret's once). ``stringData:`` holds plain text, and a field no other
kind has: each of its values is judged as an assignment's is, whatever its key
(:func:`string_data_values`; ``db: S3cr3tPw9`` went out in clear, ``db`` naming no
credential), with no ``kind`` needed (a block quoted alone).

A manifest cut before its ``kind`` (``kubectl get secret -o yaml`` prints ``apiVersion``,
``data``, then ``kind``) says no kind: its values go when they decode to text
(:data:`KUBE_SECRET_CUT`).

What stays (``manifest_values`` gives no span): a ``data:`` block of another kind of object
(a ConfigMap's, whose ``binaryData`` or base64 text is not secret), one whose ``kind:
Secret`` stands at another indent (the ``data:`` of something nested in it) or in another
YAML document (after ``---``), a value that is not base64, a block none of whose values
decodes to 4 bytes (``mode: fast``: then it is not a Secret's data), and one holding only
public PEM blocks (a ``ca.crt``, a certificate: a
``tls.key`` beside it is a private key, and the block goes).

The rule's text must hold ``Secret`` (the expression looks for it behind or ahead of the
block), so the pre-test's "secret" with a colon covers it. Pure: no I/O; the one state is
the layout of the last text read (:func:`_layout`), which its many blocks share.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

#: an entry's key, bare or quoted (``"DATABASE_URL":``, ``'tls.key':``, as YAML allows)
_KEY: Final = r"(?:[\w.-]{1,253}|\"[\w.-]{1,253}\"|'[\w.-]{1,253}')"
#: one line of a ``data:`` block after its indent: an entry, its value anything to its line's
#: end (a chart's template, an empty value, a value cut short: judged value by value), or a
#: comment; a line indented deeper continues the entry above (a block scalar's)
_ENTRY: Final = r"(?:" + _KEY + r":(?:[ \t][^\n]{0,65536})?|#[^\n]{0,4096})"
#: ``kind: Secret`` on a line of its own (after spaces, or ``- `` as a list's item)
_KIND: Final = r"kind:[ \t]*[\"']?Secret[\"']?[ \t]*(?:#[^\n]*)?\r?(?:\n|\Z)"
#: the ``data:`` line (a comment may end it), the indent of its first entry, then the lines
#: at that indent or deeper
_BLOCK: Final = (r"(?<![\w.-])data:[ \t]*(?:#[^\n]*)?\r?\n(?P<kube_indent>[ \t]+)(?P<kube_secret>"
                 + _ENTRY + r"(?:\r?\n(?P=kube_indent)(?:" + _ENTRY + r"|[ \t]+[^\n]{1,65536}))*)")
#: lines an object may hold between its ``kind`` and its ``data`` (either order): not
#: another Secret's kind or another ``data:``, where a search from each would run on to
#: the end, all of them together a square of the text's length
_BETWEEN: Final = (r"(?:(?![ \t-]*(?:kind:[ \t]*[\"']?Secret|data:))[^\n]*\n){0,512}?"
                   r"[ \t-]*")
#: the rules' expressions start with the first character their match can (a sixth of the
#: cost of trying both branches at every position), and run only when a text holds a data
#: block's opening (the hints: a text naming a Secret but holding none pays a search)
KUBE_SECRET: Final = Rule("kube_secret", "kubernetes-secret", lazy(
    r"(?=[kd])(?P<kube_kind>(?<![\w.-])" + _KIND + _BETWEEN + ")?" + _BLOCK
    + r"(?(kube_kind)|(?=\r?\n" + _BETWEEN + _KIND + "))",  # its kind before, or after
    re.ASCII), ("Secret",), wrapper=True, guard=":",
    hint=lazy(r"data:[ \t]*(?:#[^\n]*)?\r?\n[ \t]", re.ASCII))

#: the same block in a manifest cut before its ``kind:`` (``kubectl get secret -o yaml``
#: prints ``apiVersion``, ``data``, then ``kind``: a paste of its head is all that is
#: left of it): nothing says Secret, so :func:`manifest_values` takes only values that
#: decode to text, which a ConfigMap's plain values never do
KUBE_SECRET_CUT: Final = Rule("kube_secret_cut", "kubernetes-secret", lazy(
    r"(?m:^)[ \t]*(?:-[ \t]+)?apiVersion:[^\n]*\n[ \t]*" + _BLOCK, re.ASCII),
    ("apiVersion",), wrapper=True, guard=":",
    hint=lazy(r"data:[ \t]*(?:#[^\n]*)?\r?\n[ \t]", re.ASCII))

#: the same block in YAML's flow style (``data: {DATABASE_URL: …, user: …}``: its values
#: went out in clear), on its line or over several, one entry a line (read on its first
#: line only, such a block was none), the object's kind found as a block's is
KUBE_SECRET_FLOW: Final = Rule("kube_secret_flow", "kubernetes-secret", lazy(
    r"(?<![\w.-])data:[ \t]*\{(?P<kube_secret_flow>[^{}]{1,65536})\}", re.ASCII),
    ("Secret",), wrapper=True, guard=":", hint=lazy(r"data:[ \t]*\{", re.ASCII))

#: the same in JSON (``kubectl get secret -o json``): ``"data": {"KEY": "BASE64", …}`` with
#: ``"kind": "Secret"`` in the same object, before or after it (what stands between holds
#: only objects closed again, two levels deep: ``"metadata": {"labels": {…}}``)
_Q: Final = r"\\?\""  # a quote, escaped where the JSON is a string's (an annotation's)
_JSON_ENTRY: Final = (_Q + r"[\w.-]{1,253}" + _Q + r"[ \t]*:[ \t]*" + _Q
                      + r"[A-Za-z0-9+/=]{0,65536}" + _Q)
#: the text's end inside the object (a paste cut short): part of one more entry
_JSON_CUT: Final = (r"(?:\s*,?\s*(?:" + _Q + r"[\w.-]{0,253}(?:" + _Q + r"[ \t]*:?[ \t]*(?:"
                    + _Q + r"[A-Za-z0-9+/=]{0,65536})?)?)?(?=\Z))?")
_JSON_KIND: Final = _Q + "kind" + _Q + r"[ \t]*:[ \t]*" + _Q + "Secret" + _Q
_JSON_BETWEEN: Final = (r"(?:(?!\\?\"(?:kind|data)\\?\"[ \t]*:)[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})"
                        r"{0,65536}?")  # an object has one of each (the square, as above)
KUBE_SECRET_JSON: Final = Rule("kube_secret_json", "kubernetes-secret", lazy(
    r"(?=[\\\"])(?P<kube_kind_json>" + _JSON_KIND + _JSON_BETWEEN + r")?"
    + _Q + "data" + _Q + r"[ \t]*:[ \t]*\{\s*(?P<kube_secret_json>"
    + r"(?:" + _JSON_ENTRY + r"(?:\s*,\s*" + _JSON_ENTRY + r")*)?" + _JSON_CUT
    + r")(?:\s*\}|\Z)"
    r"(?(kube_kind_json)|(?=" + _JSON_BETWEEN + _JSON_KIND + "))",
    re.ASCII), ("Secret",), wrapper=True, guard=":",
    hint=lazy(r"data\\?\"[ \t]*:[ \t]*\{", re.ASCII))

#: a Secret's ``stringData:`` (a field no other kind has: no ``kind`` needed), the lines at
#: its first entry's indent or deeper: every value the Secret's, in plain text
KUBE_STRING_DATA: Final = Rule("kube_string_data", "kubernetes-secret", lazy(
    r"(?<![\w.-])stringData:[ \t]*\r?\n(?P<kube_indent>[ \t]+)(?P<kube_string_data>"
    + _ENTRY + r"(?:\r?\n(?P=kube_indent)(?:" + _ENTRY + r"|[ \t]+[^\n]{1,65536}))*)",
    re.ASCII), ("stringData",), wrapper=True, guard=":")
#: the same in JSON: ``"stringData": {"KEY": "VALUE", …}``
_JSON_STRING: Final = r"\"(?:[^\"\\\n]|\\.){0,4096}\""
KUBE_STRING_DATA_JSON: Final = Rule("kube_string_data_json", "kubernetes-secret", lazy(
    r"\"stringData\"[ \t]*:[ \t]*\{\s*(?P<kube_string_data_json>"
    + _JSON_STRING + r"[ \t]*:[ \t]*" + _JSON_STRING + r"(?:\s*,\s*" + _JSON_STRING
    + r"[ \t]*:[ \t]*" + _JSON_STRING + r")*)", re.ASCII),
    ("stringData",), wrapper=True, guard=":")

#: a document separator of a YAML stream
_DOCUMENT: Final = lazy(r"^---", re.MULTILINE)
_KIND_LINE: Final = lazy(r"^([ \t]*(?:-[ \t]+)?)" + _KIND, re.MULTILINE | re.ASCII)
_DATA_LINE: Final = lazy(r"^([ \t]*(?:-[ \t]+)?)data:[ \t]*(?:[#{][^\n]*)?\r?$",
                         re.MULTILINE | re.ASCII)
#: a YAML line's value after its indent (an entry's, quoted or bare, its quotes aside; or
#: a deeper line's, a block scalar's), to the line's end or a comment (``KEY: BASE64 #
#: rotated``: such a value was none, and went out in clear)
_YAML_VALUE: Final = lazy(r"[ \t]*(?:" + _KEY + r":[ \t]*)?(\\?[\"']?)(?P<value>[^\s\"'\\]*)"
                          r"(?:\1|(?=[ \t]*\Z))(?:[ \t]+#[^\n]*)?[ \t]*\r?(?:\n|\Z)", re.ASCII)
#: a JSON entry's value, its closing quote missing where the text ends there
_JSON_VALUE: Final = lazy(_Q + r"[ \t]*:[ \t]*" + _Q + r"(?P<value>[A-Za-z0-9+/=]*)(?:"
                          + _Q + r"|\Z)")
#: a flow block's entry's value (its key bare or quoted, the value's quotes aside)
_FLOW_VALUE: Final = lazy(r"(?:(?<=\{)|,)\s*" + _KEY + r"[ \t]*:[ \t]*([\"']?)"
                          r"(?P<value>[A-Za-z0-9+/=]*)\1\s*(?=,|$)", re.ASCII)
_BASE64: Final = lazy(r"[A-Za-z0-9+/]+={0,2}")
#: a Secret's value decodes to this many bytes at least (``fast``, a word, decodes to 3)
_DECODED_MIN: Final = 4


#: a ``stringData`` line's value: an entry's (quoted, its quotes aside, or bare to a
#: comment or the line's end), or a deeper line's (a block scalar's) when it is one token
_PLAIN_VALUE: Final = lazy(
    r"[ \t]*(?:" + _KEY + r":[ \t]+(?:\"(?P<dq>(?:[^\"\\\n]|\\.)*)\"|'(?P<sq>[^'\n]*)'"
    r"|(?P<bare>[^\s#][^\n]*?))|(?P<line>[^\s#][^\s]*))[ \t]*(?:[ \t]#[^\n]*)?\r?(?:\n|\Z)",
    re.ASCII)
_JSON_PLAIN: Final = lazy(r"\"[ \t]*:[ \t]*\"(?P<value>(?:[^\"\\\n]|\\.)*)\"", re.ASCII)


def string_data_values(name: str, match: re.Match[str], start: int, end: int
                       ) -> list[tuple[int, int]]:
    """The values to redact of a Secret's ``stringData`` block ``start:end``: each judged
    as an assignment's value is (``S3cr3tPw9``, ``hunter2``; not a reference, a chart's
    template, ``debug``, a URL, whose password its own rule takes), its key kept."""
    from waymarks.core.secret_values import _looks_like_secret

    text = match.string
    if name == "kube_string_data_json":
        found = [value.span("value") for value in _JSON_PLAIN.finditer(text, start, end)]
    else:
        found = []
        for at, line_end in _lines(start, end, text):
            value = _PLAIN_VALUE.match(text, at, line_end)
            if value is not None:
                found.append(value.span(value.lastgroup or 0))
    return [(at, until) for at, until in found
            if _looks_like_secret(text[at:until], data=False, alone=False)]


def manifest_values(name: str, match: re.Match[str], start: int, end: int
                    ) -> list[tuple[int, int]]:
    """The values to redact of a ``data`` block ``start:end`` matched by rule ``name``
    (:data:`KUBE_SECRET` or :data:`KUBE_SECRET_JSON`), none when it is no Secret's data.

    Its keys stay: they say what the Secret holds, not what it is. A YAML block is a
    Secret's when a ``kind: Secret`` stands at its ``data:`` line's column in its document
    (the JSON rule's expression holds the kind already). Its values are judged one by one:
    base64 goes, and so does a last value the text's end cuts (no longer base64 as it
    stands); a chart's template, a comment or an empty value stays and hides no other.
    None goes when no value decodes to 4 bytes (``level: debug``, ``mode: fast`` are no
    Secret's data; a cut one counts when it decodes to text) or every one is a public PEM
    block (a ``ca.crt``)."""
    text = match.string
    yaml = name in ("kube_secret", "kube_secret_cut")
    data_line = text.rfind("\n", 0, text.rfind("\n", 0, start) if yaml else start)
    if name == "kube_secret_cut":
        if not _kind_cut(text, data_line, end):
            return []
    elif name != "kube_secret_json" and not _secret_kind(text, data_line):
        return []
    spans: list[tuple[int, int]] = []
    decoded: list[bytes] = []
    for at, until in _values(name, text, start, end):
        if at == until or not _BASE64.fullmatch(text, at, until):
            continue
        plain = base64_bytes(text[at:until])
        if plain is None:
            if text[until:].strip(" \t\r\n\"'\\}"):
                continue  # not base64, and not cut by the text's end: a template, a word
            head = base64_bytes(text[at:until - (until - at) % 4])
            if head is None:
                continue
            if head.decode("utf-8", "ignore").isprintable():  # evidence only as text
                decoded.append(head)
        elif name == "kube_secret_cut" and not _text(plain):
            continue  # no kind says Secret: only a value that decodes to text is one
        else:
            decoded.append(plain)
        spans.append((at, until))
    if not any(len(plain) >= _DECODED_MIN for plain in decoded) or all(
            (plain.startswith(b"-----") or b"-----BEGIN".startswith(plain))
            and not private_pem(plain) for plain in decoded):  # (a cut one too)
        return []
    return spans


def _values(name: str, text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where each value of the block ``start:end`` stands (the YAML block line by line)."""
    if name not in ("kube_secret", "kube_secret_cut"):
        entries = _JSON_VALUE if name == "kube_secret_json" else _FLOW_VALUE
        return [found.span("value") for found in entries.finditer(text, start, end)]
    return [found.span("value") for at, line_end in _lines(start, end, text)
            if (found := _YAML_VALUE.match(text, at, line_end)) is not None]


def _lines(start: int, end: int, text: str) -> list[tuple[int, int]]:
    """(start, end) of each line of ``text[start:end]``, its line break included."""
    lines = []
    at = start
    while at < end:
        line_end = text.find("\n", at, end)
        line_end = end if line_end == -1 else line_end + 1
        lines.append((at, line_end))
        at = line_end
    return lines


def _secret_kind(text: str, head: int) -> bool:
    """Whether the object holding the ``data:`` line after ``head`` (its line break, or -1)
    is a Secret: its ``kind`` (the nearest at that line's column before it in the same
    object, else one after it) says ``Secret``. A ConfigMap's data followed by a Secret in a
    text that joins them without ``---`` was taken for the Secret's."""
    from bisect import bisect_left, bisect_right  # (only here: not on a recall's imports)
    data = _DATA_LINE.match(text, head + 1)
    if data is None:
        return False
    column = len(data.group(1))
    layout = _layout(text)
    documents = layout.documents
    at = bisect_right(documents, head + 1)
    first = documents[at - 1] if at else 0
    at = bisect_right(documents, data.end())
    last = documents[at] if at < len(documents) else len(text)
    kinds, secret, leaves, decides = layout.column(column)
    # A line that leaves the object between a kind and the data leaves it between any
    # kind further away too: only the nearest before need be read (reading every one,
    # each as far as the data, cost a cube of a list of Secrets: kubectl get secrets -o
    # yaml, 400 of them, 60 KB, 7.6 s), and whether one after decides is known for each
    # kind once (reading the text's every kind, document and data line again for each
    # block cost a square: 400 of them 1-4 s, 800 up to 18 s)
    before = bisect_right(kinds, head) - 1
    if before >= 0 and kinds[before] >= first \
            and _stays(leaves, kinds[before], head + 1):
        return secret[before]
    after = bisect_right(kinds, head + 1)
    gone = bisect_right(leaves, head + 1)  # the first line after the data leaving it
    end = min(last, leaves[gone] + 1 if gone < len(leaves) else last)
    return decides[after] < bisect_left(kinds, end)


def _stays(leaves: list[int], start: int, end: int) -> bool:
    """Whether no line between the one at ``start`` and the one at ``end`` (line starts)
    leaves the object (``leaves``: the starts of the lines that do, at one column)."""
    from bisect import bisect_right  # (only here: not on a recall's imports)
    at = bisect_right(leaves, start)
    return at == len(leaves) or leaves[at] >= end


class _Layout:
    """Where a text's YAML documents start, and for each column its ``kind:`` lines and
    the lines that leave an object at it: read once a text (:func:`_layout`), however many
    ``data:`` blocks it holds."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.documents = [found.start() for found in _DOCUMENT.finditer(text)]
        self._kinds = [(len(kind.group(1)), kind.start(), kind.group(2) == "Secret")
                       for kind in _ANY_KIND_LINE.finditer(text)]
        self._datas = [(len(found.group(1)), found.start())
                       for found in _DATA_LINE.finditer(text)]
        self._columns: dict[int, tuple[list[int], list[bool], list[int], list[int]]] = {}

    def column(self, column: int) -> tuple[list[int], list[bool], list[int], list[int]]:
        """At ``column``: the ``kind:`` lines' starts, whether each says Secret, the starts
        of the lines leaving an object, and for each kind the index of the first from it on
        that decides a ``data:`` block before it is a Secret's (a Secret's kind whose object
        holds no later ``data:`` at the column; ``len(kinds)`` when none does)."""
        from bisect import bisect_right  # (only here: not on a recall's imports)
        found = self._columns.get(column)
        if found is None:
            kinds = [at for col, at, _ in self._kinds if col == column]
            secret = [is_secret for col, _, is_secret in self._kinds if col == column]
            datas = [at for col, at in self._datas if col == column]
            leaves: list[int] = []
            at = 0
            for line in self.text.split("\n"):
                if _leaves(line, column):
                    leaves.append(at)
                at += len(line) + 1
            decides = [len(kinds)] * (len(kinds) + 1)
            for index in range(len(kinds) - 1, -1, -1):
                later = bisect_right(datas, kinds[index])
                own = secret[index] and (
                    later == len(datas) or not _stays(leaves, kinds[index], datas[later]))
                decides[index] = index if own else decides[index + 1]
            found = self._columns[column] = (kinds, secret, leaves, decides)
        return found


@lru_cache(maxsize=1)
def _layout(text: str) -> _Layout:
    """The layout of ``text``: the ``data:`` blocks of one text (one rule's matches, one
    after another) share it. Holds the last text read, nothing else."""
    return _Layout(text)


def _kind_cut(text: str, head: int, end: int) -> bool:
    """Whether the ``data:`` block after ``head`` (to ``end``) is the head of what
    ``kubectl get -o yaml`` prints, cut before its ``kind``: ``apiVersion`` on the line
    before, at its column, and no ``kind:`` on the line after it (one there is the
    object's, a Secret's read by :data:`KUBE_SECRET`). Two lines read, not the document:
    a text of many such blocks costs each block its own lines."""
    data = _DATA_LINE.match(text, head + 1)
    if data is None or head < 0:
        return False
    column = len(data.group(1))
    version = _API_VERSION.match(text, text.rfind("\n", 0, head) + 1, head)
    if version is None or len(version.group(1)) != column:
        return False
    after = text.find("\n", end)
    kind = None if after == -1 else _ANY_KIND_LINE.match(text, after + 1)
    return kind is None or len(kind.group(1)) != column


def _text(plain: bytes) -> bool:
    """Whether decoded bytes are text (UTF-8, printable but for line breaks and tabs)."""
    try:
        decoded = plain.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return decoded.replace("\n", "").replace("\r", "").replace("\t", "").isprintable()


#: an ``apiVersion:`` line, its indent (with a list item's ``- ``)
_API_VERSION: Final = lazy(r"^([ \t]*(?:-[ \t]+)?)apiVersion:", re.MULTILINE | re.ASCII)
#: any ``kind:`` line, its indent (with a list item's ``- ``) and its kind
_ANY_KIND_LINE: Final = lazy(r"^([ \t]*(?:-[ \t]+)?)kind:[ \t]*[\"']?(\w*)",
                             re.MULTILINE | re.ASCII)
#: a YAML mapping's key starting a line (after its indent)
_MAPPING_KEY: Final = lazy(r"[\w.-]+:(?:[ \t]|\r?$)", re.ASCII)


def _leaves(line: str, column: int) -> bool:
    """Whether ``line`` leaves the object whose keys stand at ``column``: a list's next
    item, less indented, or, at the column, no mapping's key (code or prose between two
    fragments). Blank lines and comments stay in it."""
    stripped = line.lstrip(" \t")
    if not stripped.strip() or stripped.startswith("#"):
        return False
    indent = len(line) - len(stripped)
    if stripped.startswith("- "):
        return indent + 2 <= column
    return indent < column or (indent == column and _MAPPING_KEY.match(stripped) is None)


#: how far into a PEM text a private key's armour may stand: after the curve's ``EC
#: PARAMETERS`` block (78 bytes) that ``openssl ecparam -genkey`` writes before an EC key
PEM_ARMOUR_BYTES: Final = 160


def private_pem(plain: bytes) -> bool:
    """Whether the PEM text ``plain`` (decoded, perhaps cut) is a private key's: its first
    armour line says PRIVATE KEY, or it is an EC key's curve parameters with a private
    key's armour after them (read as parameters, public, such a key went out in clear)."""
    head = plain[:PEM_ARMOUR_BYTES]
    armour = head.split(b"\n", 1)[0]
    return b"PRIVATE KEY" in armour or (b"PARAMETERS" in armour and b"PRIVATE KEY" in head)


def base64_bytes(value: str) -> bytes | None:
    """``value`` decoded from base64 (strictly: padded, no stray characters), or None when
    it is not base64 (the one decoder of the credential rules' checks)."""
    import binascii  # (an extension module: loaded only when a check needs it)

    try:
        return binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error:
        return None
