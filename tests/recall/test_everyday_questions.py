"""Everyday questions of a project store (:mod:`tests.recall.everyday_store`): each asked
question recalls a claim that answers it and no other subject's claim, and a question
about a subject no claim is about recalls nothing (issue 20: "how do I restart the
worker?" recalled the inventory's and the gateway's restart, "which service uses port
2000?" every other service's port)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import pytest

from tests.recall.everyday_store import Everyday
from waymarks.recall.analysis import analyze, says_value
from waymarks.service.app import Waymarks

#: question -> what each claim it recalls holds (one of them), at least one recalled
ANSWERED: Final = {
    "where is the auth service?": ("auth service", "Auth ", "auth config"),
    "which service uses port 2000?": ("Port 2000",),
    "what port does billing listen on?": ("billing service listens",),
    "how do I restart billing?": ("Restart billing",),
    "which python version does billing use?": ("Billing runs on Python",),
    "where does the billing config live?": ("billing config lives",),
    "what port does the auth service use?": ("auth service listens",),
    "how do I restart auth?": ("Restart auth",),
    "where is the auth config?": ("auth config lives",),
    "which go version is auth on?": ("Auth is written in Go",),
    "who owns the auth service?": ("owns the auth",),
    "how do I create a service account?": ("Service accounts are created",),
    "what port does search listen on?": ("search service listens",),
    "how do I reindex search?": ("Reindex search",),
    "where is the search config?": ("search config lives", "synonyms"),
    "how do I restart search?": ("Restart search",),
    "what port is the gateway on?": ("gateway listens", "admin interface"),
    "where does the gateway config live?": ("gateway config lives", "ratelimit.yaml"),
    "how do I restart the gateway?": ("Restart the gateway",),
    "what is the gateway timeout?": ("gateway timeout",),
    "which node version does notifications use?": ("Notifications runs on Node",),
    "what port does the inventory service use?": ("inventory service listens",),
    "which java version does inventory use?": ("Inventory is written in Java",),
    "which port does the frontend dev server use?": ("frontend dev server", "Storybook"),
    "how do I restart the mailer?": ("Restart the mailer",),
    "which ruby version does the mailer use?": ("mailer runs on Ruby",),
    "where is the scheduler config?": ("scheduler config lives",),
    "which python version does the scheduler use?": ("scheduler uses Python",),
    "what port does payments listen on?": ("payments service listens",),
    # a word the store never saw that no article introduces: a verb, not a subject
    "what port does billing expose?": ("billing service listens", "billing database"),
    "what is the default branch?": ("default branch",),
    "where are the kubernetes manifests?": ("Kubernetes manifests",),
    "how do I run database migrations?": ("Database migrations are run",),
    "where does the SOAP bridge config live?": ("SOAP bridge config",),
    "where do the billing migrations live?": ("billing migrations",),
    # a kind named by a word: another of that kind is no answer, either named is one
    "what is the search cache TTL?": ("Search results are cached",),
    "what port do the billing service and the auth service use?": (
        "billing service listens", "auth service listens"),
    # two clauses, each asking an attribute of the one subject: a claim answering either
    # answers (each was refused for not saying the other, and nothing was recalled)
    "what port does billing use and where is its config?": (
        "billing service listens", "billing config lives", "billing database"),
    "which port does the gateway use, and where do its logs go?": (
        "gateway listens", "admin interface", "Gateway access logs"),
    # a port said as a one-word host's, a compose service's ("kafka:9092")
    "what port does kafka use?": ("Kafka 3.6",),
    "what port is clickhouse on?": ("ClickHouse",),
    "which port does elasticsearch use?": ("Elasticsearch",),
    "what port does the auth redis use?": ("redis-auth",),
    "mysql port?": ("mysql-inv",),
    # "how long … last?" asks a duration, which no record says by those words
    "how long do auth sessions last?": ("Auth sessions expire",),
    "how long does the search cache last?": ("Search results are cached",),
    # a word typed as two ("on call" is "on-call", not "upstream calls")
    "who is on call?": ("on-call rotation",),
    "who is oncall?": ("on-call rotation",),
    # a leading condition is said before the question, not asked ("the build" is no
    # answer to who owns the frontend), and what it names is what "it" stands for
    "When the build breaks, who owns the frontend?": ("Ana Costa owns",),
    "When the deploy fails, who owns the gateway?": ("Tom Becker owns",),
    "If search is down, how do I restart it?": ("Restart search",),
    "When the cache expires, what does CI reinstall?": ("CI reinstalls",),
    # the owner is who owns a thing and who maintains it (the owner's claim says "owns")
    "who maintains the gateway?": ("Tom Becker owns",),
    "who's the owner of the mailer?": ("Chen Wei owns",),
    "who maintains billing?": ("Maria Santos owns",),
    "who owns the auth service and where is its config?": ("Kenji", "auth config lives"),
    # whom to ask about a thing is its owner, and "talk" is not the question's verb
    "who should I ask about inventory?": ("Omar Haddad owns",),
    "who do I talk to about notifications?": ("Priya Nair owns",),
    "who can we contact about billing?": ("Maria Santos owns",),
    "who is responsible for the scheduler?": ("Sofia Rossi owns",),
    "who's in charge of payments?": ("David Kim owns",),
    # the present a question closes with is when it is asked, no word a claim must say
    "who is on call this week?": ("on-call rotation",),
    "who owns the gateway right now?": ("Tom Becker owns",),
    # the linter is what is run to lint ("Use `make lint` before pushing.")
    "how do I run the linter?": ("make lint",),
    "which linter should I run before pushing?": ("make lint",),
    # who does a thing to billing, not what billing does ("Billing owns the Stripe webhook")
    "who owns billing?": ("Maria Santos owns",),
    "who owns the billing service?": ("Maria Santos owns",),
    "who owns the stripe webhook?": ("Billing owns the Stripe webhook",),
    # a thing of software work deploys or runs by itself: no inverse of the question
    "who deploys search?": ("Search deploys every Tuesday",),
    "who runs the analytics ETL?": ("analytics ETL runs hourly",),
    # the verb of being on call, not "Cloudflare Pages" nor a login page
    "who gets paged?": ("on-call rotation",),
    # a URL said by one written out
    "what's the grafana url?": ("Grafana is at",),
    "what is the staging url?": ("Staging is at",),
    # a major version alone after the name ("Node 20", "Redis 7")
    "which node version?": ("Node 20",),
    "which java version?": ("Java 21",),
    "which redis version?": ("Redis 7",),
    "which react version?": ("React 18",),
}

#: questions about a subject no claim is about (a kind of thing named by nothing else,
#: or a name the store holds no claim about)
UNSTORED: Final = (
    "which python version does the worker use?",
    "where does the tracker config live?",
    "what port does the tracker listen on?",
    "how do I run the tracker tests?",
    "where does the queue config live?",
    "where are the worker logs?",
    "what port does the ledger service use?",
    "how do I restart the cron daemon?",
    "how do I restart the proxy?",
    "which node version does the admin panel use?",
    # claims naming such a kind only as what another thing is ("the worker pool", "the
    # bug tracker export script"), and nothing asked of it
    "how do I restart the worker?",
    "how do I deploy the worker?",
    "what database does the worker use?",
    "how do I run the worker tests?",
    "who owns the tracker?",
    # a claim naming the thing and no owner says nothing of who owns it
    "who owns the worker pool?",
    "who maintains the bug tracker export script?",
    "how do I deploy the tracker?",
    # a name the store never saw, introduced by an article: two other words matched
    "which python version does the crawler use?",
    "what version of python does the importer run?",
    # a thing named by a verb and "-er" is not the verb ("The bug tracker export script")
    "what is the billing url?",
    "what does the metrics exporter do?",
    "which package manager does billing use?",
)


def _asked(everyday: Everyday, questions: Sequence[str] | dict[str, object]
           ) -> dict[str, list[str]]:
    """The claims of the everyday store each question recalls, as their texts."""
    return everyday.asked(questions)


def test_each_everyday_question_recalls_its_answer_and_no_other_subject(everyday: Everyday) -> None:
    recalled = _asked(everyday, ANSWERED)
    wrong = {question: texts for question, texts in recalled.items()
             if not texts or any(not any(part in text for part in ANSWERED[question])
                                 for text in texts)}
    assert wrong == {}


def test_a_subject_no_claim_is_about_recalls_nothing(everyday: Everyday) -> None:
    assert {q: texts for q, texts in _asked(everyday, UNSTORED).items() if texts} == {}


def test_the_auth_service_is_the_claims_about_auth(app: Waymarks) -> None:
    """Claims about "auth" that never say "service", beside the service accounts' and
    another service's: "where is the auth service?" recalled nothing (the kind,
    "service", was taken for the name, "auth" for an attribute asked of it)."""
    claims = ["Auth runs on port 9000.", "The auth config lives in deploy/auth/config.yaml.",
              "Service accounts are created with scripts/make-service-account.sh.",
              "Service accounts for CI live in the ci-bots group.",
              "The billing service listens on port 8041."]
    ids = [app.remember(claim).id for claim in claims]  # type: ignore[union-attr]
    assert sorted(app.recall("where is the auth service?").selected) == sorted(ids[:2])
    assert app.recall("what port does the auth service use?").selected == [ids[0]]


@pytest.mark.parametrize(("text", "port"), [
    ("The message bus is Kafka 3.6 on kafka:9092.", True),
    ("Connect to postgres://db:5432/app.", True),
    ("CI runs the postgres:16-alpine image.", False),  # an image tag
    ("Build on node:20 and ubuntu:22.04.", False),
    ("Tag the image app:1234-beta.", False),
    ("Standup is at 10:30.", False),
])
def test_a_one_word_hosts_port_is_a_port_and_an_image_tag_none(text: str, port: bool) -> None:
    assert says_value("c:port", text, frozenset()) is port


@pytest.mark.parametrize(("text", "version"), [
    ("The worker runs on Node 20.", True),
    ("Build on node@20.", True),
    ("Node 20.11 is pinned.", True),
    ("Node 20 minutes is the build's budget.", False),  # a duration
    ("Node 2048 MB heap.", False),  # a size, and four digits
    ("Node at 10:00 every day.", False),  # a clock time
])
def test_a_whole_number_after_the_name_is_its_major_version(text: str, version: bool) -> None:
    assert says_value("c:version", text, frozenset({"w:node"})) is version


@pytest.mark.parametrize("run", ["a-" * 100_000, "a." * 100_000, "a" * 200_000])
def test_a_long_run_of_host_characters_is_read_once(run: str) -> None:
    """A port or a version is read in a 0.2 MB run of word characters, hyphens or dots
    (a pasted log, a compacted turn: no cap) in one pass: the host and the name were
    tried from every word start, each scanning the rest of the run (20 KB: 7 s and 4 s,
    so this took hours)."""
    assert says_value("c:port", run, frozenset()) is False
    assert says_value("c:port", f"{run} kafka:9092", frozenset()) is True
    assert says_value("c:version", run, frozenset({"w:python"})) is False
    assert says_value("c:version", f"{run} Python 3.12", frozenset({"w:python"})) is True


@pytest.mark.parametrize("question", [
    "Which package manager should I use for this repository?",
    "which package manager does the repo use?",
    "what package manager does this project use?",
])
def test_the_repository_worked_in_is_no_name_a_claim_must_say(app: Waymarks,
                                                               question: str) -> None:
    """"this repository" points at the repository at hand, and "the repo" is the one
    worked in, which project memory is about as a whole: the package manager's claim
    answers (it was refused, "does not name repositori"; found by the real Pi learning
    test on the merged main), while a name the store never saw still is no answer."""
    claim = app.remember("Use pnpm as the package manager, not npm.").id  # type: ignore[union-attr]
    app.remember("The billing service listens on port 8041.")
    assert app.recall(question).selected == [claim]
    assert app.recall("which package manager does the crawler use?").selected == []


#: (turn before, question, what the one claim recalled holds)
def _asked_after(everyday: Everyday, before: str, answers: dict[str, str]) -> None:
    """Each question, asked after ``before`` of the everyday store, recalls one claim,
    which holds its answer."""
    recalled = everyday.asked(answers, [before])
    assert {q: r for q, r in recalled.items() if len(r) != 1 or answers[q] not in r[0]} == {}


@pytest.mark.parametrize("question", ["and the port?", "what port does it use?"])
def test_a_follow_up_of_a_thing_named_by_an_attribute_word_is_about_it(
        everyday: Everyday, question: str) -> None:
    """"and the port?" after "the auth service" recalled the payments', the analytics'
    and the inventory service's ports, not the auth service's: "auth" is an attribute
    word, left out of the subject a follow-up inherits, which was "service" alone."""
    _asked_after(everyday, "the auth service", {question: "auth service listens"})


def test_another_thing_the_subjects_word_names_is_not_the_subject(everyday: Everyday) -> None:
    """A claim naming the subject's word with another thing ("The search index is
    Elasticsearch 8.11 on es-search:9200.") is not about the search service, though a
    claim saying the search's own config without the kind is."""
    _asked_after(everyday, "the search service", {"and the port?": "search service listens"})


