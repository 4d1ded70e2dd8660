"""What a personal save is checked for before the directory is touched (its text, type,
level, slug, credentials and the lengths of its name and description): each refusal a
:class:`PersonalMemoryError` whose ``code`` the CLI shows, nothing written."""

from __future__ import annotations

from waymarks.core.model import CLASSIFICATIONS
from waymarks.core.secrets import credential_kinds
from waymarks.core.text import is_unicode, visible
from waymarks.personal.entry import (
    ENTRY_TYPES,
    MAX_DESCRIPTION,
    MAX_NAME,
    CredentialRefused,
    PersonalMemoryError,
    TooLong,
    check_slug,
    one_line,
)


class EmptyText(PersonalMemoryError):
    """A text with nothing in it: the code a pin, a claim and a note so refused give."""

    code = "empty"


def checked_save(text: str, *, slug: str | None, name: str | None,
                 description: str | None, type: str | None, classification: str | None,
                 limit: int) -> str | None:
    """Refuse a save :meth:`PersonalStore.save` must not make; the explicit slug checked
    (``None`` when none was given)."""
    if not isinstance(text, str) or not is_unicode(text):
        raise PersonalMemoryError("memory text must be Unicode text")
    if not visible(text):  # (``empty``, as a pin's, a claim's and a note's)
        raise EmptyText("memory text must not be empty (nor control or invisible "
                        "characters alone): give its text; nothing was written")
    if len(text.strip()) > limit:
        raise TooLong(f"memory text has {len(text.strip())} characters; the "
                      f"limit is {limit}. Keep personal memory small")
    if type is not None and type not in ENTRY_TYPES:
        raise PersonalMemoryError(f"type must be one of {', '.join(ENTRY_TYPES)}")
    if classification is not None and classification not in CLASSIFICATIONS:
        raise PersonalMemoryError("classification must be normal, internal, sensitive "
                                  "or local-only")
    explicit = check_slug(slug) if slug is not None else None
    kinds = credential_kinds("\n".join(filter(None, (text, name, description, explicit))))
    if kinds:  # a credential would become a file, a slug, an index line in every plan
        raise CredentialRefused(
            f"the entry (its text, name, description or slug) holds what looks like a "
            f"credential ({', '.join(kinds)}); Waymarks "
            "does not store credentials. Say where it is kept instead")
    for what, value, most in (("name", name, MAX_NAME),
                              ("description", description, MAX_DESCRIPTION)):
        if value is not None and len(one_line(value)) > most:
            raise TooLong(f"the {what} has {len(one_line(value))} characters; "
                          f"the limit is {most}. Shorten it")
    return explicit
