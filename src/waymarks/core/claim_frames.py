"""A claim said in the passive with its value first, put in the active
(:mod:`waymarks.core.contradiction`'s signatures). Pure.

A README or a wiki says a tool, a version or a port first and what uses it after: "PostgreSQL
16 is used for the production database.", "Port 9000 is used by the reporting service.",
"Docusaurus is used to build the documentation site.", "Java 21 is required by the
build." Read as written, the value's name led the subject and the thing using it came
after the verb, so the claim was no fact of "The production database is hosted on
PostgreSQL 14." Each is read as the thing using the value: "the production database uses
postgresql 16.", and what it states is compared as the active voice's is. A commit's or a
ticket's imperative that sets a thing to a value ("Set log level to DEBUG in prod",
"Rename default branch to main") is read as the statement it makes ("log level is debug
in prod").
"""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy

#: one clause: a value of up to four words, "is/are used/required/needed", then by or
#: for a thing named with its determiner ("for the production database", "by the
#: reporting service") or "to" and a verb before the thing ("to build the documentation
#: site", "to manage database migrations"); a thing of up to six words ending the claim
#: ("Python is used for scripting." names no thing: a purpose)
_PASSIVE_USE: Final = lazy(
    r"^\s*(?P<value>[a-z0-9][\w.+#-]*(?: [\w.+#-]+){0,3}) (?:is|are) (?:used|required|needed)"
    r" (?:(?:for|by|in) (?=(?:the|our|this|its|each|every) )|to [a-z]+ )"
    r"(?P<thing>[a-z][\w'-]*(?: [\w'./-]*[\w'/-]){0,5}?)\s*(?P<end>[.!]?)\s*$")


#: an imperative that sets a thing to a value, a commit's or a ticket's subject ("Set log
#: level to DEBUG in prod", "Rename default branch to main", "Change the deploy target to
#: staging"): one clause, the thing of up to five words, one word or token after "to" and
#: where it holds; read as "<thing> is <value>", its statement
_SET_TO: Final = lazy(
    r"^\s*(?:set|change|rename|switch)(?! up\b) (?:the |our )?"
    r"(?P<thing>[a-z][\w'-]*(?: [a-z][\w'-]*){0,4}?) to (?P<value>[\w+#@:/-]+(?:\.[\w+-]+)*)"
    r"(?P<rest>(?: in [a-z][\w-]*)?)\s*(?P<end>[.!]?)\s*$")


def active(text: str) -> str:
    """``text`` (folded, in lower case) in the active voice when it is one clause of a
    value used by a thing (:data:`_PASSIVE_USE`), as a statement when it is an imperative
    setting a thing to a value (:data:`_SET_TO`), else as it is."""
    if " to " in text and (setting := _SET_TO.match(text)) is not None:
        return (f"{setting.group('thing')} is {setting.group('value')}{setting.group('rest')}"
                f"{setting.group('end')}")
    if " used " not in text and " required " not in text and " needed " not in text:
        return text
    found = _PASSIVE_USE.match(text)
    if found is None:
        return text
    return f"{found.group('thing')} uses {found.group('value')}{found.group('end')}"
