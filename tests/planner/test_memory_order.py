"""The pure order memory competes in (issue 23 item 2); the CLI test
``tests/cli/test_memory_ranking.py`` shows it through the real command."""

from __future__ import annotations

from waymarks.planner.memory_order import key_named, order_memories, request_terms
from waymarks.planner.render import MemoryBlock
from waymarks.planner.select import MemoryInput


def memory(id_: str, score: float, created: int, scope: str = "session",
           key: str | None = None, matched: bool = True) -> MemoryInput:
    return MemoryInput(MemoryBlock(id_, scope, "claim", "s", "e", score, "r", key), created,
                       matched)


def test_a_request_names_a_key_by_all_its_words_or_as_one_token() -> None:
    terms = request_terms("What is the Package export mode? See src/app.py.")
    assert key_named("package-export-mode", terms)
    assert key_named("src/app.py", terms)
    assert not key_named("package-import-mode", terms)
    assert not key_named(None, terms) and not key_named("", terms)
    assert key_named("deploy-targets", request_terms("where do deploy targets live"))
    assert key_named("deploy-target", request_terms("where do deploy targets live"))


def test_keys_then_relevance_then_scope_then_recency() -> None:
    ordered = order_memories("how does the release pipeline work", [
        memory("a", 0.9, 1),
        memory("b", 0.5, 2, key="release-pipeline"),
        memory("c", 0.9, 3),
        memory("d", 0.9, 0, scope="project"),
        memory("e", 0.90004, 4),  # float noise: a tie on relevance
        memory("f", 0.1, 9, matched=False),
    ])
    assert [m.block.id for m in ordered] == ["b", "d", "e", "c", "a", "f"]
