"""The same text written again at a stricter level tightens the stored item.

It was a duplicate ("Existing memory …", exit 0, nothing appended), so `memory add
--classification local-only` of a stored claim, or an export line marked local-only, was
dropped with success and the claim kept going to remote providers. Now the stored item is
superseded by the same text at the stricter level; the same text at the same or a looser
level is still a duplicate (a looser one never loosens what is stored).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.inprocess import waymarks as run_waymarks
from waymarks.service.app import Waymarks

CLAIM = "The VPN gateway is vpn3.corp."


def _json(home: Path, project: Path, *args: str, expect: int = 0) -> Any:
    done = run_waymarks("--home", str(home), "--cwd", str(project), "--json", *args,
                        cwd=project)
    assert done.returncode == expect, (args, done.stdout, done.stderr)
    return json.loads(done.stdout)


def _planned(home: Path, project: Path, prompt: str) -> str:
    plan = _json(home, project, "plan", "--provider", "openai", "--prompt", prompt)
    return json.dumps(plan["messages"])


def test_a_stricter_level_supersedes_and_a_looser_one_is_a_duplicate(home: Path,
                                                                    project: Path) -> None:
    first = _json(home, project, "memory", "add", "--", CLAIM)
    assert "vpn3.corp" in _planned(home, project, "vpn gateway")
    tightened = _json(home, project, "memory", "add", "--classification", "local-only", "--",
                      CLAIM)
    assert tightened["outcome"] == "committed" and tightened["operation"] == "supersede"
    assert tightened["previousId"] == first["id"]
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    for looser in ("sensitive", None):
        extra = ("--classification", looser) if looser else ()
        again = _json(home, project, "memory", "add", *extra, "--", CLAIM)
        assert again["outcome"] == "duplicate" and again["id"] == tightened["id"]
    active = [i for i in _json(home, project, "memory")["items"] if i["status"] == "active"]
    assert [(i["id"], i["classification"]) for i in active] == [(tightened["id"],
                                                                 "local-only")]


def test_a_pin_and_an_import_line_tighten_too(home: Path, project: Path,
                                              tmp_path: Path) -> None:
    pin = _json(home, project, "pin", "--", "Run the linter first.")
    tightened = _json(home, project, "pin", "--classification", "internal", "--",
                      "Run the linter first.")
    assert tightened["operation"] == "supersede" and tightened["previousId"] == pin["id"]
    _json(home, project, "memory", "add", "--", "The cache is at /srv/cache.")
    line = {"format": "waymarks-export-v1", "kind": "memory", "scope": "session",
            "status": "active", "classification": "local-only",
            "text": "The cache is at /srv/cache."}
    export = tmp_path / "lo.jsonl"
    export.write_text(json.dumps(line) + "\n")
    _json(home, project, "import", str(export))
    assert "/srv/cache" not in _planned(home, project, "where is the cache")
    again = _json(home, project, "import", str(export))  # now the same level: a duplicate
    assert [r["outcome"] for r in again["lines"]] == ["duplicate"]


def test_the_policys_default_is_the_level_of_an_item_stored_without_one(
        home: Path, project: Path, tmp_path: Path) -> None:
    """A pin stored without a level has the default (here ``sensitive``): pinning the same
    text as ``internal`` is looser, so it is a duplicate; taking the stored one as
    ``normal`` superseded it and sent the text to the remote provider. And an export,
    which writes the default for such an item, imports as duplicates (it replaced every
    item, each with a new ID)."""
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[privacy]\nremoteDefaultAllowed = ["normal", '
                                      '"internal"]\ndefaultClassification = "sensitive"\n')
    text = "Deploy key rotation happens on Fridays."
    stored = _json(home, project, "pin", "--", text)
    again = _json(home, project, "pin", "--classification", "internal", "--", text)
    assert again["outcome"] == "duplicate" and again["id"] == stored["id"]
    assert "Fridays" not in _planned(home, project, "deploy key rotation")
    (home / "config.toml").write_text('[privacy]\ndefaultClassification = "internal"\n')
    _json(home, project, "memory", "add", "--", "The build uses make.")
    exported = tmp_path / "own.jsonl"
    _json(home, project, "export", "-o", str(exported))
    imported = _json(home, project, "import", str(exported))
    assert {r["outcome"] for r in imported["lines"]} == {"duplicate"}


def test_a_branch_pin_is_not_tightened_by_pinning_it_again(home: Path,
                                                           project: Path) -> None:
    """Superseded by a re-pin, a branch pin would apply from the new leaf only, and no
    more on the branch it was pinned for: refused, with how to tighten it."""
    _json(home, project, "session", "say", "--", "Let us try the staging database.")
    pin = _json(home, project, "pin", "--scope", "branch", "--", "Use the staging DB.")
    refused = _json(home, project, "pin", "--scope", "branch", "--classification",
                    "local-only", "--", "Use the staging DB.", expect=2)
    assert refused["code"] == "invalid_argument"
    assert f"waymarks unpin {pin['id'][:8]}" in refused["message"]


def test_the_tool_asks_about_the_item_a_stricter_add_supersedes(
        make_app: Callable[..., Waymarks], home: Path) -> None:
    from tests.tool.test_persistence import Person
    from waymarks.tool.persistence import ContextPersistence

    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n')
    app = make_app()
    app.session_say("Keep the linters rule private")
    first = app.pin("Always run the linters")
    person = Person()
    result = ContextPersistence(app, provider="ollama").call({"action": "pin_add", "content":
                                           "Always run the linters",
                                           "classification": "sensitive"}, person)
    assert result.details["outcome"] == "committed"
    [asked] = person.asked
    assert f"Supersedes: {first.id} (the same text, stored at a looser level)" \
        in asked.message


def test_a_supersede_with_another_items_text_is_refused(home: Path, project: Path) -> None:
    """`memory supersede X -- <Y's text>` answered "Existing memory Y (nothing appended)"
    with exit 0, and X stayed active: the writer believed X replaced. It is refused now,
    naming Y, and X is unchanged; so is a pin's supersede."""
    wrong = _json(home, project, "memory", "add", "--", "The VPN gateway is vpn2.corp.")["id"]
    right = _json(home, project, "memory", "add", "--", "The VPN host is vpn3.corp.")["id"]
    refused = _json(home, project, "memory", "supersede", wrong, "--",
                    "The VPN host is vpn3.corp.", expect=2)
    assert refused["code"] == "invalid_argument" and refused["conflicts"] == [right]
    assert right in refused["message"] and f"memory invalidate {wrong}" in refused["message"]
    listed = _json(home, project, "memory", "--status", "active")
    assert {item["id"] for item in listed["items"]} == {wrong, right}
    one = _json(home, project, "pin", "--", "Run make lint first.")["id"]
    two = _json(home, project, "pin", "--", "Run make test first.")["id"]
    pin_refused = _json(home, project, "pin", "--supersedes", one, "--", "Run make test first.",
                        expect=2)
    assert pin_refused["conflicts"] == [two] and f"waymarks unpin {one}" in pin_refused["message"]


