"""The credential rules of XML: a value that is a credential because of the element or
attribute naming it. Part of the rule table of :mod:`waymarks.core.secret_rules` (which
judges their matches as a quoted value: a phrase by :func:`_a_quoted_phrase_secret`, a
word as data), kept here as the seam of that table that reads markup rather than
assignments, flags or commands:

- an element named for a credential (Maven's settings.xml ``<password>…</password>``, a
  .NET config's ``<apiKey>``), its text plain or in a CDATA section (``<password><!
  [CDATA[…]]></password>``, as a generator writes any text holding ``<`` or ``&``: it went
  out in clear);
- an element whose ``key`` or ``name`` attribute names one and whose ``value`` attribute
  or text holds it (.NET's ``<add key="ApiKey" value="…"/>``, Spring's and Ant's
  ``<property name="password" value="…"/>``, a properties file's ``<entry
  key="db.password">…</entry>``: the value stood under a word naming none, and went out
  in clear), the text plain or a CDATA section's, alone or in a ``<value>`` element
  (Spring's ``<property name="password"><value>…</value></property>``, .NET's
  ``<setting name="ApiToken" serializeAs="String"><value>…</value></setting>``: those
  went out too); the ``value`` attribute may stand before the one naming it (``<add
  value="…" key="ApiKey"/>``: XML's attributes have no order, and it went out). A
  ``password="…"`` attribute is an assignment, the ``assign`` rule's.

The names are the table's (``secret_rules._TF_SECRET_NAME`` and its qualifiers), passed
in: one list of what names a credential. Pure: ASCII regular expressions only, no I/O,
no state.
"""

from __future__ import annotations

import re

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

#: an element's or attribute's name, and what may stand between attributes (one tag)
_TAG = r"[\w:.-]{1,253}"
_ATTRIBUTES = r"[^<>]{0,512}?"
#: an attribute's ``=`` and the spaces XML allows around it, a line break among them
#: (``value=⏎"…"``, as a formatter wrapping a long element writes it: it went out in clear)
_EQ = r"[ \t\r\n]{0,64}=[ \t\r\n]{0,64}"
#: a quoted attribute's value
_QUOTED = r"(?P<{q}>[\"']){body}(?P={q})"
#: an element's text: plain, or a CDATA section's (its group ``{name}_cdata``)
_TEXT = (r"(?:<!\[CDATA\[[ \t]*(?P<{name}_cdata>[^\]\s](?:[^\]\n]|\](?!\]>)){{0,4095}}?)[ \t]*\]\]>"
         r"|(?P<{name}>[^<>\s][^<>\n]{{0,4095}}?))")


def markup_rules(name: str, qualifier: str) -> tuple[Rule, Rule]:
    """The XML rules for credential names ``name`` (an expression) and their
    ``qualifier`` (``_PROD``, ``V2``): ``xml_value`` and ``xml_pair``."""
    named = r"[\w.:-]*?(?:" + name + r")" + qualifier
    element = Rule("xml_value", "secret", lazy(
        r"<(?P<xml_tag>[\w.-]*?(?:" + name + r")" + qualifier + r")>\s{0,256}"
        + _TEXT.format(name="xml_value") + r"\s{0,256}</(?P=xml_tag)>",
        re.ASCII | re.IGNORECASE), ("</",), wrapper=True, guard="/")
    pair = Rule("xml_pair", "secret", lazy(
        r"<(?:" + _TAG + r"[ \t\r\n]" + _ATTRIBUTES + r"(?<![\w:.-])value" + _EQ
        + _QUOTED.format(q="xml_rq", body=r"(?P<xml_rpair>[^\"'<>\n]{1,4096}?)")
        + _ATTRIBUTES + r"[ \t\r\n](?:key|name)" + _EQ + r"[\"']" + named + r"[\"']"
        r"|(?P<xml_element>" + _TAG + r")[ \t\r\n]" + _ATTRIBUTES + r"(?<![\w:.-])(?:key|name)"
        + _EQ + _QUOTED.format(q="xml_nq", body=named)
        + r"(?:" + _ATTRIBUTES + r"[ \t\r\n]value" + _EQ
        + _QUOTED.format(q="xml_vq", body=r"(?P<xml_pair>[^\"'<>\n]{1,4096}?)")
        + r"|" + _ATTRIBUTES + r"(?<!/)>\s{0,256}(?:(?P<xml_wrap><value>)\s{0,256})?"
        + _TEXT.format(name="xml_text") + r"\s{0,256}(?(xml_wrap)</value>\s{0,256})"
        r"</(?P=xml_element)>))", re.ASCII | re.IGNORECASE),
        ("value", "</"), folded=True, wrapper=True, guard="=")
    return element, pair
