"""Two words joined by a slash are no path (issue 20): "and/or", "w/o", "CI/CD" or
"TCP/IP" in a prompt was taken for a path literal that a record must hold, and no record
holds "and/or", so such a prompt recalled nothing at all. A folder typed in lower case
("src/checkout") stays a literal."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks

CLAIMS = [
    "Cache invalidation runs on every deploy.",
    "The CI pipeline runs on GitHub Actions runners.",
    "Release builds need a signed tag.",
]


@pytest.mark.parametrize(("query", "claim"), [
    ("does cache invalidation run on deploy and/or restart?", CLAIMS[0]),
    ("cache invalidation w/o a deploy?", CLAIMS[0]),
    ("which runners does the CI/CD pipeline use?", CLAIMS[1]),
])
def test_a_prompt_with_slash_joined_words_recalls_its_claim(
        app: Waymarks, query: str, claim: str) -> None:
    ids = {app.remember(c).id: c for c in CLAIMS}  # type: ignore[union-attr]
    result = app.recall(query)
    assert not result.plan.literals
    assert [ids[i] for i in result.selected] == [claim]


@pytest.mark.parametrize(("text", "words"), [
    ("deploy and/or restart", ("c:deploy", "w:restart")),
    ("CI/CD pipeline", ("w:ci", "w:cd", "w:pipelin")),
    ("TCP/IP stack", ("w:tcp", "w:ip", "w:stack")),
    ("y/n prompt", ("w:prompt",)),
])
def test_slash_joined_words_are_words(text: str, words: tuple[str, ...]) -> None:
    found = analyze(text, query=True)
    assert found.features == words and not found.literals


@pytest.mark.parametrize(("text", "folder"), [
    ("src/checkout", "src/checkout"), ("what is in src/app?", "src/app"),
    ("docs/adr", "docs/adr"), ("Src/App holds the routes", "src/app")])
def test_a_folder_stays_a_literal(text: str, folder: str) -> None:
    assert analyze(text, query=True).literals == {"p:" + folder}


def test_a_chinese_prompt_with_a_slash_is_no_path(app: Waymarks) -> None:
    """Chinese is typed with no space, so the path expression took the whole sentence
    around a slash ("数据库/缓存的端口是多少？", "the database/cache port?") for one path
    literal, and the prompt recalled nothing."""
    assert not analyze("数据库/缓存的端口是多少？", query=True).literals
    assert analyze("数据库/缓存/队列", query=True).features == (
        "c:database", "c:cache", "w:队列")
    assert analyze("文档/设计.md", query=True).literals == {"p:文档/设计.md"}
    port = app.remember("数据库端口是 5433。").id  # type: ignore[union-attr]
    app.remember("缓存每天凌晨清空。")
    assert port in app.recall("数据库/缓存的端口是多少？").selected


@pytest.mark.parametrize(("claim", "query"), [
    ("CI/CD runs on GitHub Actions with a deploy job per environment.",
     "how is our ci/cd set up?"),
    ("our ci/cd runs on buildkite with one deploy step per region.",
     "how is our CI/CD set up?"),
    ("Routes live in src/app and each route has a test.", "which routes live in SRC/APP?"),
])
def test_two_words_typed_in_another_case_recall_their_claim(
        app: Waymarks, claim: str, query: str) -> None:
    """A query reads two slash-joined words by how they are typed (capitals: words, lower
    case: a folder that must be held). A claim typed the other way held only the other
    reading ("CI/CD" its words, "ci/cd" its path), so "ci/cd" missed "CI/CD" and "SRC/APP"
    "src/app": a claim holds such a pair both ways."""
    wanted = app.remember(claim).id  # type: ignore[union-attr]
    app.remember("The database port is 5433.")
    assert app.recall(query).selected == [wanted]


def test_a_claim_holds_a_case_read_pair_both_ways() -> None:
    assert {"p:ci/cd", "w:ci", "w:cd"} <= set(analyze("CI/CD runs nightly").features)
    assert {"p:src/app", "w:src", "w:app"} <= set(analyze("src/app holds it").features)
    assert analyze("src/app holds it", query=True).literals == {"p:src/app"}
    assert "p:and/or" not in analyze("deploy and/or restart").features
    assert not {"w:src", "w:checkout"} & set(analyze("src/checkout/app.py").features)


@pytest.mark.parametrize(("text", "literal"), [
    ("数据库配置在db/config.toml里吗？", "p:db/config.toml"),
    ("文档/设计.md的第二节讲什么？", "p:文档/设计.md"),
    ("请看config.toml", "f:config.toml"),
    ("文档/设计.md", "p:文档/设计.md"),
    ("配置在./src/app.py", "p:src/app.py"),
    ("ポートはdb/config.tomlのどこ？", "p:db/config.toml"),
    ("설정은db/config.toml에", "p:db/config.toml"),
])
def test_a_path_typed_against_chinese_is_the_path_alone(text: str, literal: str) -> None:
    """Chinese is typed with no space, so a path typed against it ran over the sentence
    around it ("数据库配置在db/config.toml里吗？", "is the database config in
    db/config.toml?"): one literal that no record holds, and the prompt recalled nothing.
    The Chinese on either side of an ASCII path is words."""
    found = analyze(text, query=True)
    assert found.literals == {literal}


def test_a_chinese_prompt_naming_a_file_recalls_its_claim(
        app: Waymarks) -> None:
    config = app.remember("数据库的配置在 db/config.toml，端口是 5433。").id  # type: ignore[union-attr]
    design = app.remember("设计文档在 文档/设计.md，第二节讲缓存。").id  # type: ignore[union-attr]
    app.remember("The cache TTL is 60 seconds.")
    assert app.recall("数据库配置在db/config.toml吗？").selected == [config]
    assert app.recall("文档/设计.md的第二节讲什么？").selected == [design]


@pytest.mark.parametrize("query", [
    "how do the frontend/backend talk?", "frontend/backend", "which port do frontend/backend use?"])
def test_two_lower_case_words_recall_the_claim_that_says_them_apart(
        app: Waymarks, query: str) -> None:
    """Two lower-case words joined by a slash are read as a folder in a query, a literal
    a record must hold; no claim saying "the frontend ... the backend" holds the path
    "frontend/backend", so such a query recalled nothing. Where no record holds the pair
    as a path, its words stand in for it; where one does, it is a folder, and a claim
    holding only its words is not recalled by it (below)."""
    wanted = app.remember(  # type: ignore[union-attr]
        "The frontend talks to the backend through the gateway on port 8080.").id
    app.remember("The database port is 5433.")
    app.remember("Logs rotate daily at midnight.")
    assert app.recall(query).selected == [wanted]


def test_a_folder_a_claim_holds_is_still_a_literal(app: Waymarks) -> None:
    folder = app.remember("The app entry point is in src/app.").id  # type: ignore[union-attr]
    app.remember("The src folder has an app for the admin team.")
    assert app.recall("what is in src/app?").selected == [folder]
    # the folder's words alone, typed apart, still find the other claim
    assert folder not in app.recall("which admin app is in the src folder?").selected


@pytest.mark.parametrize(("claim", "query"), [
    ("Settings are read from config/app.toml at start.", "what reads ./config/app.toml?"),
    ("Settings are read from ./config/app.toml at start.", "what reads config/app.toml?"),
])
def test_a_leading_dot_slash_is_no_part_of_the_path(
        app: Waymarks, claim: str, query: str) -> None:
    """"./config/app.toml" and "config/app.toml" are one file: typed one way in the claim
    and the other in the query, they were two literals and the query recalled nothing."""
    assert analyze("./config/app.toml", query=True).literals == {"p:config/app.toml"}
    assert analyze("../config/app.toml", query=True).literals == {"p:../config/app.toml"}
    wanted = app.remember(claim).id  # type: ignore[union-attr]
    app.remember("The database port is 5433.")
    assert app.recall(query).selected == [wanted]


@pytest.mark.parametrize(("claim", "query"), [
    ("Config lives in src/app/config.py and is read once.", "who reads app/config.py?"),
    ("Deploy reads /srv/billing/settings.toml at start.", "when is billing/settings.toml read?"),
    ("Deploy reads /srv/billing/settings.toml at start.", "what reads srv/billing/settings.toml?"),
])
def test_a_path_is_found_by_the_path_it_ends_with(
        app: Waymarks, claim: str, query: str) -> None:
    """A person types a path from the folder they think in: a claim naming
    src/app/config.py held that literal alone, and "app/config.py" was another one, so
    the query recalled nothing. A claim's path is held as the paths it ends with too;
    a query's path is still one literal the claim must hold."""
    wanted = app.remember(claim).id  # type: ignore[union-attr]
    other = app.remember("Tests read lib/web/config.py for fixtures.").id  # type: ignore[union-attr]
    selected = app.recall(query).selected
    assert selected == [wanted]
    # another folder's file of the same name is another path
    assert other not in app.recall("who reads src/app/config.py?").selected


def test_a_path_ending_in_the_pair_does_not_make_it_a_folder(app: Waymarks) -> None:
    """A claim holds its path as the shorter paths it ends with too, and the pair a
    query types ("frontend/backend") was one of them: "attic/frontend/backend" in one
    claim made the pair a folder the store holds, so the claim saying the frontend talks
    to the backend was never recalled by it, the archived folder was. A longer path
    ends in such a pair as its two words (a folder typed "src/app" still finds
    "packages/web/src/app"); a claim holding the pair as a path of its own still makes
    it a folder (above)."""
    talks = app.remember(  # type: ignore[union-attr]
        "The frontend talks to the backend through the gateway on port 8080.").id
    app.remember("Old prototypes are archived under attic/frontend/backend for reference.")
    app.remember("The database port is 5433.")
    assert talks in app.recall("which port do frontend/backend use?").selected
    assert talks in app.recall("how do the frontend/backend talk?").selected
    routes = app.remember("Routes live in packages/web/src/app.").id  # type: ignore[union-attr]
    assert app.recall("what lives in src/app?").selected == [routes]
    assert {"p:packages/web/src/app", "p:web/src/app", "w:src", "w:app"} <= set(
        analyze("Routes live in packages/web/src/app.").features)
    assert "p:src/app" not in analyze("Routes live in packages/web/src/app.").features
