"""A Chinese change's verb in a clause that describes a noun with 的 ("升到 v2 的用户数是
300", the users upgraded to v2) is a word of that noun's subject, not the claim's change:
after f53e1c18 made 升到, 换成, 降级到 function words, "升到 v2 的用户数是 300" was refused
beside "用户数是 500" (a part counted beside the whole: 3 of 6 such pairs written for the
review refused, none at ec5c421f). A change said plainly is still the claim's."""

from __future__ import annotations

import pytest

from tests.recall.contradiction_lines import second_refused_or_written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ("升到 v2 的用户数是 300", "用户数是 500", False),
    ("换成 SSD 的机器有 8 台", "机器有 20 台", False),
    ("降级到 v1 的接口数是 4", "接口数是 50", False),
    ("改用 pnpm 的项目有 3 个", "项目有 40 个", False),
    # the change said plainly: the claim's own (test_contradiction_change_verbs' pairs)
    ("测试环境 Node 版本是 18", "测试环境已经升到 Node 20 了", True),
    ("日志级别是 info", "日志级别调整为 debug", True),
])
def test_a_change_describing_a_noun_is_the_nouns(
        app: Waymarks, first: str, second: str, conflict: bool) -> None:
    second_refused_or_written(app, first, second, conflict)


def test_describing_keeps_the_length_and_the_plain_change() -> None:
    from waymarks.core.claim_change_verbs import describing

    text = "升到 v2 的用户数是 300，默认分支改名为 main"
    made = describing(text)
    assert len(made) == len(text) and made.startswith("升\u3000 v2 的")
    assert made.endswith("改名为 main")
    assert describing("测试环境已经升到 Node 20 了") == "测试环境已经升到 Node 20 了"
