"""Issue 20 item 4's known false conflict, fixture pair 484, written through the service
(real session files, real SQLite): "The release artifacts are written to dist/." beside
"The release artifacts are written to dist.", and the word after such a verb as a value.
Their pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from tests.recall.test_contradiction_review61 import _written
from waymarks.service.app import Waymarks


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The release artifacts are written to dist/.", "The release artifacts are written to dist.",
     "The release artifacts are written to build."),
    ("The build output goes to dist.", "The build output goes to ./dist/.",
     "The build output goes to out."),
    ("Sessions are stored in redis.", "Sessions are stored in redis, as before.",
     "Sessions are stored in postgres."),
])
def test_the_word_after_a_verb_of_destination_is_the_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """A folder written with its slash was a value and the same folder without it a word:
    the second claim had no signature, and the replay rule's shared derived key refused
    the restatement as a conflict (and "goes to out." was written beside "goes to
    dist.": no value, no "is"). After a verb of where a thing is written, goes or is
    stored, the word ending the clause is where: the value."""
    _written(app, first)
    _written(app, restated)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "second"), [
    ("The build output goes to dist.", "The coverage report goes to htmlcov."),
    ("Sessions are stored in Redis.", "Uploads are stored in S3."),
])
def test_destinations_of_other_things_are_two_facts(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("前端部署到 Vercel。", "前端部署到Vercel。", "前端部署到 Netlify。"),
    ("用户上传的文件存储在 S3。", "用户上传的文件存储在 S3 。", "用户上传的文件存储在 OSS。"),
    ("文档托管在 Netlify。", "文档托管在Netlify。", "文档托管在 Vercel。"),
])
def test_where_a_thing_is_deployed_or_stored_in_chinese_is_its_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """Chinese says the verbs of a destination with their own characters (部署到, 存储在,
    托管在 …): the word after them was no value, and no derived key binds a Chinese
    claim, so two places were both written."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("The pipeline deploys to staging.", "The pipeline deploys to production."),
    ("The web app is deployed to Vercel.", "The web app is written in TypeScript."),
    ("前端部署到 Vercel。", "前端使用 TypeScript 编写。"),
    ("用户上传的文件存储在 S3。", "用户上传的文件会进行病毒扫描。"),
])
def test_a_deploying_pipeline_or_another_attribute_is_another_fact(
        app: Waymarks, first: str, second: str) -> None:
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "second"), [
    ("Grafana is hosted on grafana.internal.", "Grafana is disabled."),
    ("The API is hosted on AWS.", "The API is disabled."),
])
def test_the_on_of_a_destination_is_no_state(app: Waymarks, first: str, second: str) -> None:
    """With the word after "hosted on" read as the value and blanked, "on" ended its clause
    and was read as the state on, refused beside "… is disabled."."""
    _written(app, first)
    _written(app, second)
