"""Two actions done to one thing, written through the service (real session files, real
SQLite): "The release artifacts are signed with cosign." beside "The release artifacts are
written to dist." (pair 807 of the fixture set) and "The billing service is written in
Go." beside "The billing service is owned by Alice." were refused by the replay rule's
shared derived key ("release artifacts", "billing service": ``X is Y``), though each
states what is done to the thing by another verb. The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed, Rejected

if TYPE_CHECKING:
    from collections.abc import Callable


@pytest.mark.parametrize(("first", "second"), [
    ("The release artifacts are written to dist.",
     "The release artifacts are signed with cosign."),
    ("The billing service is owned by Alice.", "The billing service is written in Go."),
    ("The nightly backups are encrypted with age.", "The nightly backups are stored in S3."),
])
def test_another_verb_done_to_the_thing_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The release artifacts are written to dist.", "The release artifacts are written to build."),
    ("The billing service is owned by Alice.", "The billing service is owned by Bob."),
    ("The release artifacts are signed with cosign.", "The release artifacts are not signed."),
])
def test_the_same_verb_or_where_a_thing_goes_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The config file is at /etc/app/config.yaml.", "The config file is reloaded on SIGHUP."),
    ("The config file is reloaded on SIGHUP.", "The config file is at /etc/app/config.yaml."),
    ("The API port is 8080.", "The API port is blocked by the firewall."),
])
def test_a_verb_done_to_the_thing_beside_a_value_of_it_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """One claim states a value of the thing, the other what is done to it and no value:
    the replay rule's derived key ("config file") refused the second as a conflict."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Redis is at cache.internal.", "Redis is replaced by Valkey."),
    ("The config file is at /etc/app/config.yaml.", "The config file is at /opt/app/config.yaml."),
])
def test_a_verb_that_replaces_the_thing_or_another_value_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Redis is used for sessions.", "Redis is used for rate limiting too."),
    ("Redis is used as the cache.", "Redis is used as the queue."),
    ("The billing API is called by the CLI.", "The billing API is called by the scheduler."),
])
def test_a_verb_whose_objects_add_up_with_another_object_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """A thing used for one purpose may be used for another: the replay rule's derived key
    ("redis") refused the second use as a conflict."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Redis is used for sessions only.", "Redis is used for caching."),
    ("Redis is used for sessions.", "Redis is used exclusively for caching."),
    ("Redis is used for sessions.", "Redis is not used for sessions."),
])
def test_the_only_use_or_its_negation_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The default branch is main.", "The default branch is protected."),
    ("The default branch is protected.", "The default branch is main."),
    ("The deploy region is us-east-1.", "The deploy region is locked."),
    ("The merge strategy is squash.", "The merge strategy is enforced."),
    ("The default branch is main.", "The default branch is not protected."),
])
def test_a_participle_said_of_a_thing_beside_its_word_value_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"protected" after an attribute whose values are words was read as the branch's
    name, another value than "main": what is done to the thing, not which one it is."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The default branch is main.", "The default branch is master."),
    ("The default branch is main.", "The default branch is renamed."),
    ("The default branch is protected.", "The default branch is unprotected."),
])
def test_another_word_value_a_renaming_or_the_other_participle_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Redis is used for sessions.", "Redis is used for rate limiting too."),
    ("The release artifacts are written to dist.",
     "The release artifacts are signed with cosign."),
    ("The config file is at /etc/app/config.yaml.", "The config file is reloaded on SIGHUP."),
    ("The default branch is main.", "The default branch is protected."),
])
@pytest.mark.parametrize("scopes", [("project", None), (None, "project")])
def test_two_things_done_to_it_are_two_facts_across_scopes(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]], first: str, second: str,
        scopes: tuple[str | None, str | None]) -> None:
    """A project claim and a session claim of one session: kept apart in one scope, the
    second was refused in the other by the derived key they share, which replay never
    compares across scopes."""
    app, _ = two_sessions()
    written = app.remember(first, scope=scopes[0])
    assert isinstance(written, Committed), written
    second_written = app.remember(second, scope=scopes[1])
    assert isinstance(second_written, Committed), second_written


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Redis is used for sessions.", "Redis is not used for sessions."),
    ("Redis is at cache.internal.", "Redis is replaced by Valkey."),
    ("The default branch is main.", "The default branch is renamed."),
])
def test_a_negation_or_a_replacement_still_contradicts_across_scopes(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]], first: str,
        contradicting: str) -> None:
    app, _ = two_sessions()
    written = app.remember(first, scope="project")
    assert isinstance(written, Committed), written
    refused = app.remember(contradicting)
    assert isinstance(refused, Rejected) and refused.code == "conflict", refused
    assert refused.conflicts == (written.id,)


@pytest.mark.parametrize(("first", "second"), [
    ("Dark mode is enabled.", "Dark mode is the default theme."),
    ("Dark mode is the default theme.", "Dark mode is enabled."),
    ("Maintenance mode is disabled.", "Maintenance mode is an admin-only switch."),
])
def test_what_a_thing_is_beside_whether_it_is_on_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"Dark mode is the default theme." states no value, and the replay rule's derived key
    ("dark mode") refused it beside the state: what a thing is, no other state of it."""
    _written(app, first)
    _written(app, second)


