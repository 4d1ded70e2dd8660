"""100 KB of glued ``secret_`` (no credential) cost redact() 95 ms against 4.3 ms before
Notion's ``secret_`` rule: the pre-test let any text holding ``secret_`` through to every
rule, the bare-noun rule's pre-test tried its expression at each of the 14,285 nouns, and
the named AWS key's rule read up to 64 characters for a value at each of them. Counted
here, no clock: the pre-test declines the text, and neither expression is tried."""

from __future__ import annotations

import pytest

from waymarks.core import secret_prose
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secret_rules import RULES
from waymarks.core.secret_tokens import named_aws_key
from waymarks.core.secrets import redact

GLUED = ("secret_" * 15_000)[:100_000]
NOTION = "secret_" + "Xk9vT2pQ7mLwR4sZ" * 2 + "Ab3dEf6hIj9"  # 43 after the prefix
SUPABASE = "sb_secret_" + "Xk9vT2pQ7mLwR4sZ_abcd"
KEY = "fjKaiJUINlK73nZfdklJrX+9aB3dEf6hIj9kLm2n"  # 40, random-looking


def test_the_pre_test_declines_glued_secret_prefixes() -> None:
    assert not might_contain_secret(GLUED)
    assert not might_contain_secret(("aws_secret_" * 9_100)[:100_000])
    assert redact(GLUED) == (GLUED, 0)


@pytest.mark.parametrize("token", [NOTION, SUPABASE])
def test_a_token_after_the_prefix_still_passes_it(token: str) -> None:
    for text in (token, GLUED[:700] + " " + token):
        assert might_contain_secret(text)
        assert token not in redact(text)[0]


def test_the_bare_noun_expression_is_not_tried_at_each_noun(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[str] = []
    real = secret_prose._matched_at_needles

    def counting(rules: tuple[secret_prose.Rule, ...], text: str) -> bool:
        tried.append(text)
        return real(rules, text)

    monkeypatch.setattr(secret_prose, "_matched_at_needles", counting)
    assert not secret_prose.might_name_one(GLUED, GLUED)
    assert tried == []
    assert secret_prose.might_name_one("use token Xk9vT2pQ7mLwR4sZ now",
                                       "use token xk9vt2pq7mlwr4sz now")


def test_the_named_aws_key_is_looked_for_only_where_a_value_can_stand() -> None:
    rule = next(rule for rule in RULES if rule.name == "aws_secret_named")
    assert rule.hint is not None and rule.hint.search(GLUED + " ghp_x") is None
    assert not named_aws_key(GLUED)
    for text in (f"the staging key is {KEY}", f"AWS secret: {KEY}.", f"{GLUED} key {KEY}"):
        assert named_aws_key(text)
        assert KEY not in redact(text)[0]
