"""A held-out everyday project memory for :mod:`everyday` (issue 20, "precision is the
product"): another project's claims (a Rails API, Sidekiq workers, a Rust ingest service, a
Next.js web app, a React Native app) and the questions its developer asks of it, written
before reading the recall rules that answer them, so that a rule tuned on the everyday store
of the tests (:mod:`tests.recall.everyday_store`) is checked on words it was not tuned on.
Kept apart from the tests' sets and reported apart; no rule may be written for its words."""

from __future__ import annotations

from typing import Final

CLAIMS: Final = (
    "The API is a Rails 7.1 app served by Puma on port 3001.",
    "Sidekiq workers process background jobs from the default and mailers queues.",
    "Run the API specs with `bundle exec rspec`.",
    "The ingest service is written in Rust and listens on port 7000.",
    "Ingest batches events into Parquet files on S3 every 5 minutes.",
    "Build ingest with `cargo build --release`.",
    "Run the ingest tests with `cargo test -p ingest`.",
    "The web app is Next.js 14 deployed on Vercel.",
    "Web environment variables live in web/.env.local.",
    "Yuki Tanaka owns the ingest service.",
    "Marco Bianchi owns the API.",
    "The API database is Postgres 16 on pg-main:5432.",
    "Database migrations run with `bin/rails db:migrate`.",
    "Deploy the API with `kamal deploy`.",
    "The web app deploys automatically when main is merged.",
    "Staging credentials are in 1Password under the Engineering vault.",
    "Error tracking uses Sentry; alerts go to #eng-alerts.",
    "The API rate limit is 600 requests per minute per token.",
    "API tokens expire after 90 days.",
    "The Stripe integration lives in app/services/billing/.",
    "Customer emails are sent with Postmark.",
    "The search index is Meilisearch 1.6 on search:7700.",
    "Reindex Meilisearch with `rake search:reindex`.",
    "The worker concurrency is 10 threads.",
    "Restart the workers with `systemctl restart sidekiq`.",
    "Ingest logs go to CloudWatch under /tally/ingest.",
    "The code freeze before a release starts on Thursday at noon.",
    "Hotfix branches are named hotfix/<ticket>.",
    "Pull requests need one review and green CI.",
    "The CI pipeline is .gitlab-ci.yml on GitLab.",
    "Test coverage for the API must not drop below 90 percent.",
    "Redis 7 backs the Sidekiq queues on redis-jobs:6379.",
    "Feature flags are stored in the flipper_features table.",
    "The mobile app talks to the API through /api/v3.",
    "The mobile app is built with React Native 0.73.",
    "Release the mobile app with `fastlane ios release`.",
    "Amir Sadeghi owns the mobile app.",
    "The data warehouse is Snowflake; dbt models live in analytics/dbt/.",
    "Run dbt with `dbt run --target prod`.",
    "Backups of pg-main are taken every 6 hours and kept for 14 days.",
    "The TLS certificate for api.tally.dev expires on 2027-03-01.",
    "Session cookies time out after 30 minutes of inactivity.",
    "Payment webhooks are verified with the Stripe signing secret from the environment.",
    "Uploads are stored in the S3 bucket tally-uploads.",
    "Local development uses `bin/dev`, which starts Rails, Sidekiq and the web app.",
)

#: question -> what each claim it recalls holds (one of them), at least one recalled
ANSWERED: Final = {
    "how do I run the API specs?": ("bundle exec rspec",),
    "what port does ingest listen on?": ("ingest service is written in Rust",),
    "how do I build ingest?": ("Build ingest",),
    "how do I run the ingest tests?": ("Run the ingest tests",),
    "who owns ingest?": ("Yuki Tanaka",),
    "who maintains the API?": ("Marco Bianchi",),
    "what database does the API use?": ("API database",),
    "how do I deploy the API?": ("kamal deploy",),
    "how does the web app deploy?": ("web app deploys", "Vercel"),
    "where are the staging credentials?": ("1Password",),
    "where do error alerts go?": ("Sentry",),
    "what's the API rate limit?": ("API rate limit",),
    "when do API tokens expire?": ("API tokens expire",),
    "where is the stripe integration?": ("Stripe integration",),
    "what do we send customer emails with?": ("Postmark",),
    "how do I reindex search?": ("Reindex Meilisearch", "Meilisearch 1.6"),
    "how do I restart the workers?": ("Restart the workers",),
    "how many threads does the worker use?": ("worker concurrency",),
    "where are the ingest logs?": ("Ingest logs",),
    "when does the code freeze start?": ("code freeze",),
    "how are hotfix branches named?": ("Hotfix branches",),
    "how many reviews does a pull request need?": ("Pull requests need",),
    "what's the coverage threshold?": ("Test coverage",),
    "which redis does sidekiq use?": ("redis-jobs",),
    "where are feature flags stored?": ("flipper_features",),
    "how do I release the mobile app?": ("fastlane",),
    "who owns the mobile app?": ("Amir Sadeghi",),
    "where do the dbt models live?": ("dbt models",),
    "how long are database backups kept?": ("Backups of pg-main",),
    "when does the api certificate expire?": ("TLS certificate",),
    "what is the session timeout?": ("Session cookies time out",),
    "where are uploads stored?": ("tally-uploads",),
    "how do I start everything locally?": ("bin/dev",),
    "which react native version does the mobile app use?": ("React Native 0.73",),
}

#: questions about a thing no claim is about, or what no claim says of it
UNSTORED: Final = (
    "how do I deploy ingest?",
    "who owns the web app?",
    "how do I run the web tests?",
    "where are the mobile app logs?",
    "what port does the web app use?",
    "which node version does the web app use?",
    "what is the worker timeout?",
    "who owns the data warehouse?",
    "how do I restart ingest?",
)
