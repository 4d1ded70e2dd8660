"""Chinese says "in" and "on" after the noun, as a word of its own: 文件里 ("in the file"),
日志中 ("in the log"), 服务器上 ("on the server"). English "in" and "on" are stop words;
里, 中 and 上 were words no record holds, which weigh the most, so "db/config.toml
里的端口是多少？" ("the port in db/config.toml?") recalled nothing while "what port is in
db/config.toml?" recalled the claim."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("text", "features"), [
    ("配置文件里的端口", ("w:配置文件", "c:port")),
    ("日志中的错误", ("c:log", "c:error")),
    ("服务器上的端口", ("c:server", "c:port")),
])
def test_a_locative_is_no_feature(text: str, features: tuple[str, ...]) -> None:
    assert analyze(text, query=True).features == features


@pytest.mark.parametrize("query", [
    "db/config.toml 里的端口是多少？", "config.toml 中的端口是多少？",
    "what port is in db/config.toml?"])
def test_a_chinese_question_about_a_file_recalls_its_claim(
        app: Waymarks, query: str) -> None:
    wanted = app.remember("数据库的配置在 db/config.toml，端口是 5433。").id  # type: ignore[union-attr]
    app.remember("The cache TTL is 60 seconds.")
    assert app.recall(query).selected == [wanted]