#: (turn before, follow-up asking a generic attribute, what the one claim recalled holds)
GENERIC_FOLLOW_UPS: Final = (
    ("let's look at billing", "and the config?", "billing config lives"),
    ("let's look at billing", "where is the config?", "billing config lives"),
    ("the gateway", "what is its config?", "gateway config lives"),
    # a subject named with its kind, the claim naming it without ("The search config
    # lives in …"): the search's config all the same (it recalled nothing)
    ("the search service", "where is its config?", "search config lives"),
    ("the auth service", "and the config?", "auth config lives"),
)


@pytest.mark.parametrize(("before", "question", "answer"), GENERIC_FOLLOW_UPS)
def test_a_generic_follow_up_is_asked_of_the_inherited_subject(
        everyday: Everyday, before: str, question: str, answer: str) -> None:
    """"and the config?" after "let's look at billing" recalled nothing: "config" is a
    generic word, and a claim matching only such words was refused, though it is about
    the subject the follow-up inherited."""
    _asked_after(everyday, before, {question: answer})
    assert everyday.app.recall("where is the config?").selected == []  # no subject: as before
    # a subject of a kind alone names no thing: "Node services use ESLint with the
    # airbnb config." is no config of "the services"
    assert everyday.app.recall(question, ["tell me about the services"]).selected == []