def test_a_tightened_claim_keeps_its_key(home: Path, project: Path, tmp_path: Path) -> None:
    """Added again at a stricter level without `--key`, a keyed claim lost its key: the new
    item had none, and a contradiction under that key was then accepted (two claims of one
    fact in effect). It keeps the key now; another key given (`--key`, an import line's
    `key`) is refused, and the stored claim stays as it was."""
    staging = "Deploys go to staging first."
    production = "Deploys go to production first."
    first = _json(home, project, "memory", "add", "--key", "deploy", "--", staging)
    assert _json(home, project, "memory", "add", "--key", "deploy", "--", production,
                 expect=2)["code"] == "conflict"
    tightened = _json(home, project, "memory", "add", "--classification", "internal", "--",
                      staging)
    assert tightened["operation"] == "supersede" and tightened["previousId"] == first["id"]
    [active] = _json(home, project, "memory", "--status", "active")["items"]
    assert (active["id"], active["key"]) == (tightened["id"], "deploy")
    again = _json(home, project, "memory", "add", "--key", "deploy", "--", production,
                  expect=2)
    assert again["code"] == "conflict" and again["conflicts"] == [tightened["id"]]
    renamed = _json(home, project, "memory", "add", "--key", "deploy-x",
                    "--classification", "sensitive", "--", staging, expect=2)
    assert renamed["code"] == "invalid_argument" and renamed["conflicts"] == [tightened["id"]]
    assert "deploy-x" in renamed["message"] and "deploy" in renamed["message"]
    line = {"format": "waymarks-export-v1", "kind": "memory", "scope": "session",
            "status": "active", "classification": "sensitive", "key": "deploy-x",
            "givenKey": "deploy-x", "text": staging}
    export = tmp_path / "renamed.jsonl"
    export.write_text(json.dumps(line) + "\n")
    imported = _json(home, project, "import", str(export), expect=2)
    assert [(r["outcome"], r["code"]) for r in imported["lines"]] == [
        ("refused", "invalid_argument")]
    same = _json(home, project, "memory", "add", "--key", "Deploy", "--classification",
                 "sensitive", "--", staging)  # the same key, as typed: tightened under it
    [active] = _json(home, project, "memory", "--status", "active")["items"]
    assert (active["id"], active["key"], active["classification"]) == (
        same["id"], "deploy", "sensitive")


