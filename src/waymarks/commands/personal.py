"""Personal memory, visible curation, discussion notes and decision records."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from waymarks.commands.base import Column, Group, Result, command, runtime
from waymarks.commands.options import classification_option
from waymarks.commands.render import cell, refused, table_result
from waymarks.core.text import unknown_id
from waymarks.personal.curation import MAX_PREFILL_CHARS, PrefillTooLong, curation_prompt

if TYPE_CHECKING:  # the store is imported when a command runs, not for help
    from waymarks.core.egress import Egress
    from waymarks.personal.entry import Entry, PersonalMemoryError
    from waymarks.personal.store import PersonalStore
    from waymarks.service.app import Waymarks

#: ``waymarks.personal.entry.ENTRY_TYPES`` (a test keeps them equal)
ENTRY_TYPES = ("user", "feedback", "project", "reference")
#: ``waymarks.personal.notes.NOTE_TYPES`` (the same test keeps them equal)
NOTE_TYPES = ("requirement", "decision", "constraint", "action", "question", "preference",
              "implementation", "lesson")

SAVE_LIMIT = MAX_PREFILL_CHARS
PASTE_PROVIDER_HELP = ("The provider of the model you will give the prompt to (without it: "
                       "the defaultProvider unless that is local, then an unknown, remote "
                       "one). E.g. --provider ollama")


def _pasted_egress(provider: str | None) -> Egress:
    """The egress of the model a printed prompt is pasted into: ``provider``'s, or when
    none is named one this does not know (``notes promote``'s rule)."""
    from waymarks.service.planning import PASTED_PROVIDER, egress_for

    app = runtime().app()
    if provider is None:
        app.host_provider = PASTED_PROVIDER
    return egress_for(app, provider)
def _refusal(exc: PersonalMemoryError) -> Result:
    """What the store refused, said: a directory that cannot be used is the environment's
    (exit 1, ``unavailable``), everything else the request's (exit 2)."""
    if exc.code == "unavailable":
        from waymarks.service.outcomes import ServiceError

        raise ServiceError("unavailable", str(exc)) from exc
    return refused(exc.code, str(exc))


def _no_entry(slug: str) -> str:
    return unknown_id("personal entry", slug, "", "waymarks personal list")


def _store(app: Waymarks) -> PersonalStore:
    from waymarks.personal.setup import personal_store

    return personal_store(app)


def _entry_json(entry: Entry, *, body: bool = False) -> dict[str, object]:
    data: dict[str, object] = {"slug": entry.slug, "name": entry.name,
                               "description": entry.description, "type": entry.type,
                               "classification": entry.classification}
    if body:
        data["body"] = entry.body
    return data


def register_remember(root: click.Group) -> None:
    @command(root, "remember", summary="The guided curation prompt for personal memory: it "
             "asks the person what to keep and saves nothing.",
             examples=["waymarks remember", "waymarks remember \"I prefer small PRs\"",
                       "waymarks remember --provider ollama \"I prefer small PRs\""])
    @click.option("--provider", metavar="ID", default=None, help=PASTE_PROVIDER_HELP)
    @click.argument("text", nargs=-1, metavar="[TEXT]")
    def remember(provider: str | None, text: tuple[str, ...]) -> Result:
        """TEXT (at most 2,000 characters) is offered as an untrusted candidate, as the
        model may receive it (a local-only part withheld, a credential redacted, unless
        the provider is local). Saving is `waymarks personal save`, or the MCP tool
        `remember` after the person confirms."""
        try:
            prompt = curation_prompt(" ".join(text), _pasted_egress(provider))
        except PrefillTooLong as exc:
            return refused("too_long", str(exc))
        return Result({"saved": False, "prompt": prompt}, prompt)


def personal_group() -> Group:
    personal = Group("personal", default="list",
                     help="Personal memory: what every agent should know about the person, as "
                          "markdown files with YAML frontmatter in <home>/memory.",
                     examples=["waymarks personal", "waymarks personal save --type feedback "
                               "-- Keep pull requests under 300 lines.",
                               "waymarks personal show keep-pull-requests-under-300-lines"])

    @command(personal, "list", summary="Personal memory entries: slug, type, name, "
             "description.", examples=["waymarks personal list", "waymarks personal --json"])
    def list_() -> Result:
        store = _store(runtime().app())
        entries, unread = store.scan()
        rows = [(e.slug, e.type, e.classification or "-", cell(e.name),
                 cell(e.own_description) or "") for e in entries]
        # a hand-written file that is no entry is named, with why, never silently skipped
        footer = [f"Not read: {cell(u.file)}: {u.reason}" for u in unread]
        return table_result({"directory": str(store.directory),
                             "entries": [_entry_json(e) for e in entries],
                             "unread": [{"file": u.file, "reason": u.reason}
                                        for u in unread]},
                            [Column("SLUG"), Column("TYPE"), Column("CLASS"), Column("NAME"),
                             Column("DESCRIPTION", wide=True)], rows, footer=footer,
                            empty=f"No personal memory yet in {cell(str(store.directory))}.")

    @command(personal, "save", summary="Save a personal entry, or with --slug replace one "
             "(keeping its type and classification unless given).",
             examples=["waymarks personal save --type feedback -- Keep PRs under 300 lines.",
                       "waymarks personal save --slug keep-prs-under-300-lines -- Keep PRs "
                       "under 200 lines.",
                       "waymarks personal save --name Editor --description \"vim: modal\" "
                       "-- I use vim."])
    @click.option("--slug", metavar="SLUG",
                  help="Replace the entry with this slug (lowercase letters, digits, '-'); "
                       "with no such entry, save a new one under it (said in a note). "
                       "E.g. --slug keep-prs-small")
    @click.option("--type", "type_", type=click.Choice(ENTRY_TYPES, case_sensitive=False),
                  help="user (default for a new entry), feedback, project or reference. "
                       "E.g. --type feedback")
    @click.option("--name", metavar="NAME",
                  help="A short name, at most 80 characters (default: the text's first line). "
                       "E.g. --name Editor")
    @click.option("--description", metavar="TEXT",
                  help="One line, at most 300 characters, for the index injected into every plan "
                       "(default: what the text says beyond its name). "
                       "E.g. --description \"modal editing\"")
    @classification_option("entry")
    @click.argument("text", nargs=-1, required=True, metavar="[--] TEXT")
    def save(slug: str | None, type_: str | None, name: str | None,
             description: str | None, classification: str | None,
             text: tuple[str, ...]) -> Result:
        """TEXT is at most 2,000 characters; a credential in it is refused."""
        from waymarks.personal.entry import PersonalMemoryError

        app = runtime().app()
        store = _store(app)
        try:
            saved = store.save(
                " ".join(text), slug=slug, name=name, description=description, type=type_,
                classification=classification, limit=SAVE_LIMIT)
        except PersonalMemoryError as exc:
            return _refusal(exc)
        if saved.duplicate:  # (nothing written: the entry was this one already)
            return Result({"outcome": "duplicate", "slug": saved.slug, "path": str(saved.path),
                           "replaced": False},
                          f"Already saved as {saved.slug} in {saved.path}")
        verb = "Replaced" if saved.replaced else "Saved"
        new = () if saved.replaced or slug is None else (
            f"no entry had the slug {saved.slug}: this is a new entry (replacing one takes "
            "its slug as `waymarks personal list` shows it)",)
        return _noticed(Result({"outcome": "saved", "slug": saved.slug, "path": str(saved.path),
                                "replaced": saved.replaced},
                               f"{verb} {saved.slug} in {saved.path}"),
                        " ".join(text), name, description, also=new + _unsent(app, store,
                                                                              saved.slug))

    @command(personal, "show", summary="One entry in full.",
             examples=["waymarks personal show keep-pull-requests-under-300-lines"])
    @click.argument("slug", metavar="SLUG")
    def show(slug: str) -> Result:
        """A missing entry is refused (exit 2), as `personal forget` does."""
        from waymarks.personal.entry import PersonalMemoryError, one_line

        try:
            store = _store(runtime().app())
            store.check_readable()  # (every entry out of reach: not "no personal entry")
            entry = store.get(slug) if store.existing(slug) else None
        except PersonalMemoryError as exc:
            return _refusal(exc)
        if entry is None:
            return refused("not_found", _no_entry(slug))
        head = f"{entry.slug} [{entry.type}" + (
            f", {entry.classification}]" if entry.classification else "]")
        name = None if one_line(entry.body).startswith(one_line(entry.name)) else entry.name
        # stored text cannot act on the terminal: control characters are escaped
        lines = [cell(line) for line in filter(None, [name, entry.own_description])]
        text = "\n".join([cell(head), *lines, "", cell(entry.body, keep="\n\t")])
        return Result(_entry_json(entry, body=True), text)

    @command(personal, "forget", summary="Delete one entry (its file and its index line).",
             examples=["waymarks personal forget keep-pull-requests-under-300-lines"])
    @click.argument("slug", metavar="SLUG")
    def forget(slug: str) -> Result:
        """A missing entry is refused (exit 2), as `personal show` does."""
        from waymarks.personal.entry import PersonalMemoryError

        try:
            removed = _store(runtime().app()).forget(slug)
        except PersonalMemoryError as exc:
            return _refusal(exc)
        if not removed:
            return refused("not_found", f"{_no_entry(slug)}; nothing changed")
        return Result({"slug": slug, "removed": True}, f"Forgot {slug}.")

    @command(personal, "index", summary="Rebuild MEMORY.md from the entry files and print "
             "it.", examples=["waymarks personal index"])
    def index() -> Result:
        from waymarks.personal.entry import PersonalMemoryError

        store = _store(runtime().app())
        try:
            path = store.rebuild_index()
        except PersonalMemoryError as exc:
            return _refusal(exc)
        return Result({"index": str(path), "entries": len(store.entries())},
                      path.read_text(encoding="utf-8").rstrip())

    return personal


def notes_group() -> Group:
    notes = Group("notes", default="list",
                  help="Discussion notes on this branch: lessons to promote into the "
                       "project's engineering docs.",
                  examples=["waymarks notes add -- Run migrations in one transaction",
                            "waymarks notes", "waymarks notes promote"])

    @command(notes, "list", summary="The active notes of this branch.",
             examples=["waymarks notes list"])
    def list_() -> Result:
        from waymarks.personal.notes import active_notes

        found = active_notes(runtime().app())
        return Result({"notes": [n.to_json() for n in found]},
                      "\n".join(f"{n.id} [{n.type}] {cell(n.text)}" for n in found)
                      or "No notes.")

    @command(notes, "add", summary="Note something on this branch.",
             examples=["waymarks notes add -- Run migrations in one transaction",
                       "waymarks notes add --type decision -- We keep SQLite"])
    @click.option("--type", "type_", type=click.Choice(NOTE_TYPES, case_sensitive=False),
                  metavar="TYPE", default="lesson", show_default=True,
                  help=f"What kind of note: {', '.join(NOTE_TYPES)} (lesson notes are what "
                       "`notes promote` offers). E.g. --type decision")
    @click.argument("text", nargs=-1, required=True, metavar="[--] TEXT")
    def add(type_: str, text: tuple[str, ...]) -> Result:
        from waymarks.personal.notes import add_note

        note, added = add_note(runtime().app(), " ".join(text), type_)
        return _noticed(Result({**note.to_json(), "added": added},
                               f"Added note {note.id}." if added
                               else f"Already noted ({note.id})."), " ".join(text))

    @command(notes, "clear", summary="Start a fresh list of notes on this branch.",
             examples=["waymarks notes clear"])
    def clear() -> Result:
        from waymarks.personal.notes import clear_notes

        return Result({"entryId": clear_notes(runtime().app())},
                      "Cleared the notes of this branch.")

    @command(notes, "promote", summary="A prompt proposing where lesson notes belong in "
             "docs/engineering (edits nothing).",
             examples=["waymarks notes promote", "waymarks notes promote --provider ollama"])
    @click.option("--provider", metavar="ID", default=None, help=PASTE_PROVIDER_HELP)
    def promote(provider: str | None) -> Result:
        from waymarks.personal.notes import (
            left_out,
            not_promoted,
            promote_prompt,
            some_left_out,
        )
        from waymarks.service.planning import PASTED_PROVIDER

        app = runtime().app()
        if provider is None:  # pasted into an agent whose model this does not know
            app.host_provider = PASTED_PROVIDER
        prompt, lessons = promote_prompt(app, provider)
        held = left_out(app, lessons)  # said, never "no lesson notes" (they were taken)
        # (a provider named already is not asked for again: it may not receive them)
        fix = ("Name the provider of the model you will paste the prompt into: "
               "--provider ID." if provider is None else
               f"The provider {provider} may not: a provider that may is listed in "
               "[privacy] localProviders, or allowed the level in remoteProviders.")
        if prompt is None:
            message = not_promoted(held, fix)
            return Result({"prompt": None, "lessons": [], "leftOut": held,
                           "message": message}, message)
        data = {"prompt": prompt, "lessons": [n.to_json() for n in lessons], "leftOut": held}
        if not held:
            return Result(data, prompt)
        notice = some_left_out(held, fix)
        return Result({**data, "notices": [notice]}, f"{prompt}\nnote: {notice}")

    return notes


def adr_group() -> Group:
    adr = Group("adr", help="Decision records in docs/engineering/decisions.",
                examples=["waymarks adr new \"Use SQLite WAL for the projection\""])

    @command(adr, "new", summary="Scaffold the next numbered decision record "
             "(docs/engineering/decisions/ADR-NNNN-slug.md).",
             examples=["waymarks adr new \"Use SQLite WAL for the projection\""])
    @click.argument("title", nargs=-1, required=True, metavar="TITLE")
    def new(title: tuple[str, ...]) -> Result:
        from pathlib import Path

        from waymarks.personal.adr_new import docs_project, new_adr

        app = runtime().app()
        try:
            path = new_adr(docs_project(Path(app.cwd), app.trusted_projects()), " ".join(title),
                           app.clock.now().date())
        except ValueError as exc:  # AdrRefused names its code
            return refused(getattr(exc, "code", "invalid_argument"), str(exc))
        return Result({"path": str(path)}, f"Created {cell(str(path))}")

    return adr


def _unsent(app: Waymarks, store: PersonalStore, slug: str) -> tuple[str, ...]:
    """The notice when plans for the provider they go to leave the saved entry's index
    line out (its level, kept from the entry it replaced too, or its markers'), as a pin
    or claim written so says: the entry was saved without a word, and no plan carried
    it."""
    from waymarks.commands.notices import unsent
    from waymarks.service.outcomes import ServiceError

    entry = store.get(slug)
    if entry is None:  # (gone meanwhile: nothing to say about it)
        return ()
    line = f"{entry.name} — {entry.description}"  # as the plan's index line reads it
    try:
        found = unsent(app, entry.body, line, classification=entry.classification)
    except ServiceError:  # the entry is saved; the policy is for plans to report
        return ()
    return () if found is None else (found,)


def _noticed(result: Result, *texts: str | None, also: tuple[str, ...] = ()) -> Result:
    """``result`` with the notices ``memory add`` gives about the same text (a look-alike
    marker, ``[ds4: local-only]`` with a space, classifies nothing): these commands said
    nothing, and an entry meant to stay local went to remote providers. ``also``: the
    command's own notices, first."""
    from waymarks.service.writes import text_notices

    notices = (*also, *text_notices(*texts))
    if not notices:
        return result
    return Result({**result.data, "notices": list(notices)},
                  result.text + "".join(f"\nnote: {n}" for n in notices), result.exit_code)