def test_what_a_thing_is_beside_its_state_across_scopes(
        two_sessions: Callable[[], tuple[Waymarks, Waymarks]]) -> None:
    app, _ = two_sessions()
    assert isinstance(app.remember("Dark mode is enabled.", scope="project"), Committed)
    _written(app, "Dark mode is the default theme.")


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Dark mode is enabled.", "Dark mode is disabled."),
    ("Dark mode is enabled.", "Dark mode is not the default theme."),
])
def test_the_other_state_or_a_denied_description_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Feature branches are deleted after merge.", "Feature branches are named feat/<topic>."),
    ("Feature branches are named feat/<topic>.", "Feature branches are deleted after merge."),
    ("Preview deployments are removed once the PR closes.",
     "Preview deployments are at preview.example.com."),
])
def test_a_rule_of_when_a_thing_ends_beside_a_value_of_it_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"deleted" ends the thing ("Redis is replaced by Valkey." contradicts its address),
    but "deleted after merge" is a rule of its life, no end of it now: refused by the
    replay rule's derived key ("feature branches") beside how it is named."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Feature branches are deleted after merge.", "Feature branches are kept after merge."),
    ("Feature branches are deleted after merge.",
     "Feature branches are not deleted after merge."),
])
def test_another_rule_of_when_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The status page is at status.example.com.", "The status page is public."),
    ("The status page is public.", "The status page is at status.example.com."),
    ("The docs are at https://docs.example.com.", "The docs are stale."),
])
def test_what_a_thing_is_like_beside_where_it_is_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"The status page is public." states no value, and the replay rule's derived key
    ("status page") refused it beside the page's address."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The status page is public.", "The status page is private."),
    ("The base URL is https://api.example.com.", "The base URL is unset."),
    ("The base URL is https://api.example.com.", "The base URL is empty."),
])
def test_another_quality_or_no_value_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The API listens on port 8080.", "The API also listens on port 9090."),
    ("The API listens on port 8080.", "The API listens on port 9090 as well."),
    ("The docs are hosted on Netlify.", "The docs are also hosted on Vercel."),
    ("API 监听端口 8080。", "API 也监听端口 9090。"),
    ("流水线部署到 staging。", "流水线也部署到 production。"),
])
def test_a_value_said_to_be_one_more_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """"also", "too", "as well", 也: the claim adds a value to what holds (a pipeline that
    deploys to staging and, in Chinese, "also" to production was refused)."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The API listens on port 8080.", "The API listens on port 9090."),
    ("流水线部署到 staging。", "流水线部署到 production。"),
    ("The API listens on port 8080.", "The API also does not listen on port 8080."),
    ("Dark mode is enabled.", "Dark mode is also disabled."),
    ("数据库端口还是 5432。", "数据库端口是 5433。"),
])
def test_another_value_a_denial_or_another_state_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The API port is 8080.", "The API port is not blocked by the firewall."),
    ("The API port is not blocked by the firewall.", "The API port is 8080."),
    ("The config file is at /etc/app/config.yaml.", "The config file is not reloaded on SIGHUP."),
])
def test_a_verb_not_done_to_the_thing_beside_a_value_of_it_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """What is not done to the thing is no other value of it, as what is done is not: the
    replay rule's derived key ("api port") refused it beside the port."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The API port is blocked by the firewall.", "The API port is not blocked by the firewall."),
    ("The release artifacts are signed with cosign.",
     "The release artifacts are not signed with cosign."),
])
def test_a_verb_and_its_denial_still_contradict(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("Test fixtures are in tests/fixtures.",
     "Test fixtures are generated by scripts/gen_fixtures.py."),
    ("Test fixtures are generated by scripts/gen_fixtures.py.",
     "Test fixtures are in tests/fixtures."),
    ("The config file is at /etc/app/config.yaml.",
     "The config file is rendered by scripts/render.sh."),
])
def test_what_makes_a_thing_beside_where_it_is_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    """The script that generates the fixtures was read as another place of them."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("Test fixtures are in tests/fixtures.", "Test fixtures are in tests/data."),
    ("Test fixtures are generated by scripts/gen_fixtures.py.",
     "Test fixtures are generated by scripts/make_fixtures.py."),
    ("Redis is at cache.internal.", "Redis is replaced by Valkey."),
])
def test_another_place_another_maker_or_a_replacement_still_contradicts(
        app: Waymarks, first: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