def test_the_same_text_marked_stricter_supersedes_and_marked_looser_is_a_duplicate(
        home: Path, project: Path, tmp_path: Path) -> None:
    """docs/reference.md: the same text at a stricter level, by `--classification`, a marker or an
    import line, supersedes the stored item. With a marker it did not: the tags made the
    text another text, so `[ds4:local-only]X[/ds4:local-only]` (typed, or a line of an
    export whose item was marked) was added beside the plain `X`, which stayed active and
    went on to remote providers."""
    plain = _json(home, project, "memory", "add", "--", CLAIM)
    marked = f"[ds4:local-only]{CLAIM}[/ds4:local-only]"
    tightened = _json(home, project, "memory", "add", "--", marked)
    assert (tightened["operation"], tightened["previousId"]) == ("supersede", plain["id"])
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    [active] = _json(home, project, "memory", "--status", "active")["items"]
    assert active["key"] == "vpn-gateway"  # the fact's key, not one of the tags' words
    refused = _json(home, project, "memory", "add", "--", "The VPN gateway is vpn9.corp.",
                    expect=2)
    assert refused["code"] == "conflict" and refused["conflicts"] == [tightened["id"]]
    pin = _json(home, project, "pin", "--", "Run the linter first.")
    looser = _json(home, project, "pin", "--", "[ds4:normal]Run the linter first.[/ds4:normal]")
    assert looser["outcome"] == "duplicate" and looser["id"] == pin["id"]
    line = {"format": "waymarks-export-v1", "kind": "pin", "scope": "session",
            "status": "active", "text": "[ds4:internal]Run the linter first.[/ds4:internal]"}
    export = tmp_path / "marked.jsonl"
    export.write_text(json.dumps(line) + "\n")
    [imported] = _json(home, project, "import", str(export))["lines"]
    assert (imported["operation"], imported["previousId"]) == ("supersede", pin["id"])
    pins = _json(home, project, "pins", "--status", "active")["items"]
    assert [p["text"] for p in pins] == [line["text"]]
    memory = _json(home, project, "memory", "--status", "active")["items"]
    assert [m["text"] for m in memory] == [marked]


def test_a_plain_text_of_an_item_stored_marked_whole_is_a_duplicate(
        home: Path, project: Path, tmp_path: Path) -> None:
    """An item stored marked whole (`[ds4:local-only]X[/ds4:local-only]`, or tightened so)
    and `X` again, plain (an older export imported, a typed add): `X` was added beside it
    and went to remote providers. It is a duplicate now, as a looser level is; with a
    stricter `--classification` it supersedes the marked one."""
    marked = _json(home, project, "memory", "add", "--",
                   f"[ds4:local-only]{CLAIM}[/ds4:local-only]")
    line = {"format": "waymarks-export-v1", "kind": "memory", "scope": "session",
            "status": "active", "text": CLAIM}
    export = tmp_path / "old.jsonl"
    export.write_text(json.dumps(line) + "\n")
    [imported] = _json(home, project, "import", str(export))["lines"]
    assert (imported["outcome"], imported["id"]) == ("duplicate", marked["id"])
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    _json(home, project, "pin", "--", "[ds4:internal]Run the linter first.[/ds4:internal]")
    tighter = _json(home, project, "pin", "--classification", "sensitive", "--",
                    "Run the linter first.")
    assert tighter["operation"] == "supersede"
    pins = _json(home, project, "pins", "--status", "active")["items"]
    assert [(p["text"], p["classification"]) for p in pins] == [
        ("Run the linter first.", "sensitive")]


