"""A third held-out question set for :mod:`everyday` (issue 20, "precision is the product"),
asked of the everyday store itself (:data:`tests.recall.everyday_store.CLAIMS`): questions a
developer asks an agent about that project, in English and Chinese, some in the claim's own
words and some in others ("which cloud provider hosts production?" of "… prod-eu-1 on GKE"),
some about what no claim says (which must recall nothing), and follow-ups of a turn before.
Written blind: neither the recall rules (``recall/*``) nor the tests' questions of the store
nor the questions of :mod:`everyday_heldout` and :mod:`everyday_heldout2` were read (only
their format), each question's expected claim decided before any run. It measures; no rule
may be written for its words. Measured once at dc0df8d4, right / wrong / missed of 77:
lexical 39 / 6 / 32, hybrid 40 / 12 / 25 (docs/benchmarks.md)."""

from __future__ import annotations

from typing import Final

#: question -> what each claim it recalls holds (one of them), at least one recalled
ANSWERED: Final = {
    # in the claim's words
    "what port does the search service listen on?": ("search service listens on port 7700",),
    "where does the inventory config live?": ("inventory/src/main/resources/application.yml",),
    "what's the command to restart the mailer?": ("systemctl restart mailer",),
    "who owns the scheduler?": ("Sofia Rossi",),
    "what version of Envoy is the gateway?": ("Envoy 1.29",),
    "how long do auth sessions last before they expire?": (
        "Auth sessions expire after 12 hours",),
    "where are the notifications templates?": ("notifications/templates/",),
    "how do I rebuild the search index from scratch?": ("search.reindex",),
    "how do I create a Kafka topic?": ("scripts/create_topics.sh",),
    "what version of Kafka do we run?": ("Kafka 3.6",),
    "how often do we retrain search ranking?": ("retrained monthly",),
    "where's the runbook for incidents?": ("docs/runbooks/incident.md",),
    "what is the flag name for the new checkout?": ("checkout_v2",),
    "where's the Elasticsearch cluster for search?": ("es-search:9200",),
    "what service mesh runs in the clusters?": ("Linkerd 2.14",),
    # in other words than the claim's
    "which database does payments keep its data in?": ("db-payments:5432",),
    "what's the max memory for the inventory JVM?": ("inventory heap is limited to 2 GB",),
    "how often does inventory pull stock from the warehouse?": ("every 10 minutes",),
    "when does the cleanup task run?": ("cleanup task every night at 03:30",),
    "what time is the billing reconciliation?": ("reconciliation job runs at 02:00 UTC",),
    "how many login attempts are allowed per minute?": ("5 per minute per IP",),
    "which cloud provider hosts production?": ("prod-eu-1 on GKE",),
    "where do I find the on-call schedule?": ("PagerDuty under Platform",),
    "what's the name of the main branch?": ("The default branch is main",),
    "how should I name a branch for a ticket?": ("feature/<ticket>-<slug>",),
    "how many approvals does a prod deploy need?": ("two approvals",),
    "what's the minimum test coverage?": ("Coverage must stay above 80 percent",),
    "where do container images get pushed?": ("ghcr.io/acme",),
    "how are docker images tagged?": ("short git SHA",),
    "which Slack channel do critical alerts go to?": ("#ops-alerts",),
    "how long are backups retained?": ("Backups are kept for 35 days",),
    "what do we use for feature flags?": ("LaunchDarkly",),
    "which queue holds notifications that failed?": ("notifications-retry",),
    "what does the gateway use for TLS certs?": ("cert-manager",),
    "what's the upstream timeout on the gateway?": (
        "gateway timeout for upstream calls is 15 seconds",),
    "how long are search results cached?": (
        "Search results are cached in Redis for 60 seconds",),
    "what JWT algorithm does auth sign with?": ("RS256",),
    "how do I spin up everything locally?": (
        "docker compose up", "make up", "docker-compose.dev.yml"),
    "when do dependency update PRs show up?": ("Renovate every Monday",),
    "what is the rate limiter's budget?": ("token bucket",),
    # Chinese, of English claims
    "搜索服务的端口是多少？": ("search service listens on port 7700",),
    "谁负责网关？": ("Tom Becker",),
    "怎么重启 billing？": ("systemctl restart billing-api",),
    "支付服务用什么语言写的？": ("Payments is written in Kotlin",),
    "inventory 的数据库是什么？": ("MySQL 8.0",),
    "前端部署在哪里？": ("Cloudflare Pages",),
    "怎么跑 auth 的测试？": ("go test ./auth/...",),
    "备份保留多久？": ("Backups are kept for 35 days",),
    "生产集群叫什么？": ("prod-eu-1",),
    "告警发到哪个频道？": ("#ops-alerts",),
    "代码覆盖率要求多少？": ("Coverage must stay above",),
    "分析服务的原始事件保存多久？": ("Analytics keeps raw events for 90 days",),
    "邮件服务用什么发送邮件？": ("Amazon SES",),
    "默认分支是什么？": ("The default branch is main",),
    "Kafka 的地址是多少？": ("kafka:9092",),
    "通知服务用的是哪个版本的 Node？": ("Notifications runs on Node 20",),
    "网关的访问日志在哪？": ("/var/log/envoy/access.log",),
    "staging 地址是什么？": ("https://staging.example.com",),
}

#: questions about a thing no claim is about, or what no claim says of it
UNSTORED: Final = (
    "who owns the docs site?",
    "what version of Postgres does analytics use?",
    "how do I run the mailer tests?",
    "who owns the SOAP bridge?",
    "what is the staging database password?",
    "how long are search logs kept?",
    "how do I deploy the inventory service?",
    "what is the auth service's memory limit?",
    "移动端的负责人是谁？",
    "生产数据库的密码是多少？",
    "支付服务的日志在哪里？",
    "前端用的是哪个 CSS 框架？",
    "邮件服务的测试怎么跑？",
)

#: (turn before, follow-up, what each claim it recalls holds: one of them)
FOLLOW_UPS: Final = (
    ("I'm working on the mailer today", "who owns it?", ("Chen Wei",)),
    ("let's look at inventory", "what port does it listen on?",
     ("inventory service listens on port 8070",)),
    ("我在排查搜索服务的问题", "它的日志在哪里？", ("/var/log/search/search.log",)),
    ("switch to the analytics service", "how do I restart it?",
     ("supervisorctl restart analytics",)),
    ("let's talk about notifications", "which Kafka topic does it read?", ("user-events",)),
    ("看一下 auth 服务", "它的配置文件在哪？", ("deploy/auth/config.yaml",)),
)
