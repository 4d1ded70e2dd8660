"""A second held-out everyday project memory for :mod:`everyday` (issue 20, "precision is the
product"): a logistics platform's claims (a Go dispatch service, a FastAPI routing-engine, a
Kotlin billing service, a Flutter driver app, a Vue admin console, Kafka, OpenSearch,
Terraform; some claims in Chinese) and the questions its developer asks of it, among them
questions of two clauses joined by "and", names with hyphens, dots and slashes, Chinese
questions and follow-ups of a turn before. Written before reading the recall rules that answer
them (after the name gate of 2ef77de9 .. b86001f5), kept apart from the tests' sets and from
:mod:`everyday_heldout`, and reported apart; no rule may be written for its words."""

from __future__ import annotations

from typing import Final

CLAIMS: Final = (
    "The dispatch service is written in Go 1.22 and serves gRPC on port 9090.",
    "Run the dispatch tests with `go test ./dispatch/...`.",
    "The routing-engine is a FastAPI app listening on port 8081.",
    "Start the routing-engine locally with `uvicorn routing.main:app --reload`.",
    "Priya Raman owns the routing-engine.",
    "Lars Eriksson owns the dispatch service.",
    "The driver app is built with Flutter 3.19.",
    "Ship the driver app to testers with `fastlane android beta`.",
    "The admin console is a Vue 3 app built with Vite.",
    "Admin console settings live in admin/config.yaml.",
    "Order events are published to the Kafka topic lumen.orders.v2.",
    "The Kafka brokers run on kafka-1.internal:9092 and kafka-2.internal:9092.",
    "Shipment search uses OpenSearch 2.11 on search.internal:9200.",
    "Infrastructure is managed with Terraform in infra/terraform/.",
    "Apply Terraform changes with `make tf-apply ENV=prod`.",
    "Kubernetes manifests for production live in k8s/overlays/prod/.",
    "Airflow DAGs live in pipelines/dags/ and run on the analytics cluster.",
    "The nightly warehouse sync runs at 02:00 UTC.",
    "Invoices are charged through Braintree.",
    "The Braintree sandbox keys are in Vault at secret/billing/braintree.",
    "The geo-cache is Redis 7.2 on geo-cache.internal:6380.",
    "Geo-cache entries expire after 15 minutes.",
    "The dispatch gRPC deadline is 2 seconds.",
    "Driver location pings are sent every 10 seconds.",
    "On-call rotation is managed in PagerDuty under the Lumen Platform schedule.",
    "Production alerts go to the #lumen-oncall Slack channel.",
    "Metrics are scraped by Prometheus and shown in Grafana at grafana.lumen.io.",
    "Releases are tagged vX.Y.Z and cut from release/* branches.",
    "Merge requests need two approvals before merging.",
    "CI runs on GitHub Actions; the workflows live in .github/workflows/.",
    "The staging cluster is reached through the bastion at bastion.staging.lumen.io.",
    "The orders database is MySQL 8.0 on orders-db.internal:3306.",
    "The billing service is written in Kotlin on Spring Boot 3.",
    "Run the billing migrations with `./gradlew flywayMigrate`.",
    "Nightly backups of orders-db are kept for 30 days in the S3 bucket lumen-backups.",
    "Feature toggles are managed in Unleash at unleash.lumen.io.",
    "The public API is documented at docs.lumen.io/api, generated from openapi/lumen.yaml.",
    "The public API allows 100 requests per second per customer.",
    "The route optimizer falls back to greedy routing when the solver takes over 5 seconds.",
    "Local development needs Docker Compose; run `docker compose up -d` from the repo root.",
    "The design system components live in packages/ui/.",
    "Translations are managed in Crowdin; the zh-CN strings are in locales/zh-CN.json.",
    "The SLA for order dispatch is 99.9 percent monthly uptime.",
    "调度服务的值班负责人是王磊。",
    "司机端的崩溃报告在 Firebase Crashlytics 里查看。",
    "计费服务的日志保存在 Loki 中，保留七天。",
    "管理后台的构建命令是 `pnpm --filter admin build`。",
)

