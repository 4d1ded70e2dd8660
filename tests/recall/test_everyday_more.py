"""More everyday questions of the project store (:mod:`tests.recall.everyday_store`,
issue 20: "precision is the product"): who owns, runs and is paged for what, where things
live, how things are run, conditions said before a question, two clauses asking two
attributes, whom to ask, and follow-ups. Each recalls a claim answering it and no claim
that does not; a question about a thing no claim is about recalls nothing. Written while
fixing "who owns billing?" (the claim of what billing owns), "who gets paged?" (Cloudflare
Pages), "When the build breaks, who owns the frontend?" (where builds go) and their kin;
those each keep a test of their own in :mod:`tests.recall.test_everyday_questions`."""

from __future__ import annotations

from typing import Final

import pytest

from tests.recall.everyday_store import Everyday
from tests.recall.test_everyday_questions import _asked

#: question -> what each claim it recalls holds (one of them), at least one recalled
ANSWERED: Final = {
    "which port and node version does the frontend dev server use?": (
        "frontend dev server", "Node 20 and pnpm"),
    "where do the search logs go?": ("Search logs are in",),
    "where are the billing logs?": ("Billing logs go to",),
    "where do gateway access logs go?": ("Gateway access logs",),
    "how do I run the auth tests?": ("Run the auth tests",),
    "how do I test inventory?": ("Run the inventory tests",),
    "how do I build inventory?": ("Build inventory",),
    "how do I start the frontend?": ("Start the frontend",),
    "how do I start the local stack?": ("local development stack", "make up",),
    "what database does billing use?": ("billing database",),
    "what database does payments use?": ("payments database",),
    "which database does inventory use?": ("inventory database",),
    "where is the auth database?": ("auth database",),
    "how long do search results stay cached?": ("Search results are cached",),
    "when does the billing reconciliation run?": ("reconciliation job",),
    "when do the postgres backups run?": ("shared Postgres backups",),
    "how long are backups kept?": ("Backups are kept",),
    "how many approvals do production deploys need?": ("two approvals",),
    "how are feature branches named?": ("Feature branches are named",),
    "how are releases tagged?": ("Releases are tagged",),
    "where is the incident runbook?": ("incident runbook",),
    "how do I create kafka topics?": ("Kafka topics are created",),
    "where are the load tests?": ("Load tests use k6",),
    "how do I deploy the gateway?": ("Deploy the gateway",),
    "when does search deploy?": ("Search deploys every Tuesday",),
    "where are the notification templates?": ("Notifications templates",),
    "which kafka topic does notifications read from?": ("Kafka topic user-events",),
    "where is the mailer bounce handler?": ("bounce handler",),
    "where are the mailer templates stored?": ("Mailer templates are stored",),
    "what is the inventory heap limit?": ("inventory heap",),
    "how often does inventory sync stock?": ("Inventory syncs",),
    "where are the analytics dashboards?": ("Analytics dashboards",),
    "how long does analytics keep raw events?": ("Analytics keeps raw events",),
    "when does the analytics ETL run?": ("analytics ETL",),
    "how often do auth keys rotate?": ("keys rotate",),
    # expiring is timing out (the session's timeout recalled nothing)
    "what's the auth session timeout?": ("Auth sessions expire",),
    "when do auth sessions expire?": ("Auth sessions expire",),
    "what is the gateway timeout?": ("gateway timeout",),
    # an acronym of software work is its spelled-out name (the ADRs recalled nothing)
    "where are the ADRs?": ("architecture decision records",),
    "where are the architecture decision records?": ("architecture decision records",),
    # a command's `deploy/auth` names what it restarts, no word of the claim
    "how does auth deploy?": ("Auth deploys via",),
    "where is the login page?": ("login page",),
    "what's the OIDC issuer?": ("OIDC issuer",),
    "where do container images go?": ("Container images are pushed",),
    "how are images tagged?": ("Image tags",),
    "which service mesh do we use?": ("Linkerd",),
    "what's the staging cluster called?": ("staging cluster",),
    "where is the staging vpn config?": ("VPN config",),
    "how do I format python code?": ("black and ruff",),
    "where does alertmanager send critical alerts?": ("Alertmanager",),
    "what is the ticket project key?": ("ticket tracker project key",),
    "when is sprint planning?": ("Sprint planning",),
    "how is the docs site built?": ("docs site is built",),
    "where is the terraform?": ("Terraform",),
    "where are the pre-commit hooks configured?": ("Pre-commit hooks",),
    "where are the code owners listed?": ("CODEOWNERS",),
    "how often are dependencies updated?": ("Renovate",),
    "where does the gateway get its TLS certificates?": ("cert-manager",),
    "where does the gateway route /api/search?": ("routes /api/search",),
    "which envoy version is the gateway?": ("Envoy 1.29",),
    "how often is the search ranking model retrained?": ("ranking model",),
    "what's the search health check endpoint?": ("health check",),
    "who owns payments?": ("David Kim",),
    "who owns analytics?": ("Jonas Berg",),
    "which port does storybook use?": ("Storybook",),
    "where do frontend builds go?": ("Frontend builds",),
    "where is the frontend deployed?": ("Cloudflare Pages",),
    "who owns the Stripe webhook?": ("Billing owns the Stripe",),
    "what does Maria Santos own?": ("Maria Santos",),
    "what port and database does billing use?": ("billing service listens", "billing database",),
    "where are the auth logs and config?": ("Auth logs", "auth config lives",),
    "which broker does the scheduler use?": ("Redis broker",),
    "what version of envoy does the gateway run?": ("Envoy 1.29",),
    "where are the kafka topics created?": ("Kafka topics are created",),
    "how long is the gateway upstream timeout?": ("gateway timeout",),
    "who owns the frontend?": ("Ana Costa",),
    "who's on call?": ("on-call rotation",),
    "where does notifications get its events from?": ("Kafka topic user-events",),
    "which cluster is production on?": ("production cluster",),
    "how do I run the frontend tests?": ("Run the frontend tests",),
    "how do I bring up every service locally?": ("make up", "local development stack",),
    "what is the inventory database?": ("inventory database",),
    "where do the billing secrets come from?": ("Billing secrets",),
    "how many times does billing retry a failed charge?": ("Billing retries",),
    "what's the billing cache ttl?": ("billing cache TTL",),
    "where are the auth keys rotated?": ("keys rotate",),
    "who owns the notifications service?": ("Priya Nair",),
    "who do I ask about the gateway?": ("Tom Becker",),
    "who is responsible for payments?": ("David Kim",),
    "which channel do the billing and payments teams share?": ("#money",),
    "where are critical alerts sent?": ("Alertmanager",),
    "how are webhook signatures verified?": ("HMAC",),
    "where is the analytics warehouse?": ("ClickHouse",),
    "how do I migrate the database?": ("make migrate",),
    # a threshold is said by a bound ("above 80 percent"), never by its word
    "what is the coverage threshold?": ("Coverage must stay above",),
    "what's the coverage threshold?": ("Coverage must stay above",),
}

