"""The personal memory store: real files, real processes."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from waymarks.personal.entry import (
    INDEX_HEADING,
    MAX_FILE_BYTES,
    Entry,
    PersonalMemoryError,
    derive_slug,
    parse_entry,
)
from waymarks.personal.store import PersonalStore
from waymarks.service.app import Waymarks


@pytest.fixture
def store(tmp_path: Path) -> PersonalStore:
    return PersonalStore(tmp_path / "memory")


def test_an_entry_is_a_markdown_file_with_frontmatter_and_an_index_line(
        store: PersonalStore) -> None:
    saved = store.save("Keep PRs under 300 lines; split refactors from features",
                       name="Prefers small pull requests", description="Keep PRs small",
                       type="feedback")
    assert saved.slug == "prefers-small-pull-requests" and not saved.replaced
    assert saved.path.read_text() == (
        "---\nname: Prefers small pull requests\ndescription: Keep PRs small\nmetadata:\n"
        "  type: feedback\n---\nKeep PRs under 300 lines; split refactors from features\n")
    store.save("Uses a Dvorak keyboard layout", name="Keyboard")
    assert store.index_path.read_text() == (
        f"{INDEX_HEADING}\n\n- [Keyboard](keyboard.md) — Uses a Dvorak keyboard layout\n"
        "- [Prefers small pull requests](prefers-small-pull-requests.md) — Keep PRs small\n")


def test_saving_an_existing_slug_replaces_it(store: PersonalStore) -> None:
    first = store.save("Editor is vim", name="Editor")
    second = store.save("Editor is helix now", slug=first.slug, name="Editor")
    assert second.replaced and [e.body for e in store.entries()] == ["Editor is helix now"]
    assert store.index_path.read_text().count("editor.md") == 1


def test_forget_removes_the_file_and_the_index_line(store: PersonalStore) -> None:
    saved = store.save("Likes dark themes")
    assert store.forget(saved.slug) and not saved.path.exists()
    assert saved.slug not in store.index_path.read_text()
    assert store.forget(saved.slug) is False


@pytest.mark.parametrize("slug", ["../escape", "/etc/passwd", "a/b", "", " ", "UPPER",
                                  "-leading", "x" * 65, "dots.md", "..", 42, None])
def test_slugs_that_could_leave_the_directory_are_refused(store: PersonalStore,
                                                         slug: object) -> None:
    with pytest.raises(PersonalMemoryError) as refused:
        store.save("text", slug=slug) if slug is not None else store.get(slug)  # type: ignore[arg-type]
    assert str(slug) not in str(refused.value) or str(slug) in ("", " ", "42", "None")
    assert not (store.directory.parent / "escape.md").exists()


def test_derived_slugs_are_safe_whatever_the_name() -> None:
    for name in ("../../etc/passwd", "Ünïcode näme", "   ", "a" * 200, "CON", "x/y\\z"):
        slug = derive_slug(name)
        assert slug and len(slug) <= 64 and all(c.isalnum() or c == "-" for c in slug)
        assert slug == slug.lower() and "/" not in slug and ".." not in slug


def test_a_link_leading_out_of_the_directory_is_refused_and_not_read(
        store: PersonalStore, tmp_path: Path) -> None:
    store.save("placeholder", name="Placeholder")
    outside = tmp_path / "outside.md"
    outside.write_text("---\nname: Outside\ndescription: secret\nmetadata:\n  type: user\n"
                       "---\nsecret\n")
    (store.directory / "sneaky.md").symlink_to(outside)
    assert [e.slug for e in store.entries()] == ["placeholder"]
    with pytest.raises(PersonalMemoryError):
        store.save("overwrite through the link", slug="sneaky")
    assert outside.read_text().endswith("secret\n")
    assert "Outside" not in store.index_path.read_text()


def test_hand_edits_are_picked_up_and_nonconforming_files_left_alone(
        store: PersonalStore) -> None:
    saved = store.save("Prefers tabs", name="Indentation")
    saved.path.write_text(saved.path.read_text().replace("Prefers tabs", "Prefers spaces")
                          .replace("description: Prefers tabs", "description: Spaces"))
    (store.directory / "by-hand.md").write_text(
        "---\nname: Written by hand\ndescription: Added in an editor\nmetadata:\n"
        "  type: reference\n---\nSee https://example.org/style\n")
    (store.directory / "old-notes.md").write_text("# Old notes\nno frontmatter here\n")
    names = {e.slug: e for e in store.entries()}
    assert set(names) == {"indentation", "by-hand"}
    assert names["indentation"].body == "Prefers spaces"
    index = store.rebuild_index().read_text()
    assert "Written by hand" in index and "old-notes" not in index
    assert (store.directory / "old-notes.md").read_text().startswith("# Old notes")


def test_parse_entry_rejects_what_does_not_conform() -> None:
    good = "---\nname: N\ndescription: D\nmetadata:\n  type: user\n---\nbody\n"
    assert parse_entry("s", good) is not None
    for bad in (good.replace("  type: user", "  type: robot"),
                good.replace("name: N\n", ""), "no frontmatter", "---\nname: N\n"):
        assert parse_entry("s", bad) is None
    odd = good.replace("---\nbody", "classification: secret\n---\nbody")
    assert parse_entry("s", odd).classification == "local-only"  # type: ignore[union-attr]


def _save_many(directory: str, worker: int) -> None:
    store = PersonalStore(Path(directory))
    for n in range(15):
        store.save(f"Worker {worker} fact {n}", name=f"w{worker} fact {n}")
        store.save(f"Shared fact written by {worker}", slug="shared", name="Shared")


@pytest.mark.slow
def test_concurrent_saves_from_several_processes_lose_nothing(store: PersonalStore) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_save_many, args=(str(store.directory), w))
               for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    entries = store.entries()
    assert len(entries) == 4 * 15 + 1
    index_lines = store.index_path.read_text().splitlines()[2:]
    assert len(index_lines) == len(entries)
    assert not [p for p in os.listdir(store.directory) if p.startswith(".tmp-")]
    assert store.get("shared").body.startswith("Shared fact written by")  # type: ignore[union-attr]


def test_forgetting_nothing_makes_nothing(cli: Callable[..., dict], home: Path) -> None:
    """``personal forget`` of a missing slug, or an invalid one, said "nothing changed"
    and had made the home, its memory folder and a lock there (a typo in ``--home``
    became a new home); so did ``personal save --slug memory``, refused."""
    for slug, code in (("nope", "not_found"), ("../x", "invalid_argument")):
        assert cli("personal", "forget", slug, expect=2)["code"] == code
        assert not home.exists()
    refused = cli("personal", "save", "--slug", "memory", "--", "Prefers tabs", expect=2)
    assert "index's name" in refused["message"] and not home.exists()


def test_legacy_memory_md_is_migrated_once(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir()  # an existing directory does not skip the migration
    legacy = tmp_path / "memory.md"
    legacy.write_text("# Personal memory\n\n- 2026-06-01 — Prefers small commits\n"
                      "- 2026-06-02 — Uses fish as the shell\n\n---\n")
    assert store.migrate_legacy() == 2
    assert {e.slug for e in store.entries()} == {"prefers-small-commits", "uses-fish-as-the-shell"}
    assert not legacy.exists() and (tmp_path / "memory.md.bak").exists()
    legacy.write_text("- 2026-06-03 — A later legacy file is not migrated again\n")
    assert store.migrate_legacy() is None and len(store.entries()) == 2


def test_every_fact_of_a_hand_written_legacy_file_is_migrated(tmp_path: Path) -> None:
    """Only ``- `` items were facts: ``*`` and numbered items, a tab after the dash and
    plain paragraphs were dropped in silence, and the file retired (the backup alone
    kept them)."""
    store = PersonalStore(tmp_path / "memory")
    (tmp_path / "memory.md").write_text(
        "# Memory\n\n- 2026-01-02 — I prefer tabs over spaces.\n"
        "* 2026-01-03 — Always use pytest, never unittest.\n1. Deploys happen on Fridays.\n"
        "Plain paragraph fact: I use vim\nand tmux.\n\n-\t2026-01-04 — Tab bullet fact,\n"
        "  continued on an indented line.\n\n```\n")
    assert store.migrate_legacy() == 5
    bodies = sorted(e.body.strip() for e in store.entries())
    assert bodies == sorted([
        "2026-01-02 — I prefer tabs over spaces.",
        "2026-01-03 — Always use pytest, never unittest.", "Deploys happen on Fridays.",
        "Plain paragraph fact: I use vim and tmux.",
        "2026-01-04 — Tab bullet fact, continued on an indented line."])


def test_front_matter_code_comments_and_tables_of_a_legacy_file_are_no_facts(
        tmp_path: Path) -> None:
    """The first conversion of every paragraph made facts of them (planned to models as
    the person's own memory): ``title: My memory``, a fence's ``ruff check .``."""
    store = PersonalStore(tmp_path / "memory")
    (tmp_path / "memory.md").write_text(
        "---\ntitle: My memory\nupdated: 2025-01-01\n---\n# Memory\n\n"
        "- Prefer uv over pip for Python projects.\n- Run the linter before committing:\n\n"
        "  ```bash\n  # lint everything\n  ruff check .\n  ```\n\n"
        "<!-- keep this file short -->\n<!-- a comment\nover two lines -->\n\n"
        "| tool | why |\n|------|-----|\n| ruff | fast |\n\n~~~\nmake all\n~~~\n"
        "Plain fact after.\n")
    assert store.migrate_legacy() == 3
    assert sorted(e.body.strip() for e in store.entries()) == [
        "Plain fact after.", "Prefer uv over pip for Python projects.",
        "Run the linter before committing:"]


def test_a_legacy_file_saved_with_a_byte_order_mark_and_crlf_reads_as_without(
        tmp_path: Path) -> None:
    """An editor on Windows saves ``memory.md`` with a byte-order mark: its first line
    was read with the mark, so a heading became an entry (``\ufeff# My memory``, in every
    plan) and front matter was not seen, its fields each a fact."""
    store = PersonalStore(tmp_path / "memory")
    for first in ("# My memory\r\n\r\n", "---\r\ntitle: My notes\r\nowner: me\r\n---\r\n"):
        shutil.rmtree(store.directory, ignore_errors=True)
        (tmp_path / "memory.md.bak").unlink(missing_ok=True)
        (tmp_path / "memory.md").write_bytes(
            ("\ufeff" + first + "- I prefer tabs\r\n").encode("utf-8"))
        assert store.migrate_legacy() == 1
        assert [(e.slug, e.body) for e in store.entries()] == [("i-prefer-tabs",
                                                               "I prefer tabs")]


def test_oversized_and_empty_text_is_refused_and_writes_nothing(store: PersonalStore) -> None:
    for text in ("", "   ", "x" * 2001, "lone \ud800"):
        with pytest.raises(PersonalMemoryError):
            store.save(text, limit=2000)
    assert not store.directory.exists() or not list(store.directory.glob("*.md"))


def test_a_link_to_another_entry_is_written_through(store: PersonalStore) -> None:
    # a person's alias for an entry (a link inside the directory): saving through it
    # replaces the entry it leads to, and the link stays a link
    saved = store.save("I prefer tabs over spaces.", name="Indentation")
    alias = store.directory / "tabs.md"
    alias.symlink_to(saved.path.name)
    store.save("I prefer tabs, four wide.", slug="tabs")
    assert alias.is_symlink() and "four wide" in saved.path.read_text()
    assert [e.slug for e in store.entries()] == [saved.slug, "tabs"]


def test_an_entry_that_is_not_a_file_is_refused_clearly(store: PersonalStore) -> None:
    store.save("placeholder", name="Placeholder")
    index = store.index_path.read_text()
    os.mkfifo(store.directory / "pipe.md")
    with pytest.raises(PersonalMemoryError, match="not a regular file"):
        store.save("written into a pipe?", slug="pipe")
    assert stat.S_ISFIFO(os.lstat(store.directory / "pipe.md").st_mode)
    assert store.index_path.read_text() == index  # nothing written


def test_an_entry_that_is_not_a_file_is_refused_before_anyone_is_asked(
        store: PersonalStore) -> None:
    # the remember tool plans first (the refusals) and asks the person only for a plan:
    # a FIFO where the entry would go is refused there, not after a yes
    from waymarks.personal.tools import RememberPlan, plan_remember

    store.directory.mkdir(parents=True, exist_ok=True)
    os.mkfifo(store.directory / "pipe.md")
    planned = plan_remember(store, "written into a pipe?", "pipe")
    assert not isinstance(planned, RememberPlan)
    assert (planned["outcome"], planned["category"]) == ("rejected", "not-an-entry")
    assert isinstance(plan_remember(store, "a new entry", "fresh"), RememberPlan)


def test_what_editors_add_is_read_past_and_other_files_are_named_with_why(
        store: PersonalStore) -> None:
    store.directory.mkdir()
    ok = "---\nname: {0}\ndescription: d\nmetadata:\n  type: {1}\n---\nbody\n"
    files = {
        "bom.md": ("\ufeff" + ok.format("Bom", "user")).encode(),
        "cr.md": ok.format("Cr", "user").replace("\n", "\r").encode(),
        "crlf.md": ok.format("Crlf", "user").replace("\n", "\r\n").encode(),
        "case.md": ok.format("Case", "User").encode(),
        "latin.md": ok.format("Caf\xe9", "user").encode("latin-1"),
        "plain.md": b"just some notes\n",
        "UPPER.md": ok.format("Upper", "user").encode(),
    }
    for name, data in files.items():
        (store.directory / name).write_bytes(data)
    os.mkfifo(store.directory / "pipe.md")
    entries, unread = store.scan()
    assert [e.slug for e in entries] == ["bom", "case", "cr", "crlf"]
    reasons = {u.file: u.reason for u in unread}
    assert set(reasons) == {"latin.md", "plain.md", "UPPER.md", "pipe.md"}
    assert "UTF-8" in reasons["latin.md"] and "frontmatter" in reasons["plain.md"]
    assert "slug" in reasons["UPPER.md"] and "regular file" in reasons["pipe.md"]


def test_a_huge_file_is_not_read(store: PersonalStore) -> None:
    store.save("Keep PRs small")
    huge = store.directory / "huge.md"
    with huge.open("wb") as sparse:  # costs no disk: a frontmatter, then a hole
        sparse.write(b"---\nname: Huge\ndescription: d\nmetadata:\n  type: user\n---\n")
        sparse.truncate(MAX_FILE_BYTES + 1)
    entries, unread = store.scan()
    assert [e.slug for e in entries] == ["keep-prs-small"]
    assert [(u.file, u.reason) for u in unread] == [
        ("huge.md", f"larger than {MAX_FILE_BYTES:,} bytes")]
    with huge.open("r+b") as sparse:
        sparse.truncate(MAX_FILE_BYTES)  # at the limit it is read (a hole is NULs)
    assert "huge" in [e.slug for e in store.entries()]


def test_a_file_there_that_is_no_entry_is_neither_replaced_nor_deleted(
        store: PersonalStore) -> None:
    from waymarks.personal.tools import RememberPlan, plan_remember

    store.directory.mkdir()
    precious = "---\nname: Caf\xe9\ndescription: d\nmetadata:\n  type: user\n---\n" + (
        "A precious paragraph.\n" * 50)
    (store.directory / "prefs.md").write_bytes(precious.encode("latin-1"))
    assert store.get("prefs") is None  # personal list does not show it
    with pytest.raises(PersonalMemoryError, match=r"exists but is not an entry.*rename it"):
        store.save("Use tabs", slug="prefs")
    with pytest.raises(PersonalMemoryError, match="exists but is not an entry"):
        store.forget("prefs")
    assert plan_remember(store, "Use tabs", "prefs") == {"outcome": "rejected",
                                                         "category": "not-an-entry"}
    assert (store.directory / "prefs.md").read_bytes() == precious.encode("latin-1")
    store.save("Keep PRs small", slug="prs")
    planned = plan_remember(store, "Keep PRs tiny", "prs")
    assert isinstance(planned, RememberPlan) and planned.replaces
    assert planned.message.count("Replace your personal memory entry 'prs'") == 1


@pytest.mark.parametrize("kind", ["directory", "link out", "link to an entry"])
def test_an_index_that_cannot_be_rewritten_refuses_before_anything_changes(
        store: PersonalStore, tmp_path: Path, kind: str) -> None:
    kept = store.save("Keep PRs small")
    store.index_path.unlink()
    if kind == "directory":
        store.index_path.mkdir()
    else:
        target = tmp_path / "elsewhere.md" if kind == "link out" else kept.path
        store.index_path.symlink_to(target)
    before = sorted(p.name for p in store.directory.iterdir())
    entry = kept.path.read_text()
    for attempt in (lambda: store.save("Use tabs not spaces"),
                    lambda: store.save("Keep PRs tiny", slug=kept.slug),
                    lambda: store.forget(kept.slug), store.rebuild_index):
        with pytest.raises(PersonalMemoryError, match=r"MEMORY\.md is .*Nothing changed"):
            attempt()
    assert sorted(p.name for p in store.directory.iterdir()) == before
    assert kept.path.read_text() == entry and not (tmp_path / "elsewhere.md").exists()


def test_an_entry_linking_to_the_index_or_the_lock_is_refused(store: PersonalStore) -> None:
    store.save("Keep PRs small")
    index = store.index_path.read_text()
    (store.directory / "notes.md").symlink_to("MEMORY.md")
    (store.directory / "lock.md").symlink_to(".lock")
    for slug in ("notes", "lock"):
        with pytest.raises(PersonalMemoryError, match="link to something other than an entry"):
            store.save("Important: use tabs", slug=slug)
    assert store.index_path.read_text() == index
    assert {u.file for u in store.scan()[1]} == {"notes.md", "lock.md"}


def test_a_migration_stopped_halfway_completes_without_duplicates(tmp_path: Path) -> None:
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir()
    (tmp_path / "memory.md").write_text("- 2024-01-01 — Alpha prefers tabs\n- 2024-01-02 — Foo\n"
                                        "- 2024-01-03 — Bar\n", encoding="utf-8")
    store.save("2024-01-01 — Alpha prefers tabs")  # what the run that stopped had written
    (store.directory / "foo.md").symlink_to(tmp_path / "nowhere" / "foo.md")  # leads out
    assert store.migrate_legacy() == 2
    assert sorted(e.name for e in store.entries()) == ["Alpha prefers tabs", "Bar", "Foo"]
    assert not (store.directory / "alpha-prefers-tabs-2.md").exists()
    assert (tmp_path / "memory.md.bak").exists() and store.migrate_legacy() is None


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Callable[[Path], None]]:
    """Make a directory immutable (even root cannot create files in it), undone after."""
    import shutil
    import subprocess

    made: list[Path] = []

    def make(path: Path) -> None:
        if shutil.which("chattr") is None or subprocess.run(
                ["chattr", "+i", str(path)], capture_output=True).returncode:
            pytest.skip("chattr +i is not available here")
        made.append(path)

    yield make
    for path in made:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_migration_that_fails_never_stops_a_plan_and_list_says_why(
        make_app: Callable[..., Waymarks], home: Path,
        immutable: Callable[[Path], None]) -> None:
    from waymarks.personal.setup import personal_store, plan_with_memory

    app = make_app()
    app.session_say("hi")
    (home / "memory").mkdir()
    (home / "memory" / ".lock").touch()
    (home / "memory.md").write_text("- 2024-01-01 — Alpha prefers tabs\n", encoding="utf-8")
    immutable(home / "memory")  # every write in it fails (as on a full disk)
    plan = plan_with_memory(app, "hello")
    assert any(m.kind == "request" for m in plan.messages)
    entries, unread = personal_store(app).scan()
    assert entries == [] and [u.file for u in unread] == [str(home / "memory.md")]
    assert unread[0].reason.startswith("not converted into entries yet (")
    assert (home / "memory.md").exists() and not (home / "memory.md.bak").exists()


def test_a_plan_in_a_home_without_a_memory_directory_converts_its_legacy_file(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    """A plan imports the store only where it may list an entry (its directory, or a
    legacy ``memory.md`` to convert): a home holding the legacy file alone is one."""
    from waymarks.personal.setup import plan_with_memory

    app = make_app()
    app.session_say("hi")
    (home / "memory.md").write_text("- 2024-01-01 — Alpha prefers tabs\n", encoding="utf-8")
    assert not (home / "memory").exists()
    plan = plan_with_memory(app, "hello")
    assert (home / "memory.md.bak").exists() and not (home / "memory.md").exists()
    [personal] = [m for m in plan.messages if m.kind == "personal"]
    assert "Alpha prefers tabs" in personal.content


def test_a_name_or_description_over_its_limit_is_refused_not_cut(
        store: PersonalStore) -> None:
    for name, description, limit in (("n" * 81, None, "limit is 80"),
                                     (None, "word " * 60 + "END", "limit is 300")):
        with pytest.raises(PersonalMemoryError, match=limit):
            store.save("I use vim", name=name, description=description)
    assert store.entries() == []
    saved = store.save("I use vim", name="n" * 80, description="d" * 300)
    entry = store.get(saved.slug)
    assert entry is not None and (entry.name, entry.description) == ("n" * 80, "d" * 300)


def test_a_legacy_memory_md_larger_than_an_entry_is_neither_read_nor_migrated(
        home: Path, project: Path) -> None:
    """A legacy file is read on every command until migrated: one of any size was read
    whole and turned into as many entries as it had lines (each written and fsynced, in
    a plan's path). One larger than an entry file may be is left as it is and named."""
    from tests.inprocess import waymarks

    legacy = home / "memory.md"
    legacy.parent.mkdir(parents=True)
    fact = "Prefers " + "long " * 20_000
    legacy.write_text("".join(f"- 2026-06-0{n} — {fact}{n}\n" for n in range(1, 5)))
    before = legacy.read_bytes()
    assert len(before) > MAX_FILE_BYTES
    done = waymarks("--json", "personal", "list", cwd=project,
                    env={"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"})
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["entries"] == []
    assert legacy.read_bytes() == before and not (home / "memory.md.bak").exists()
    assert not (home / "memory").exists() or not list((home / "memory").glob("*.md"))
    (why,) = [u["reason"] for u in listed["unread"] if u["file"] == str(legacy)]
    assert f"larger than {MAX_FILE_BYTES:,} bytes" in why and "personal save" in why


def test_a_legacy_memory_md_that_cannot_be_read_is_named_not_a_traceback(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounding the legacy read let its other errors through (a file unreadable for this
    user, or replaced between the check and the read): every command raised them. As
    before, the file is named with the reason, and nothing is migrated."""
    from tests.inprocess import waymarks
    from waymarks.personal import store

    legacy = home / "memory.md"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("- 2026-06-01 — Prefers tabs\n")

    def unreadable(path: object, *, limit: int | None = None) -> bytes:
        raise PermissionError(13, "Permission denied", str(path))  # the suite runs as root

    monkeypatch.setattr(store, "read_regular", unreadable)
    done = waymarks("--json", "personal", "list", cwd=project,
                    env={"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    listed = json.loads(done.stdout)
    (why,) = [u["reason"] for u in listed["unread"] if u["file"] == str(legacy)]
    assert "cannot be read (Permission denied)" in why
    assert not (home / "memory.md.bak").exists()


def test_no_new_entry_is_named_like_the_index(store: PersonalStore) -> None:
    """A review: text with no ASCII letter or digit outside markers got the slug
    ``memory``; on a disk that ignores case ``memory.md`` is ``MEMORY.md``, so the index
    written next replaced the entry just reported saved."""
    saved = store.save("以后请用中文回答")
    assert saved.slug == "entry" and store.get("entry") is not None
    with pytest.raises(PersonalMemoryError, match="index's name"):
        store.save("Prefers tabs", slug="memory")
    assert not (store.directory / "memory.md").exists()
    # one an older version made is still replaced (on this disk it is its own file)
    from waymarks.personal.entry import Entry, render_entry

    (store.directory / "memory.md").write_text(
        render_entry(Entry("memory", "Old", "old", "user", "old", None)))
    assert store.save("Prefers spaces", slug="memory").replaced


def test_what_would_stop_a_save_is_found_without_changing_anything(
        store: PersonalStore, tmp_path: Path) -> None:
    """``unusable`` (``remember`` asks nobody about a save that cannot happen) names
    what :meth:`PersonalStore.save` would refuse, and creates nothing itself."""
    assert store.unusable() is None and not store.directory.exists()
    blocked = PersonalStore(tmp_path / "a-file" / "memory")
    (tmp_path / "a-file").write_text("x")
    assert blocked.unusable() == "cannot be created (a file is in its way)"
    with pytest.raises(PersonalMemoryError):
        blocked.save("Prefers helix")
    store.save("Prefers helix", slug="editor")
    os.unlink(store.directory / ".lock")
    os.mkfifo(store.directory / ".lock")
    assert store.unusable() == "has a lock that is not a regular file"
    with pytest.raises(PersonalMemoryError):
        store.save("Prefers vim", slug="editor")
    os.unlink(store.directory / ".lock")
    store.index_path.unlink()
    store.index_path.symlink_to(tmp_path / "elsewhere.md")
    assert store.unusable() == "has an index that is not a regular file"


@pytest.mark.parametrize(("lines", "facts"), [
    (["---", "- I prefer tabs", "- My editor is helix"], ["I prefer tabs", "My editor is helix"]),
    (["<!-- keep this short", "- I prefer tabs"], ["I prefer tabs"]),
    (["- I start the app with:", "```npm run dev```", "- I prefer tabs"],
     ["I start the app with:", "I prefer tabs"]),
    (["- A fact", "```", "- Another fact"], ["A fact", "Another fact"]),
], ids=["lone rule", "unclosed comment", "one-line fence", "unclosed fence"])
def test_a_block_never_closed_skips_itself_alone(lines: list[str], facts: list[str]) -> None:
    """A leading ``---``, an unclosed ``<!--`` or fence opened a skip that ran to the end
    of the file: every fact after it was lost, the file retired, nothing said."""
    from waymarks.personal.legacy import legacy_facts

    assert legacy_facts(lines) == facts


def test_a_save_plans_will_leave_out_says_so(cli: Callable[..., dict]) -> None:
    """A pin or claim classified above what the default provider receives says so in a
    note; a personal entry was saved without a word, and no plan carried its line."""
    for args, level in ((("--classification", "sensitive", "--", "Salary talks"), "sensitive"),
                        (("--", "Team lead is [ds4:internal]Bob[/ds4:internal]"), "internal")):
        saved = cli("personal", "save", *args)
        assert [n for n in saved.get("notices", []) if n.startswith("classified")] == [
            f"classified {level}: the default provider (remote) will not receive it, so "
            "plans for it leave it out; `waymarks privacy` shows the policy"]
        plan = cli("plan", "--prompt", "salary")
        assert not [m for m in plan["messages"] if m["kind"] == "personal"]
    # replacing keeps the entry's level, and says so again; a plain one says nothing
    again = cli("personal", "save", "--slug", "salary-talks", "--", "Salary talks in May")
    assert any(n.startswith("classified sensitive") for n in again["notices"])
    assert "notices" not in cli("personal", "save", "--", "Prefers tabs")


def test_a_fact_added_to_the_legacy_file_while_it_converts_is_not_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The legacy file was read, its facts written one by one (each synced), and then the
    file renamed to the backup: a line the person (or an older Pi) added meanwhile went to
    the backup alone, never an entry. Now a file changed since it was read stays, and the
    next command converts what is new (what was written is not written again)."""
    store = PersonalStore(tmp_path / "memory")
    legacy = tmp_path / "memory.md"
    legacy.write_text("- Prefers tabs\n- Uses fish\n")
    write = PersonalStore._write_atomic
    added: list[bool] = []

    def editing(self: PersonalStore, path: Path, text: str) -> None:
        if not added:  # the person's editor saves while the first entry is written
            added.append(True)
            with legacy.open("a") as file:
                file.write("- Runs tests before pushing\n")
        write(self, path, text)

    monkeypatch.setattr(PersonalStore, "_write_atomic", editing)
    store.migrate_legacy()
    store.migrate_legacy()
    assert sorted(e.body for e in store.entries()) == [
        "Prefers tabs", "Runs tests before pushing", "Uses fish"]
    assert not legacy.exists() and "Runs tests" in (tmp_path / "memory.md.bak").read_text()


def test_a_replacement_keeps_the_level_it_read_while_an_editor_writes_the_file(
        store: PersonalStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save over a slug read the entry to see that it is one, then read it again for its
    type and level: an editor writing the file in place between the two (truncated, not
    yet written) made the second read no entry, and the replacement was saved without the
    entry's ``local-only``."""
    saved = store.save("My bank is Chase", slug="bank", type="reference",
                       classification="local-only")
    load, truncated = PersonalStore._load, []

    def editor_writes(self: PersonalStore, path: Path) -> Entry | str:
        found = load(self, path)
        if path == saved.path and not truncated:
            truncated.append(path.read_text())
            path.write_text("")  # the editor's truncation, before it writes
        return found

    monkeypatch.setattr(PersonalStore, "_load", editor_writes)
    store.save("My bank is Chase; the branch is on Main St", slug="bank")
    monkeypatch.undo()
    entry = store.get("bank")
    assert entry is not None and (entry.type, entry.classification) == ("reference",
                                                                         "local-only")


def test_an_editors_lock_or_the_systems_metadata_file_is_not_listed(
        tmp_path: Path) -> None:
    """Emacs' lock beside an entry being edited (``.#x.md``, a link to nothing) and macOS'
    metadata file on a shared drive (``._x.md``) were listed as files that are no entry,
    to be renamed: hidden files are an editor's or the system's, not the person's notes.
    A visible file that is no entry is still named."""
    store = PersonalStore(tmp_path / "memory")
    store.save("I use emacs.", slug="editor")
    (store.directory / ".#editor.md").symlink_to("person@host.4242:1765000000")
    (store.directory / "._editor.md").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X")
    (store.directory / "Editor (conflicted copy).md").write_text("# mine\n")
    entries, unread = store.scan()
    assert [e.slug for e in entries] == ["editor"]
    assert [u.file for u in unread] == ["Editor (conflicted copy).md"]


def test_the_index_holds_no_credential_a_hand_edited_entry_holds(tmp_path: Path) -> None:
    """MEMORY.md copied a hand-edited entry's token into every index line while plans
    redacted it: a reader that injects the index as it is (Pi's older memory extension on
    a shared directory) sent the token to a model. The entry's own file stays as written."""
    token = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
    store = PersonalStore(tmp_path / "memory")
    store.directory.mkdir(parents=True)
    source = (f"---\nname: Deploy token {token}\ndescription: use {token} for staging\n"
              f"metadata:\n  type: reference\n---\nThe staging deploy uses {token}\n")
    (store.directory / "deploy.md").write_text(source, encoding="utf-8")
    store.rebuild_index()
    index = store.index_path.read_text(encoding="utf-8")
    assert token not in index
    assert ("- [Deploy token [REDACTED:github-token]](deploy.md) — use "
            "[REDACTED:github-token] for staging") in index
    assert (store.directory / "deploy.md").read_text(encoding="utf-8") == source