PRONOUN_FOLLOW_UPS: Final = (
    ("let's look at the search service", "restart it", "Restart search"),
    ("the search service keeps crashing", "and how do I restart it?", "Restart search"),
    ("I'm working on billing", "how do I deploy it?", "Billing deploys"),
)


@pytest.mark.parametrize(("before", "question", "answer"), PRONOUN_FOLLOW_UPS)
def test_a_pronoun_is_the_thing_the_turn_before_named(everyday: Everyday, before: str,
                                                      question: str, answer: str) -> None:
    """"restart it" after a turn naming the search service is the search's restart: every
    other service's restart was recalled beside it (and "how do I deploy it?" after
    billing every deploy claim). The "it" of "is it possible to …" stands for nothing."""
    _asked_after(everyday, before, {question: answer,
                               "is it possible to run migrations?": "migrations are run"})


def test_who_owns_a_thing_is_not_what_the_thing_owns(app: Waymarks) -> None:
    """"who owns billing?" recalled "Billing owns the Stripe webhook." beside the owner:
    billing is what is owned, not the owner; a passive naming the owner answers."""
    owner = app.remember("Billing is owned by the money team.").id  # type: ignore[union-attr]
    app.remember("Billing owns the Stripe webhook at /webhooks/stripe.")
    assert app.recall("who owns billing?").selected == [owner]


