"""A product after a verb of using, and a language a thing is written in (pairs tagged
``dev-s68`` of ``benchmarks/conflict_pairs.json``, beside ``heldout-fresh``'s "The cache
cluster uses Redis." / "… uses Memcached." and 缓存使用 Redis / Memcached), written through
the service (real SQLite)."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import refused_beside_first
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks

#: a claim | another product of its kind (refused) | the same or another kind (written)
PRODUCTS = """
The session store uses Redis. | The session store uses Memcached. \
| The session store uses Redis for rate limiting too.
会话存储使用 Redis。 | 会话存储使用 Memcached。 | 会话存储使用 Redis 集群。
The cache uses Redis. | 缓存使用 Memcached。 | 缓存使用 Redis。
The billing service is written in Go. | The billing service is written in Java. \
| The billing service uses PostgreSQL.
The search service is written in Python. | 搜索服务用 Rust 编写。 | 搜索服务用 Python 编写。
"""


@pytest.mark.parametrize("line", PRODUCTS.strip().splitlines())
def test_another_product_used_contradicts_it(app: Waymarks, line: str) -> None:
    """A product after "uses" or 使用 was a word of the subject or no value: each claim
    another subject, both written."""
    refused_beside_first(app, line)


@pytest.mark.parametrize(("first", "second"), [
    ("The API uses Redis for caching.", "The API uses Postgres for storage."),
    ("订单服务使用 Redis。", "订单服务使用 PostgreSQL。"),
    ("The deploy script is ready to go.", "The deploy script is written in Python."),
    ("The base image is python:3.12-slim.", "The base image is maintained by the platform team."),
])
def test_a_cache_beside_a_database_or_no_product_is_two_facts(
        app: Waymarks, first: str, second: str) -> None:
    kept = _written(app, first).id
    assert _written(app, second).id != kept


def test_a_store_after_stored_in_is_still_the_place(app: Waymarks) -> None:
    """"stored in Redis" / "stored in postgres" contradict as two places, as before."""
    refused_beside_first(app, "Sessions are stored in redis. | Sessions are stored in postgres."
                              " | Sessions are stored in redis for 24 hours.")