def test_a_text_marked_whole_is_found_as_its_plain_form_is_written(
        home: Path, project: Path) -> None:
    """The plain twin was looked for as the marked one's exact tags around the typed text:
    `X` beside `[ds4:local-only]X.[/ds4:local-only]` (the final period inside the tags)
    or `[ds4:local-only] X [/ds4:local-only]` (spaces inside them), and `X` marked at a
    looser level beside `X` marked local-only, were each added as a new item, which a
    plan sent to a remote provider allowed that level. Compared as normalize leaves the
    texts (case, spaces, a final period), they are the same text."""
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[privacy]\nremoteDefaultAllowed = ["normal", '
                                      '"internal"]\n')
    bare = CLAIM.rstrip(".")
    marked = _json(home, project, "memory", "add", "--",
                   f"[ds4:local-only]{CLAIM}[/ds4:local-only]")
    for again in (bare, f"[ds4:internal]{bare}[/ds4:internal]", CLAIM.upper()):
        said = _json(home, project, "memory", "add", "--", again)
        assert (said["outcome"], said["id"]) == ("duplicate", marked["id"]), again
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    pin = _json(home, project, "pin", "--", "[ds4:sensitive] Run the linter first [/ds4:sensitive]")
    said = _json(home, project, "pin", "--", "Run the linter first.")
    assert (said["outcome"], said["id"]) == ("duplicate", pin["id"])
    tighter = _json(home, project, "pin", "--", "[ds4:local-only]Run the linter first!"
                    "[/ds4:local-only]")
    assert (tighter["operation"], tighter["previousId"]) == ("supersede", pin["id"])
    active = [i for i in _json(home, project, "memory")["items"] if i["status"] == "active"]
    assert [i["id"] for i in active] == [marked["id"]]


def test_a_supersede_with_the_text_of_an_item_marked_whole_is_refused(
        home: Path, project: Path) -> None:
    """`memory supersede OTHER -- X` with `[ds4:local-only]X[/ds4:local-only]` active: the
    marked twin was only looked for by a write superseding nothing, so the plain `X` was
    committed beside it and planned for the remote provider. It is refused, as the same
    supersede is beside a plain `X`; a supersede of the marked item itself stays the
    person's change of it."""
    marked = _json(home, project, "memory", "add", "--",
                   f"[ds4:local-only]{CLAIM}[/ds4:local-only]")
    other = _json(home, project, "memory", "add", "--", "The office wifi is guest-5.")
    refused = _json(home, project, "memory", "supersede", other["id"], "--", CLAIM,
                    expect=2)
    assert refused["code"] == "invalid_argument" and refused["conflicts"] == [marked["id"]]
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    changed = _json(home, project, "memory", "supersede", marked["id"], "--",
                    f"[ds4:sensitive]{CLAIM}[/ds4:sensitive]")
    assert changed["outcome"] == "committed" and changed["previousId"] == marked["id"]


