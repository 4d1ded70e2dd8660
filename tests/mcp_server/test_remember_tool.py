"""The MCP ``remember`` tool through the SDK's real client (both protocol eras): personal
memory applies to every project, so the person confirms every save; refusals come first,
without a question; nothing is saved without a yes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, ElicitResult

from waymarks.mcp.server import build_server
from waymarks.personal.store import PersonalStore
from waymarks.personal.tools import Remember, RememberPlan, plan_remember
from waymarks.service.app import Waymarks

MODES = ["auto", "legacy"]


class Person:
    """Answers every question with ``action`` (and ``content`` on accept), and keeps what
    it was shown; ``during`` runs while the question is open."""

    def __init__(self, action: str = "accept", content: Any = None,
                 during: Callable[[], None] | None = None) -> None:
        self.action, self.during = action, during
        self.content = {"confirm": True} if content is None and action == "accept" \
            else content
        self.asked: list[str] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.asked.append(params.message)
        if self.during is not None:
            self.during()
        return ElicitResult(action=self.action, content=self.content)  # type: ignore[arg-type]


def remember(app: Waymarks, arguments: dict[str, Any], person: Person | None,
             mode: str = "auto") -> CallToolResult:
    async def run() -> CallToolResult:
        async with Client(build_server(app), elicitation_callback=person,
                          mode=mode) as client:  # type: ignore[arg-type]
            return await client.call_tool("remember", arguments)

    result = anyio.run(run)
    assert result.structured_content is not None
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    assert result.is_error is (result.structured_content["outcome"] != "saved")
    return result


@pytest.fixture
def store(home: Path) -> PersonalStore:
    return PersonalStore(home / "memory")


@pytest.mark.parametrize("mode", MODES)
def test_a_yes_saves_what_the_person_saw(app: Waymarks, store: PersonalStore,
                                         mode: str) -> None:
    person = Person()
    result = remember(app, {"text": "Prefers   concise\tcommit messages"}, person, mode)
    saved = result.structured_content
    assert saved is not None and saved["outcome"] == "saved" and saved["replaced"] is False
    [shown] = person.asked
    assert "applies to every project" in shown and "Prefers concise commit messages" in shown
    entry = store.get(saved["slug"])
    assert entry is not None and entry.body == "Prefers concise commit messages"


@pytest.mark.parametrize("text", ["42", "[1, 2]", '"quoted"', "null"])
def test_text_that_reads_as_json_is_saved_as_the_text_shown(
        app: Waymarks, store: PersonalStore, text: str) -> None:
    person = Person()
    saved = remember(app, {"text": text}, person).structured_content
    assert saved is not None and saved["outcome"] == "saved"
    assert person.asked[0].endswith(f"\n{text}")
    entry = store.get(saved["slug"])
    assert entry is not None and entry.body == text


@pytest.mark.parametrize("mode", MODES)
def test_replacing_an_entry_says_so_before_the_yes(app: Waymarks, store: PersonalStore,
                                                   mode: str) -> None:
    first = store.save("Prefers tabs", slug="indentation")
    assert not first.replaced
    person = Person()
    result = remember(app, {"text": "Prefers spaces", "slug": "indentation"}, person, mode)
    assert result.structured_content == {"outcome": "saved", "slug": "indentation",
                                         "file": "indentation.md", "replaced": True}
    assert "Replace your personal memory entry 'indentation'" in person.asked[0]
    assert "It holds now:\nPrefers tabs" in person.asked[0]  # what the yes gives up
    entry = store.get("indentation")
    assert entry is not None and entry.body == "Prefers spaces"
    store.save("The vault hint is bluebird", slug="vault", classification="local-only")
    person = Person()
    remember(app, {"text": "Everything here is public", "slug": "vault"}, person, mode)
    assert "(local-only: not shown here" in person.asked[0] and "bluebird" not in \
        person.asked[0]
    assert "keeps its classification: local-only" in person.asked[0]
    token = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
    store.save("The deploy token lives in CI.", slug="deploy")  # a file edited by hand:
    entry_file = store.directory / "deploy.md"
    entry_file.write_text(entry_file.read_text().replace("lives in CI.",
                                                         f"is {token} for CI."))
    person = Person()
    remember(app, {"text": "Deploys use OIDC now", "slug": "deploy"}, person, mode)
    assert "It holds now:\nThe deploy token is [REDACTED" in person.asked[0]
    assert token not in person.asked[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("action", "content", "category"), [
    ("decline", None, "declined"), ("cancel", None, "cancelled"),
    ("accept", {"confirm": False}, "declined"),
    ("accept", {"confirm": "yes"}, "confirmation-invalid"),
    ("accept", {}, "confirmation-invalid"),
    ("accept", {"confirm": 1}, "confirmation-invalid"),
])
def test_anything_but_a_yes_saves_nothing(app: Waymarks, store: PersonalStore, mode: str,
                                          action: str, content: Any, category: str) -> None:
    person = Person(action, content)
    result = remember(app, {"text": "Prefers concise commit messages"}, person, mode)
    assert result.structured_content == {"outcome": "cancelled", "category": category}
    assert len(person.asked) == 1 and store.entries() == []


@pytest.mark.parametrize("mode", MODES)
def test_an_accept_without_content_saves_nothing(app: Waymarks, store: PersonalStore,
                                                 mode: str) -> None:
    person = Person("accept")
    person.content = None
    result = remember(app, {"text": "Prefers concise commit messages"}, person, mode)
    assert result.structured_content == {"outcome": "cancelled",
                                         "category": "confirmation-invalid"}
    assert store.entries() == []


@pytest.mark.parametrize("mode", MODES)
def test_a_client_that_cannot_ask_saves_nothing(app: Waymarks, store: PersonalStore,
                                                mode: str) -> None:
    result = remember(app, {"text": "Prefers concise commit messages"}, None, mode)
    assert result.structured_content == {"outcome": "unavailable",
                                         "category": "confirmation-required"}
    assert store.entries() == [] and not store.directory.joinpath("MEMORY.md").exists()


@pytest.mark.parametrize("elicits", [True, False], ids=["asking-client", "no-ui-client"])
@pytest.mark.parametrize(("arguments", "category"), [
    ({"text": "x" * 2001}, "invalid-parameters"),
    ({"text": "   "}, "invalid-parameters"),
    ({"text": 42}, "invalid-parameters"),
    ({"text": "ok", "slug": "../../escape"}, "invalid-parameters"),
    ({"text": "retry [waymarks:omitted]"}, "egress-placeholder"),
    ({"text": "ok", "slug": "[waymarks:omitted]"}, "egress-placeholder"),
    ({"text": "[ds4:local-only]bank PIN 1234[/ds4:local-only]"}, "local-only-refused"),
    ({"text": "my token is ghp_" + "a1B2c3D4e5" * 4}, "credential-refused"),
    ({"text": "Prefers tabs", "scope": "project"}, "invalid-parameters"),  # an unknown field
])
def test_refusals_come_first_and_ask_nobody(app: Waymarks, store: PersonalStore,
                                            arguments: dict[str, Any], category: str,
                                            elicits: bool) -> None:
    person = Person()
    result = remember(app, arguments, person if elicits else None)
    assert result.structured_content == {"outcome": "rejected", "category": category}
    assert person.asked == [] and store.entries() == []
    text = json.dumps(result.structured_content)
    assert "PIN 1234" not in text and "ghp_" not in text


def test_an_entry_created_while_the_person_decides_voids_the_yes(
        app: Waymarks, store: PersonalStore) -> None:
    """The person was asked to create an entry; meanwhile that slug came to exist, so the
    save would replace what they never saw: refused, and the other entry is kept."""
    person = Person(during=lambda: store.save("Written elsewhere", slug="editor"))
    result = remember(app, {"text": "Prefers helix", "slug": "editor"}, person, "legacy")
    assert result.structured_content == {"outcome": "rejected",
                                         "category": "changed-since-confirmation"}
    entry = store.get("editor")
    assert entry is not None and entry.body == "Written elsewhere"


def test_the_tool_says_the_person_confirms(app: Waymarks) -> None:
    async def run() -> Any:
        async with Client(build_server(app)) as client:
            return (await client.list_tools()).tools

    tool = next(t for t in anyio.run(run) if t.name == "remember")
    assert "confirms" in (tool.description or "")
    assert tool.output_schema is not None and tool.output_schema["type"] == "object"


@pytest.mark.parametrize(("arguments", "outcome", "error"), [
    ({"slug": "nope"}, "rejected", True), ({"slug": "../x"}, "rejected", True),
    ({"slug": "editor"}, "ok", False), ({"slug": "2024"}, "ok", False)])
def test_entry_fetch_refusals_are_error_results(app: Waymarks, store: PersonalStore,
                                                arguments: dict[str, Any], outcome: str,
                                                error: bool) -> None:
    store.save("Prefers helix", slug="editor")
    store.save("Goals for the year", slug="2024")  # a slug that reads as JSON

    async def run() -> CallToolResult:
        async with Client(build_server(app)) as client:
            return await client.call_tool("personal_memory_entry", arguments)

    result = anyio.run(run)
    assert result.structured_content is not None
    assert (result.structured_content["outcome"], result.is_error) == (outcome, error)


def test_a_yes_is_spent_by_the_save_it_confirms(store: PersonalStore) -> None:
    """A question asked twice (the SDK re-runs resolvers on every round) leaves nothing
    behind that a later save, never shown, could pass for."""
    tool = Remember()
    plan = plan_remember(store, "Prefers helix", "editor")
    assert isinstance(plan, RememberPlan)
    tool.shown(plan.message)
    tool.shown(plan.message)
    assert tool.commit(store, "Prefers helix", "editor", "accepted")["outcome"] == "saved"
    store.forget("editor")
    assert tool.commit(store, "Prefers helix", "editor", "accepted") == {
        "outcome": "rejected", "category": "changed-since-confirmation"}
    assert store.entries() == []


@pytest.mark.parametrize("mode", MODES)
def test_a_personal_directory_that_is_a_file_is_said_before_anyone_is_asked(
        app: Waymarks, mode: str) -> None:
    """A review: with ``<home>/memory`` a file, ``remember`` asked the person about a save
    that could never happen and answered ``unavailable`` only after the yes (the CLI
    refuses at once); ``recall_memory`` answered an empty personal index and
    ``personal_memory_entry`` ``not-found``, as if the person had no notes. Now the save
    is refused before the question, and the reads say the directory cannot be read."""
    blocked = app.home / "memory"
    app.home.mkdir(parents=True, exist_ok=True)
    blocked.write_text("not a directory\n")
    person = Person()
    refused = remember(app, {"text": "I like dark mode"}, person, mode).structured_content
    assert person.asked == []
    assert refused is not None and refused["outcome"] == "unavailable"
    assert "is not a directory" in refused["message"] and str(app.home) not in \
        refused["message"]
    assert blocked.read_text() == "not a directory\n"

    async def reads() -> list[CallToolResult]:
        async with Client(build_server(app), mode=mode) as client:
            return [await client.call_tool("recall_memory", {"query": "dark mode"}),
                    await client.call_tool("personal_memory_entry", {"slug": "editor"})]

    recalled, fetched = (r.structured_content for r in anyio.run(reads))
    assert recalled is not None and recalled["outcome"] == "ok"
    assert recalled["personalIndex"] == []
    assert "is not a directory" in recalled["personalUnavailable"]
    assert fetched is not None and fetched["outcome"] == "unavailable"
    assert "is not a directory" in fetched["message"]


@pytest.mark.parametrize("mode", MODES)
def test_a_credential_the_saved_text_would_hold_is_refused_before_asking(
        app: Waymarks, store: PersonalStore, mode: str) -> None:
    """The save stores the text with its whitespace runs as one space: a token on the
    line after ``Bearer`` (followed by more words) is no credential as typed, but is one
    as saved. The check read the text as typed, so the person was asked about a save the
    store then refused after their yes."""
    token = "1Ih9B0cR_BNj8dVD" + "~9d0E2Bh_DfwG1rYZezoeyRg"
    person = Person()
    result = remember(app, {"text": f"Log in with Bearer\n{token} on staging"}, person, mode)
    assert result.structured_content == {"outcome": "rejected",
                                         "category": "credential-refused"}
    assert person.asked == [] and store.entries() == []
