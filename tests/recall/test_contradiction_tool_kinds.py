"""A tool of one category or a convention of one kind is a value of that kind, whatever
verb each claim says it with (issue 20 item 4: a tool replaced, said with another verb;
a convention in words; ``core/claim_tool_kinds.py``). Written through the service (real
SQLite); none of these sentences is one of the ``dev-words`` set's
(``benchmarks/conflict_pairs_words.json``)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from waymarks.core.contradiction import signature
from waymarks.service.app import Waymarks

#: a claim | another value of its kind | another attribute, subject or kind (written)
TOOLS = """
Production is deployed with Helm. | Production deployments go through Argo CD now. \
| Staging deployments go through Argo CD.
We provision the cloud accounts with Terraform. | The cloud accounts are provisioned \
using CloudFormation. | The cloud accounts are audited every quarter.
The API server is built on Flask. | The API server uses FastAPI. \
| The API server uses SQLAlchemy.
Bugs are tracked in Linear. | We track bugs with Jira. | Bugs are triaged every Monday.
Our Python is linted with flake8. | We lint our Python using Ruff. \
| Our Python is type-checked with mypy.
Environment variable names use snake_case. | Environment variable names are \
kebab-case. | Component names use PascalCase.
Commits to main are squash-merged. | Commits to main are merged with a merge commit. \
| Commits to main are signed.
监控指标用 Prometheus 采集。 | 监控指标使用 StatsD 采集。 | 监控指标保留 15 天。
"""


@pytest.mark.parametrize("line", TOOLS.strip().splitlines())
def test_another_tool_of_the_kind_is_another_value(app: Waymarks, line: str) -> None:
    """Read as words, the tool was a subject word (each claim another subject) and the
    verbs differed ("deployed with" / "goes through"): the second claim was written
    beside the first."""
    refused_beside_first(app, line)


@pytest.mark.parametrize("claim", [
    "Our Terraform state is stored in Terraform Cloud.",  # where the state is kept
    "User uploads are encrypted at rest.",  # where the data lies, no REST
    "Helm charts live in deploy/charts.",  # the subject, no object
])
def test_a_tool_name_that_is_no_object_of_use_is_no_value(claim: str) -> None:
    found = signature(claim)
    assert found is None or not any(
        v.startswith(("k:iac:", "k:protocol:", "k:deploy:")) for v in found.values), found


@pytest.mark.parametrize(("first", "second"), [
    ("The backend uses Django.", "The frontend uses React."),  # two subjects
    ("We deploy with Helm.", "We deploy with Helm 3."),  # a version of the one tool
    ("We deploy with Helm.", "We also use Kustomize for overlays."),  # one more
    ("The frontend uses Vue.", "The frontend uses Vite."),  # two kinds
])
def test_two_facts_of_tools_are_both_written(app: Waymarks, first: str, second: str) -> None:
    assert app.remember(first).outcome == "committed"
    assert app.remember(second).outcome == "committed"
