"""The subject a follow-up inherits (issue 20 items 2 and 3; EVOLUTION.md items 15, 17).

A store of a few services' claims, through the service on real SQLite, lexical recall:
what an earlier turn said the conversation is about, and what a later turn recalls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from waymarks.recall.plan import plan_query
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed

CLAIMS = {
    "orders_db_port": "The orders PostgreSQL database listens on port 5433 in development.",
    "orders_metrics": "The orders service exposes Prometheus metrics on port 9102.",
    "orders_db": "The orders service uses PostgreSQL 15 as its primary database.",
    "redis_port": "Redis is the session cache for the web gateway; it listens on port 6380.",
    "redis_eviction": "The Redis cache evicts keys with the allkeys-lru policy.",
    "kafka_port": "The Kafka brokers listen on port 9092.",
    "kafka_retention": "Kafka retains order events for 7 days.",
    "gateway_port": "The web gateway listens on port 8080 behind nginx.",
    "helm": "The Helm chart version for the gateway is 2.4.1.",
    "ingestion": "The ingestion service is written in Go 1.22.",
    "invoices": "The invoice renderer turns billing records into PDFs with WeasyPrint.",
}


class Store:
    def __init__(self, app: Waymarks) -> None:
        self.app = app
        self.ids: dict[str, str] = {}
        for name, text in CLAIMS.items():
            self.add(text, name)

    def add(self, text: str, name: str) -> None:
        written = self.app.remember(text)
        assert isinstance(written, Committed), written
        self.ids[written.id] = name

    def recall(self, prompt: str, history: Sequence[str] = ()) -> list[str]:
        return sorted(self.ids[i] for i in self.app.recall(prompt, list(history)).selected)


@pytest.fixture
def store(make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    return Store(make_app())


# -- what the inherited subject is, and how a record is judged against it ---------------


@pytest.mark.parametrize("earlier", ["Let's debug the orders PostgreSQL database",
                                     "I'm investigating the orders PostgreSQL database",
                                     "Switch to the orders PostgreSQL database"])
def test_an_everyday_verb_is_not_part_of_the_inherited_subject(store: Store,
                                                               earlier: str) -> None:
    """"debug" was demanded of every record: the port of the database the conversation is
    about was refused, as it does not say "debug", and nothing was recalled."""
    plan = plan_query("and the port?", [earlier])
    assert plan.reason == "followup"
    assert set(plan.context) == {"w:order", "w:postgresql", "c:database"}
    assert store.recall("and the port?", [earlier]) == ["orders_db_port"]


def test_the_subject_is_judged_by_its_weight_not_by_each_word(store: Store) -> None:
    """"servic" was demanded of the orders database's port, and the concept (database)
    never counted: only the metrics port was recalled. Both name the orders service; no
    other service's port is recalled."""
    chosen = store.recall("and the port?", ["Which database does the orders service use?"])
    assert "orders_db_port" in chosen
    assert set(chosen) <= {"orders_db_port", "orders_metrics"}


@pytest.mark.parametrize("earlier", ["Let's look at the Cassandra orders cluster",
                                     "Let's debug the Cassandra orders"])
def test_a_subject_the_store_does_not_know_still_recalls_nothing(store: Store,
                                                                 earlier: str) -> None:
    """A word no record holds weighs the most: the orders claims are not about it."""
    assert store.recall("and the port?", [earlier]) == []


# -- a name no feature holds stays the subject (EVOLUTION.md item 17) --------------------


@pytest.mark.parametrize(("history", "prompt"), [
    (["What port does Redis use?", "what about Go?"], "and the version?"),
    (["What port does Redis use?", "and in C?"], "and the port?"),
    (["Redis 的端口是多少？", "那 Go 呢？"], "版本呢？"),
    (["What port does Redis use?", "what about Go?", "continue"], "and the port?"),
    (["What port does Redis use?", "what about Go?", "and the version?"], "and the port?"),
    (["what is the C version?"], "and the port?"),
])
def test_a_barrier_lasts_past_the_turn_that_named_it(store: Store, history: list[str],
                                                     prompt: str) -> None:
    """The barrier turn recalled nothing, but the next attribute-only follow-up was a fresh
    query: the Helm chart's version, every service's port. It is about the name still: a
    claim must say it (none of these says Go or C)."""
    plan = plan_query(prompt, history)
    assert plan.names and plan.context == ()
    assert store.recall(prompt, history) == []