def test_one_text_marked_at_two_levels_or_spaced_inside_its_tags_is_one_text(
        home: Path, project: Path, tmp_path: Path) -> None:
    """The text marked whole was matched only as `[ds4:L]X[/ds4:L]` with `X` exactly as
    the plain one normalizes: `[ds4:local-only] X [/ds4:local-only]` (spaces inside the
    tags) or `[ds4:local-only]X.[/ds4:local-only]` beside a plain `X` without the full
    stop, and `X` marked at another level, were other texts, so the plain or looser copy
    was added beside the stricter one and went on to the providers it was kept from."""
    spaced = _json(home, project, "memory", "add", "--",
                   f"[ds4:local-only] {CLAIM} [/ds4:local-only]")
    again = _json(home, project, "memory", "add", "--", CLAIM.rstrip("."))
    assert (again["outcome"], again["id"]) == ("duplicate", spaced["id"])
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    internal = _json(home, project, "pin", "--", "[ds4:internal]Run the linter.[/ds4:internal]")
    tighter = _json(home, project, "pin", "--",
                    "[ds4:sensitive]Run the linter.[/ds4:sensitive]")
    assert (tighter["operation"], tighter["previousId"]) == ("supersede", internal["id"])
    looser = _json(home, project, "pin", "--", "[ds4:internal]Run the linter[/ds4:internal]")
    assert (looser["outcome"], looser["id"]) == ("duplicate", tighter["id"])
    line = {"format": "waymarks-export-v1", "kind": "pin", "scope": "session",
            "status": "active", "text": "Run the linter!"}
    export = tmp_path / "old.jsonl"
    export.write_text(json.dumps(line) + "\n")
    [imported] = _json(home, project, "import", str(export))["lines"]
    assert (imported["outcome"], imported["id"]) == ("duplicate", tighter["id"])
    assert [p["id"] for p in _json(home, project, "pins", "--status", "active")["items"]] == [
        tighter["id"]]
    assert [m["id"] for m in _json(home, project, "memory", "--status", "active")["items"]] == [
        spaced["id"]]

def test_a_supersede_whose_text_another_item_holds_marked_is_refused(
        home: Path, project: Path) -> None:
    """`memory supersede OLD -- X` (or `pin --supersedes`) beside an active
    `[ds4:local-only]X[/ds4:local-only]` of another item: only a supersede's exact text
    was looked for, so X was added beside its marked copy and went on to remote
    providers. It is refused as the exact text is (that item already says it), OLD left
    as it was; the same text marked more strictly still tightens its own target."""
    marked = _json(home, project, "memory", "add", "--",
                   f"[ds4:local-only]{CLAIM}[/ds4:local-only]")
    old = _json(home, project, "memory", "add", "--", "The cache lives in /srv/cache.")
    refused = _json(home, project, "memory", "supersede", old["id"], "--", CLAIM, expect=2)
    assert refused["code"] == "invalid_argument" and marked["id"] in refused["message"]
    assert "vpn3.corp" not in _planned(home, project, "vpn gateway")
    pin = _json(home, project, "pin", "--", "Run the linter.")
    other = _json(home, project, "pin", "--", "[ds4:sensitive]Use the VPN.[/ds4:sensitive]")
    _json(home, project, "pin", "--supersedes", pin["id"], "--", "Use the VPN.", expect=2)
    tightened = _json(home, project, "pin", "--supersedes", pin["id"], "--",
                      "[ds4:internal]Run the linter.[/ds4:internal]")
    assert tightened["previousId"] == pin["id"]
    assert sorted(p["id"] for p in _json(home, project, "pins", "--status", "active")[
        "items"]) == sorted([other["id"], tightened["id"]])
    assert sorted(m["id"] for m in _json(home, project, "memory", "--status", "active")[
        "items"]) == sorted([marked["id"], old["id"]])


def test_a_keyed_claim_contradicting_a_claim_marked_whole_is_refused(home: Path,
                                                                     project: Path) -> None:
    """A claim marked whole got a key derived with its tags' words
    (``ds4-internal-the-vpn-gateway``), so ``--key vpn-gateway`` stating another value
    was kept apart from it as another fact and accepted, both in effect, where the same
    claim unmarked refused it: docs/reference.md says a claim is compared without its markers."""
    for marked in (False, True):
        where = project / ("marked" if marked else "plain")
        where.mkdir()
        _json(home, where, "memory", "add", "--",
              f"[ds4:internal]{CLAIM}[/ds4:internal]" if marked else CLAIM)
        refused = _json(home, where, "memory", "add", "--key", "vpn-gateway", "--",
                        "The VPN gateway is vpn4.corp.", expect=2)
        assert refused["code"] == "conflict", (marked, refused)
        # another fact under its own key is still apart
        _json(home, where, "memory", "add", "--key", "vpn-metrics-port", "--",
              "The VPN metrics port is 9100.")