#: question -> what each claim it recalls holds (one of them), at least one recalled
ANSWERED: Final = {
    "how do I run the dispatch tests?": ("go test ./dispatch",),
    "what port does the routing-engine listen on?": ("routing-engine is a FastAPI",),
    "how do I start the routing-engine locally?": ("uvicorn",),
    "who owns the routing-engine?": ("Priya Raman",),
    "who owns dispatch?": ("Lars Eriksson", "王磊"),
    "which Flutter version does the driver app use?": ("Flutter 3.19",),
    "how do I ship the driver app to testers?": ("fastlane android beta",),
    "where do the admin console settings live?": ("admin/config.yaml",),
    "which Kafka topic are order events published to?": ("lumen.orders.v2",),
    "where are the Kafka brokers?": ("kafka-1.internal",),
    "what does shipment search use?": ("OpenSearch",),
    "where is the Terraform code?": ("infra/terraform",),
    "how do I apply terraform changes?": ("make tf-apply",),
    "where are the production kubernetes manifests?": ("k8s/overlays/prod",),
    "where do the Airflow DAGs live?": ("pipelines/dags",),
    "when does the warehouse sync run?": ("warehouse sync",),
    "which payment provider do we use?": ("Braintree",),
    "where are the braintree sandbox keys?": ("secret/billing/braintree",),
    "how long do geo-cache entries live?": ("Geo-cache entries expire",),
    "what is the dispatch gRPC deadline?": ("gRPC deadline",),
    "how often do drivers send location pings?": ("location pings",),
    "where do production alerts go?": ("#lumen-oncall", "PagerDuty"),
    "where is Grafana?": ("grafana.lumen.io",),
    "how many approvals does a merge request need?": ("two approvals",),
    "where do the CI workflows live?": (".github/workflows",),
    "how do I get to the staging cluster?": ("bastion",),
    "what database do orders use?": ("orders database",),
    "how do I run the billing migrations?": ("flywayMigrate",),
    "how long are database backups kept?": ("backups of orders-db",),
    "how long are orders-db backups kept?": ("backups of orders-db",),
    "where are feature toggles managed?": ("Unleash",),
    "what's the public API rate limit?": ("100 requests per second",),
    "where is the public API documented?": ("docs.lumen.io/api",),
    "which version of OpenSearch do we run?": ("OpenSearch 2.11",),
    "what happens when the route solver is slow?": ("greedy routing",),
    "how do I start everything locally?": ("docker compose up",),
    "where do the design system components live?": ("packages/ui",),
    "where are the zh-CN translations?": ("locales/zh-CN.json",),
    "what is the dispatch SLA?": ("SLA for order dispatch",),
    "what runs on search.internal:9200?": ("OpenSearch",),
    "what is bastion.staging.lumen.io?": ("bastion",),
    "who owns the routing-engine and what port does it listen on?":
        ("Priya Raman", "routing-engine is a FastAPI"),
    "what language is the billing service written in and how do I run its migrations?":
        ("Kotlin", "flywayMigrate"),
    "where is the Terraform code and how do I apply it?": ("infra/terraform", "tf-apply"),
    "调度服务的值班负责人是谁？": ("王磊",),
    "司机端的崩溃报告在哪里看？": ("Crashlytics",),
    "计费服务的日志保留多久？": ("Loki",),
    "管理后台怎么构建？": ("pnpm --filter admin build",),
    "订单事件发到哪个 Kafka topic？": ("lumen.orders.v2",),
}

#: questions about a thing no claim is about, or what no claim says of it
UNSTORED: Final = (
    "who owns the admin console?",
    "how do I deploy the routing-engine?",
    "what port does the admin console use?",
    "how do I run the routing-engine tests?",
    "where are the dispatch logs?",
    "which Kotlin version does billing use?",
    "who owns the driver app?",
    "where are the Airflow logs?",
    "what is the routing-engine timeout?",
    "how do I run the admin console tests?",
    "管理后台的负责人是谁？",
    "who owns the geo-cache and where are its backups?",
)

#: (turn before, follow-up, what each claim it recalls holds: one of them)
FOLLOW_UPS: Final = (
    ("let's look at the routing-engine", "who owns it?", ("Priya Raman",)),
    ("I'm debugging dispatch", "how do I run its tests?", ("go test ./dispatch",)),
    ("the billing service", "how do I run its migrations?", ("flywayMigrate",)),
    ("the geo-cache", "and when do entries expire?", ("Geo-cache entries expire",)),
    ("the driver app", "where are its crash reports?", ("Crashlytics",)),
    ("看一下计费服务", "它的日志在哪里？", ("Loki",)),
)