def test_a_follow_up_of_a_barrier_finds_a_claim_that_says_the_name(
        make_app: Callable[..., Waymarks], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WAYMARKS_SEMANTIC", "off")
    app = make_app()
    for text in ("The Go toolchain version is 1.22.", "The Helm chart version is 2.4.1."):
        assert isinstance(app.remember(text), Committed)
    history = ["What port does Redis use?", "what about Go?"]
    chosen = [s.candidate.text for s in app.recall("and the version?", history).eligible]
    assert chosen == ["The Go toolchain version is 1.22."]


def test_a_new_subject_after_a_barrier_stands_alone(store: Store) -> None:
    history = ["What port does Redis use?", "what about Go?"]
    assert plan_query("and the Kafka port?", history).names == frozenset()
    assert store.recall("and the Kafka port?", history) == ["kafka_port"]


# -- a facet question keeps the subject it followed --------------------------------------


@pytest.mark.parametrize("history", [
    ["Let's look at the Redis cache today", "what is the eviction policy?"],
    ["Let's look at the Redis cache today", "what is the eviction policy?", "continue"],
    ["Let's look at the Redis cache today", "what is the eviction policy?", "and the version?"],
])
def test_a_facet_question_keeps_the_subject_it_followed(store: Store,
                                                        history: list[str]) -> None:
    """"what is the eviction policy?" replaced the subject (evict, polici), and "and the
    port?" then recalled nothing: the claim saying the eviction policy is the Redis
    cache's, so the Redis cache is still what the conversation is about."""
    assert store.recall("and the port?", history) == ["redis_port"]


@pytest.mark.parametrize("new", ["Kafka brokers", "what about the Kafka brokers?"])
def test_a_new_subject_is_no_facet_of_the_one_before(store: Store, new: str) -> None:
    """No claim about the Kafka brokers is about the Redis cache: Kafka alone."""
    assert store.recall("and the port?", ["Let's look at the Redis cache today", new]) == [
        "kafka_port"]


# -- a verb asking for the port is part of it -------------------------------------------


@pytest.mark.parametrize("prompt", ["what port does it listen on?",
                                    "which port does it bind to?"])
def test_a_verb_asking_for_the_port_is_no_new_subject(store: Store, prompt: str) -> None:
    """"listen" was a new word beside the cue, so the turn stood alone: every service's
    port. It asks the port of the subject the conversation has; a claim saying the port
    without the verb answers it."""
    store.add("The Redis cache port is 6380.", "the added claim")
    history = ["I am fixing a bug in the Redis cache"]
    plan = plan_query(prompt, history)
    assert (plan.reason, plan.focus, set(plan.context)) == (
        "followup", ("c:port",), {"w:redi", "c:cache"})
    assert store.recall(prompt, history) == ["redis_port", "the added claim"]



def test_a_subject_from_turns_back_does_not_outrank_a_new_topic(store: Store) -> None:
    """A claim about the orders service and the Redis cache made the Redis cache the
    parent of "Which database does the orders service use?", and "and the port?" recalled
    the Redis cache's port beside the orders database's. The orders database's port
    answers it: the Redis cache stays out. A later subject forgets the Redis cache."""
    store.add("The orders service caches product lookups in the Redis cache.", "bridge")
    history = ["Tell me about the Redis cache", "Which database does the orders service use?"]
    chosen = store.recall("and the port?", history)
    assert "orders_db_port" in chosen
    assert set(chosen) <= {"orders_db_port", "orders_metrics"}
    later = [*history, "and the port?", "Tell me about the Kafka brokers"]
    assert plan_query("and the port?", later).parent == ("c:database", "w:order", "w:servic")
    assert store.recall("and the port?", later) == ["kafka_port"]


@pytest.mark.parametrize("earlier", ["Tell me about the review service",
                                     "Let's look at the review service"])
def test_a_noun_among_the_everyday_verbs_still_names_the_subject(store: Store,
                                                                 earlier: str) -> None:
    """"review" was left out as an everyday verb, and "service" alone was the subject:
    "and the port?" recalled every service's port."""
    store.add("The review service listens on port 9100.", "review_port")
    assert set(plan_query("and the port?", [earlier]).context) == {"w:review", "w:servic"}
    assert store.recall("and the port?", [earlier]) == ["review_port"]


def test_a_rare_word_alone_does_not_make_a_sibling_the_subject(store: Store) -> None:
    """"payment" held more than 60 % of the subject's weight, so the payments MySQL
    database was taken for the payments service (in a store of many services) and its
    port recalled too. A record must
    be about the kind of thing the subject names (service) as well."""
    store.add("The payments service listens on port 8443.", "payments_port")
    store.add("The MySQL database for payments listens on port 3306.", "payments_db")
    for name in ("search", "mail", "audit", "billing", "catalog", "shipping"):
        store.add(f"The {name} service is owned by the platform team.", name)
    earlier = ["Let's debug the payments service"]
    assert store.recall("and the port?", earlier) == ["payments_port"]