#: questions about a thing no claim is about, or about what no claim says of it
UNSTORED: Final = (
    "who owns the crawler?",
    "where are the payments logs?",
    "who owns the ledger?",
    "what port does the worker listen on?",
    "who gets paged for the crawler?",
    "where is the crawler's config?",
    "who maintains the crawler?",
    "who should I ask about the crawler?",
    "what port does the crawler use this week?",
    # a command's `deploy/payments` names what it restarts, no deploy of payments
    "how does payments deploy?",
)

#: (turn before, follow-up, what each claim it recalls holds: one of them)
FOLLOW_UPS: Final = (
    ("the search service", "where is its config?", ("search config lives", "synonyms",)),
    ("let's look at the gateway", "who owns it?", ("Tom Becker",)),
    ("I'm debugging inventory", "where are its logs?", ("Inventory logs",)),
    ("the auth service", "and who owns it?", ("Kenji",)),
    ("payments is timing out", "what database does it use?", ("payments database",)),
    ("the mailer", "where is its config?", ("mailer config lives",)),
    ("the notifications service", "where are its templates?", ("Notifications templates",)),
    ("the gateway", "how do I deploy it?", ("Deploy the gateway",)),
    ("I'm looking at payments", "who owns it?", ("David Kim",)),
    ("the frontend", "and the port?", ("frontend dev server", "Storybook",)),
)


def _wrong(recalled: list[str], answers: tuple[str, ...]) -> bool:
    """Whether the recalled claims miss the answer or hold a claim that is none."""
    return not recalled or any(not any(part in text for part in answers) for text in recalled)


def test_each_question_recalls_its_answer_and_nothing_else(everyday: Everyday) -> None:
    recalled = _asked(everyday, ANSWERED)
    assert {q: texts for q, texts in recalled.items() if _wrong(texts, ANSWERED[q])} == {}


def test_a_thing_no_claim_is_about_recalls_nothing(everyday: Everyday) -> None:
    assert {q: texts for q, texts in _asked(everyday, UNSTORED).items() if texts} == {}


@pytest.mark.parametrize(("before", "question", "answers"), FOLLOW_UPS)
def test_a_follow_up_recalls_the_answer_about_the_turn_before(
        everyday: Everyday, before: str, question: str, answers: tuple[str, ...]) -> None:
    recalled = everyday.asked([question], [before])[question]
    assert not _wrong(recalled, answers), recalled

