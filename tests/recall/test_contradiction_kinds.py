"""A service, a tool or a cloud region is a value of where a thing runs or what it is done
with (held-out pairs of ``benchmarks/conflict_pairs.json``, tags ``heldout-rr``,
``heldout-s66`` and ``heldout-s67``), written through the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks

#: a claim | another value of its kind | the same fact or another attribute (written)
KINDS = """
CI runs on GitHub Actions. | CI runs on CircleCI. | We use GitHub Actions for CI.
The nightly jobs run on Buildkite. | The nightly jobs run on GitHub Actions. \
| The nightly jobs take 40 minutes.
The primary database runs in us-west-2. | The primary database runs in eu-central-1. \
| The primary database runs Postgres 15.
The staging cluster lives in europe-west4. | The staging cluster lives in us-central1. \
| The production cluster lives in us-central1.
Our feature toggles live in LaunchDarkly. | Our feature toggles live in Unleash. \
| Our feature toggles are cleaned up every quarter.
Always use pnpm rather than yarn. | Use yarn to install dependencies. \
| Use pnpm, not yarn, to install dependencies.
We use Poetry to manage dependencies. | We use uv to manage dependencies. \
| We use Ruff for linting.
The frontend uses yarn. | The frontend uses pnpm. | The frontend uses TypeScript.
构建流水线运行在 GitHub Actions 上。 | 构建流水线运行在 CircleCI 上。 | 构建流水线大约需要 10 分钟。
生产密钥保存在 Vault 里。 | 生产密钥保存在 AWS Secrets Manager 里。 | 生产密钥每 60 天轮换一次。
The CI pipeline runs on GitHub Actions. | CI 流水线运行在 CircleCI 上。 | CI 流水线大约需要 8 分钟。
The cleanup job runs every Sunday. | The cleanup job runs every Wednesday. \
| The cleanup job deletes files older than 30 days.
"""


@pytest.mark.parametrize("line", KINDS.strip().splitlines())
def test_a_name_of_a_kind_is_the_value(app: Waymarks, line: str) -> None:
    """Read as words, the name was a subject word (each claim another subject) or no
    value, and the second claim was written beside the first."""
    refused_beside_first(app, line)


@pytest.mark.parametrize(("claim", "value"), [
    ("Builds moved from Jenkins to GitHub Actions.", "k:ci:jenkins"),
    ("Always use yarn instead of npm in this repo.", "k:js-packages:npm"),
])
def test_a_name_left_for_another_is_denied(claim: str, value: str) -> None:
    found = signature(claim)
    assert found is not None and value in found.denied


@pytest.mark.parametrize("claim", [
    "Vault listens on port 8200.",  # the subject, no object
    "Debug logging is enabled in us-east-1.",  # where a state holds
    "The search service uses Elasticsearch 8.11.",  # a product and its version
])
def test_a_name_as_no_object_is_no_value_of_its_kind(claim: str) -> None:
    found = signature(claim)
    assert found is not None and not any(v.startswith("k:") for v in found.values), found
