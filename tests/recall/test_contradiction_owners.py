"""Who owns a thing, written through the service (real session files, real SQLite):
"Alice owns the billing service." beside "Bob owns the billing service." and
"计费服务的负责人是张伟。" beside "… 李娜。" (a person was no value: neither claim had a
signature, and both were written). The pairs are in the fixture set too
(``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Alice owns the billing service.", "The billing service owner is Alice.",
     "Bob owns the billing service."),
    ("The billing service owner is Alice.", "Alice owns the billing service.",
     "The billing service owner is Bob."),
    ("The platform team owns the billing service.",
     "The platform team owns the billing service now.",
     "The payments team owns the billing service."),
    ("计费服务的负责人是张伟。", "计费服务负责人是张伟。", "计费服务的负责人是李娜。"),
    ("Dave is the owner of the CI pipeline.", "The CI pipeline owner is Dave.",
     "Erin is the owner of the CI pipeline."),
    ("Dave owns the CI pipeline.", "Dave is the owner of the CI pipeline.",
     "Erin is the owner of the CI pipeline."),
    ("Alice owns the billing service.", "Alice owns the billing service now.",
     "Alice no longer owns the billing service."),
    ("Alice owns the billing service.", "Alice owns the billing service today.",
     "Alice doesn't own the billing service."),
])
def test_an_owner_is_the_value_of_what_it_owns(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("Alice owns the billing service.", "Alice owns the search service."),
    ("Alice owns the billing service.", "Bob owns the search service."),
    ("计费服务的负责人是张伟。", "计费服务的端口是 8081。"),
    ("The billing service owner is Alice.", "The billing service port is 8081."),
    ("Alice owns the billing service.", "The billing service has its own database."),
    ("Alice no longer owns the billing service.", "Bob owns the billing service."),
    ("Alice owns the billing service.", "Bob also owns the billing service."),
    ("Dave is the owner of the CI pipeline.", "Dave is the owner of the release process."),
    ("Dave is no longer the owner of the CI pipeline.", "Erin is the owner of the CI pipeline."),
    ("Dave is the owner of the CI pipeline.", "Erin is a co-owner of the CI pipeline."),
])
def test_another_thing_owned_or_another_attribute_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)