def test_a_thing_named_by_a_verb_and_er_is_not_the_verb(app: Waymarks) -> None:
    """"exporter" was stemmed to "export" (and "container" to "contain", "manager" to
    "manag"): a question about the metrics exporter recalled the export commands."""
    exporter = app.remember("The metrics exporter listens on port 9100.").id  # type: ignore[union-attr]
    export = app.remember("Export the issues with scripts/export_issues.py.").id  # type: ignore[union-attr]
    assert app.recall("where are the exporters?").selected == [exporter]
    assert app.recall("how do I export the issues?").selected == [export]


@pytest.mark.parametrize(("text", "word", "not_word"), [
    ("how do I log in?", "c:auth", "c:log"),
    ("Log in to Grafana with SSO.", "c:auth", "c:log"),
    ("Where do I sign-in?", "c:auth", "w:sign"),
    ("Write the log in JSON.", "c:log", "c:auth"),  # a log, no verb
    ("The on-call rotation is in PagerDuty.", "c:oncall", "w:call"),
    # being paged is being on call, not a site's pages
    ("who gets paged?", "c:oncall", "w:page"),
    ("The frontend is deployed to Cloudflare Pages.", "w:page", "c:oncall"),
])
def test_a_word_typed_as_two_is_the_one_word(text: str, word: str, not_word: str) -> None:
    """"how do I log in?" recalled every claim about logs, and "who is on call?" the
    gateway's timeout for upstream calls: the two words are the one ("login", "on-call")."""
    features = analyze(text).features
    assert word in features and not_word not in features
