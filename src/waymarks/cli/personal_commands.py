"""Commands for personal memory, visible curation, discussion notes and decision records."""

from __future__ import annotations

from waymarks.cli.commands import EXIT_REJECTED, Command, Env, Result, UsageError
from waymarks.core.arguments import ParsedArgs
from waymarks.personal.curation import MAX_PREFILL_CHARS, curation_prompt
from waymarks.personal.store import ENTRY_TYPES, Entry, PersonalMemoryError, PersonalStore
from waymarks.service.app import Waymarks

SAVE_LIMIT = MAX_PREFILL_CHARS


def _store(app: Waymarks) -> PersonalStore:
    from waymarks.personal.setup import personal_store

    return personal_store(app)


def _refused(message: str) -> Result:
    return Result({"outcome": "rejected", "code": "invalid_argument", "message": message},
                  f"Refused: {message}", EXIT_REJECTED)


def _remember(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    text = args.text() if args.positionals else None
    if text is not None and len(text) > MAX_PREFILL_CHARS:
        return _refused(f"the text has {len(text)} characters; the limit is "
                        f"{MAX_PREFILL_CHARS}. Nothing was saved")
    prompt = curation_prompt(text)
    return Result({"saved": False, "prompt": prompt}, prompt)


def _save(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    if not args.positionals:
        raise UsageError("Usage: waymarks personal save [--slug SLUG] [--name NAME] "
                         "[--description TEXT] [--type TYPE] [--classification LEVEL] -- TEXT")
    try:
        saved = _store(app).save(
            args.text(), slug=args.options.get("slug"), name=args.options.get("name"),
            description=args.options.get("description"),
            type=args.options.get("type", "user"),
            classification=args.options.get("classification"), limit=SAVE_LIMIT)
    except PersonalMemoryError as exc:
        return _refused(str(exc))
    verb = "Replaced" if saved.replaced else "Saved"
    return Result({"outcome": "saved", "slug": saved.slug, "path": str(saved.path),
                   "replaced": saved.replaced}, f"{verb} {saved.slug} in {saved.path}")


def _entry_json(entry: Entry, *, body: bool = False) -> dict[str, object]:
    data: dict[str, object] = {"slug": entry.slug, "name": entry.name,
                               "description": entry.description, "type": entry.type,
                               "classification": entry.classification}
    if body:
        data["body"] = entry.body
    return data


def _list(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    store = _store(app)
    entries = store.entries()
    lines = [f"{e.slug:<32} [{e.type}] {e.name} — {e.description}" for e in entries]
    return Result({"directory": str(store.directory),
                   "entries": [_entry_json(e) for e in entries]},
                  "\n".join(lines) or f"No personal memory yet in {store.directory}.")


def _one_slug(args: ParsedArgs, command: str) -> str:
    if len(args.positionals) != 1:
        raise UsageError(f"Usage: waymarks personal {command} SLUG")
    return args.positionals[0]


def _show(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    try:
        entry = _store(app).get(_one_slug(args, "show"))
    except PersonalMemoryError as exc:
        return _refused(str(exc))
    if entry is None:
        return Result({"outcome": "rejected", "code": "not_found",
                       "message": "no such entry; see `waymarks personal list`"},
                      "No such entry; see `waymarks personal list`.", EXIT_REJECTED)
    return Result(_entry_json(entry, body=True),
                  f"{entry.name} [{entry.type}]\n{entry.description}\n\n{entry.body}")


def _forget(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    slug = _one_slug(args, "forget")
    try:
        removed = _store(app).forget(slug)
    except PersonalMemoryError as exc:
        return _refused(str(exc))
    return Result({"slug": slug, "removed": removed},
                  f"Forgot {slug}." if removed else f"No entry {slug}; nothing changed.")


def _index(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    store = _store(app)
    path = store.rebuild_index()
    return Result({"index": str(path), "entries": len(store.entries())},
                  path.read_text(encoding="utf-8").rstrip())


def _notes_add(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.personal.notes import add_note

    if not args.positionals:
        raise UsageError("Usage: waymarks notes add [--type TYPE] -- TEXT")
    note, added = add_note(app, args.text(), args.options.get("type", "lesson"))
    return Result({**note.to_json(), "added": added},
                  f"Added note {note.id}." if added else f"Already noted ({note.id}).")


def _notes_list(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.personal.notes import active_notes

    notes = active_notes(app)
    return Result({"notes": [n.to_json() for n in notes]},
                  "\n".join(f"{n.id} [{n.type}] {n.text}" for n in notes) or "No notes.")


def _notes_clear(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.personal.notes import clear_notes

    return Result({"entryId": clear_notes(app)}, "Cleared the notes of this branch.")


def _notes_promote(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from waymarks.personal.notes import promote_prompt

    prompt, lessons = promote_prompt(app)
    if prompt is None:
        return Result({"prompt": None, "lessons": []}, "No lesson notes to promote.")
    return Result({"prompt": prompt, "lessons": [n.to_json() for n in lessons]}, prompt)


def _adr_new(app: Waymarks, args: ParsedArgs, env: Env) -> Result:
    from pathlib import Path

    from waymarks.personal.docs import new_adr

    if not args.positionals:
        raise UsageError("Usage: waymarks adr new TITLE")
    try:
        path = new_adr(Path(app.cwd), args.text(), app.clock.now().date())
    except ValueError as exc:
        return _refused(str(exc))
    return Result({"path": str(path)}, f"Created {path}")


_SAVE_OPTIONS = frozenset({"slug", "name", "description", "type", "classification"})
PERSONAL_COMMANDS: dict[str, Command] = {
    "remember": Command("remember [TEXT]", "the guided curation prompt (saves nothing; "
                        f"TEXT of at most {MAX_PREFILL_CHARS} characters)", _remember),
    "personal save": Command(f"personal save [--slug SLUG] [--type {'|'.join(ENTRY_TYPES)}] "
                             "[--name NAME] [--description TEXT] [--classification LEVEL] "
                             "-- TEXT", "save (or, with --slug, replace) a personal entry",
                             _save, _SAVE_OPTIONS),
    "personal list": Command("personal list", "personal memory entries", _list,
                             takes_positionals=False),
    "personal show": Command("personal show SLUG", "one entry in full", _show),
    "personal forget": Command("personal forget SLUG", "delete one entry", _forget),
    "personal index": Command("personal index", "rebuild MEMORY.md from the entry files",
                              _index, takes_positionals=False),
    "notes add": Command("notes add [--type TYPE] -- TEXT", "note something on this branch",
                         _notes_add, frozenset({"type"})),
    "notes list": Command("notes list", "the active notes of this branch", _notes_list,
                          takes_positionals=False),
    "notes clear": Command("notes clear", "start a fresh list of notes on this branch",
                           _notes_clear, takes_positionals=False),
    "notes promote": Command("notes promote", "a prompt proposing where lesson notes belong "
                             "in docs/engineering (edits nothing)", _notes_promote,
                             takes_positionals=False),
    "adr new": Command("adr new TITLE", "scaffold the next numbered decision record",
                       _adr_new),
}
