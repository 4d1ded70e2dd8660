"""A Kubernetes Secret's ``data:``: base64 values that are credentials because of the
manifest they stand in (``kubectl get secret app -o yaml``, a chart's rendered output).

``DATABASE_URL: cG9zdGdyZXM6Ly9…`` under ``data:`` holds ``postgres://admin:PASSWORD@…``
encoded, and a ``.dockerconfigjson`` value a registry's password: no rule reads through
base64, so they went to the model in clear. The rule takes the entries of a ``data:``
block (``KEY: BASE64`` lines at one indent) when a ``kind: Secret`` stands in the same
text; the span runs from the first key to the last value, so the block becomes
``data:⏎  [REDACTED:kubernetes-secret]`` (one span per match: a rule's match is one
span). ``stringData:`` holds plain text, which the other rules read as they read any
assignment.

What stays (``accepts_manifest`` declines): a ``data:`` block of another kind of object
(a ConfigMap's, whose ``binaryData`` or base64 text is not secret), one whose ``kind:
Secret`` stands at another indent (the ``data:`` of something nested in it) or in another
YAML document (after ``---``), a block with a value that is not base64 (then it is not a
Secret's data), and one holding only public PEM blocks (a ``ca.crt``, a certificate: a
``tls.key`` beside it is a private key, and the block goes).

The rule's text must hold ``Secret`` (the expression looks for it behind or ahead of the
block), so the pre-test's "secret" with a colon covers it. Pure: no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

#: one ``KEY: BASE64`` entry after its indent (quoted or bare; empty when quoted)
_ENTRY: Final = (r"[\w.-]{1,253}:[ \t]+(?:\"[A-Za-z0-9+/=]{0,65536}\"|'[A-Za-z0-9+/=]{0,65536}'"
                 r"|[A-Za-z0-9+/]{4,65536}={0,2})[ \t]*")
#: ``kind: Secret`` on a line of its own (after spaces, or ``- `` as a list's item)
_KIND: Final = r"kind:[ \t]*[\"']?Secret[\"']?[ \t]*(?:#[^\n]*)?\r?(?:\n|\Z)"
#: the ``data:`` line, the indent of its first entry, then the entries at that indent
_BLOCK: Final = (r"(?<![\w.-])data:[ \t]*\r?\n(?P<kube_indent>[ \t]+)(?P<kube_secret>"
                 + _ENTRY + r"(?:\r?\n(?P=kube_indent)" + _ENTRY + r")*)")
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
    hint=lazy(r"data:[ \t]*\r?\n[ \t]", re.ASCII))

#: the same in JSON (``kubectl get secret -o json``): ``"data": {"KEY": "BASE64", …}`` with
#: ``"kind": "Secret"`` in the same object, before or after it (what stands between holds
#: only objects closed again, two levels deep: ``"metadata": {"labels": {…}}``)
_Q: Final = r"\\?\""  # a quote, escaped where the JSON is a string's (an annotation's)
_JSON_ENTRY: Final = (_Q + r"[\w.-]{1,253}" + _Q + r"[ \t]*:[ \t]*" + _Q
                      + r"[A-Za-z0-9+/=]{0,65536}" + _Q)
_JSON_KIND: Final = _Q + "kind" + _Q + r"[ \t]*:[ \t]*" + _Q + "Secret" + _Q
_JSON_BETWEEN: Final = (r"(?:(?!\\?\"(?:kind|data)\\?\"[ \t]*:)[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})"
                        r"{0,65536}?")  # an object has one of each (the square, as above)
KUBE_SECRET_JSON: Final = Rule("kube_secret_json", "kubernetes-secret", lazy(
    r"(?=[\\\"])(?P<kube_kind_json>" + _JSON_KIND + _JSON_BETWEEN + r")?"
    + _Q + "data" + _Q + r"[ \t]*:[ \t]*\{\s*(?P<kube_secret_json>"
    + _JSON_ENTRY + r"(?:\s*,\s*" + _JSON_ENTRY + r")*)\s*\}"
    r"(?(kube_kind_json)|(?=" + _JSON_BETWEEN + _JSON_KIND + "))",
    re.ASCII), ("Secret",), wrapper=True, guard=":",
    hint=lazy(r"data\\?\"[ \t]*:[ \t]*\{", re.ASCII))

#: a document separator of a YAML stream
_DOCUMENT: Final = lazy(r"^---", re.MULTILINE)
_KIND_LINE: Final = lazy(r"^([ \t]*(?:-[ \t]+)?)" + _KIND, re.MULTILINE | re.ASCII)
_DATA_LINE: Final = lazy(r"^([ \t]*(?:-[ \t]+)?)data:[ \t]*\r?$", re.MULTILINE | re.ASCII)
#: a base64 value of an entry, its quotes aside
_VALUE: Final = lazy(r":[ \t]*\\?[\"']?([A-Za-z0-9+/=]*)")


def accepts_manifest(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the ``data:`` block ``start:end`` of a :data:`KUBE_SECRET` match is a
    Secret's: a ``kind: Secret`` at its ``data:`` line's column in its YAML document, every
    value base64, and not only public PEM blocks."""
    text = match.string
    head = text.rfind("\n", 0, text.rfind("\n", 0, start))  # the line before the entries
    data = _DATA_LINE.match(text, head + 1)
    if data is None:
        return False
    column = len(data.group(1))
    documents = [found.start() for found in _DOCUMENT.finditer(text)]
    first = max((at for at in documents if at <= head + 1), default=0)
    last = min((at for at in documents if at > start), default=len(text))
    return any(len(kind.group(1)) == column
               for kind in _KIND_LINE.finditer(text, first, last)) \
        and secret_values(text, start, end)


def secret_values(text: str, start: int, end: int) -> bool:
    """Whether the entries ``start:end`` of a Secret's ``data`` (YAML or JSON) are its
    data: every value base64, and not only public PEM blocks (certificates)."""
    values = [base64_bytes(found.group(1)) for found in _VALUE.finditer(text, start, end)]
    if any(value is None for value in values):
        return False
    return not all(value.startswith(b"-----BEGIN") and b"PRIVATE KEY" not in value[:64]
                   for value in values if value is not None)


def base64_bytes(value: str) -> bytes | None:
    """``value`` decoded from base64 (strictly: padded, no stray characters), or None when
    it is not base64 (the one decoder of the credential rules' checks)."""
    import binascii  # (an extension module: loaded only when a check needs it)

    try:
        return binascii.a2b_base64(value, strict_mode=True)
    except binascii.Error:
        return None
