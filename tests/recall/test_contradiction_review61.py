"""Review 61: claims written through the service (real session files, real SQLite) that
the contradiction check read wrongly: "one" and "a" before a unit, a rate after a verb,
a rate of bytes beside a rate of requests, and words the vocabulary did not translate.
Their pairs are in the fixture set too (``benchmarks/conflict_pairs.json``)."""

from __future__ import annotations

import pytest

from tests.recall.test_contradiction_review57 import _refused
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def _written(app: Waymarks, claim: str) -> Committed:
    written = app.remember(claim)
    assert isinstance(written, Committed), written
    return written


def _refused_then_written(app: Waymarks, first: str, contradicting: str,
                          restated: str) -> None:
    """``first`` is written, ``contradicting`` refused beside it, ``restated`` written."""
    _written(app, first)
    _refused(app, contradicting)
    _written(app, restated)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Logs are kept for 7d.", "Logs are kept for one week.", "Logs are kept for 10d."),
    ("The cache TTL is 3600 seconds.", "The cache TTL is one hour.", "The cache TTL is 2 hours."),
    ("Logs are kept for 24 hours.", "Logs are kept for one day.", "Logs are kept for 2 days."),
    ("Logs are kept for 7 days.", "Logs are kept for a week.", "Logs are kept for 14 days."),
    ("The lock expires after 60 minutes.", "The lock expires after an hour.",
     "The lock expires after 90 minutes."),
    ("The backoff is 500 ms.", "The backoff is half a second.", "The backoff is 1 second."),
    ("Sessions last 12 hours.", "Sessions last half a day.", "Sessions last 1 day."),
])
def test_one_or_a_before_a_unit_is_one_of_it(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"one week" and "a week" were no value ("one" is mostly a pronoun, "a" an article):
    the claim had no signature, and the replay rule's shared derived key refused it
    beside "… 7d.", the same duration; before a unit each is the number 1."""
    _written(app, first)
    _written(app, restated)
    _refused(app, contradicting)


@pytest.mark.parametrize("sentence", [
    "The default profile is the fast one.",
    "Requests are retried twice a minute.",
    "Only one worker handles the queue.",
    "The job runs once an hour.",
])
def test_one_and_a_elsewhere_are_no_number(sentence: str) -> None:
    """A pronoun, an article of a rate ("twice a minute") and a count of a thing before
    another noun are left as written."""
    from waymarks.core.claim_values import spelled

    assert spelled(sentence.lower()) == sentence.lower()


@pytest.mark.parametrize(("first", "second", "contradicting"), [
    ("The API is limited to 5 MB/s.", "The API is limited to 100 req/s.",
     "The API is limited to 10 MB/s."),
    ("The upload limit is 10 MB/s.", "The upload limit is 200 req/s.",
     "The upload limit is 300 req/s."),
])
def test_a_rate_of_bytes_is_another_attribute_than_a_rate_of_requests(
        app: Waymarks, first: str, second: str, contradicting: str) -> None:
    """"5 MB/s" and "100 req/s" were both rates, one kind: the second was refused as a
    conflict with the first, though a limit on bandwidth and one on requests both hold.
    Another rate of the same unit still contradicts."""
    _written(app, first)
    _written(app, second)
    _refused(app, contradicting)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The API allows 5 req/s.", "The API allows 300 requests per minute.",
     "The API allows 10 req/s."),
    ("The gateway accepts 100 req/s.", "The gateway accepts 6000 req/min.",
     "The gateway accepts 200 req/s."),
    ("The worker handles 20 jobs/min.", "The worker handles 20 jobs per minute.",
     "The worker handles 40 jobs/min."),
])
def test_a_rate_after_a_verb_is_the_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """A number after a verb and before a word that is no unit ("allows 5 req/s") was
    read as naming the subject ("allows 5", as "Rack 3 holds …"), and "req/s" as a path
    both claims state: "The API allows 10 req/s." was written beside "… 5 req/s.". A
    number before a rate's time unit is the rate."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("english", "chinese_restated", "chinese_contradicting"), [
    ("The message queue retry count is 5.", "消息队列的重试次数是 5。", "消息队列的重试次数是 7。"),
    ("The search service port is 9201.", "搜索服务端口是 9201。", "搜索服务端口是 9200。"),
    ("The connection pool size is 10.", "连接池大小是 10。", "连接池大小是 20。"),
    ("The request timeout is 30 seconds.", "请求超时时间是 30 秒。", "请求超时时间是 60 秒。"),
    ("Logs are kept for 7 days.", "日志保留 7 天。", "日志保留 14 天。"),
    ("The config file is /etc/app.toml.", "配置文件是 /etc/app.toml。",
     "配置文件是 /etc/app.yaml。"),
    ("The task timeout is 10 minutes.", "任务超时是 10 分钟。", "任务超时是 20 分钟。"),
    ("The email server is smtp.example.com.", "邮件服务器是 smtp.example.com。",
     "邮件服务器是 mail.example.com。"),
    ("The image tag is v1.2.", "镜像标签是 v1.2。", "镜像标签是 v1.3。"),
])
def test_a_chinese_claim_is_about_the_english_one_its_words_translate(
        app: Waymarks, english: str, chinese_restated: str,
        chinese_contradicting: str) -> None:
    """A Chinese word the vocabulary did not know ("消息", message; "搜索", search; "连接",
    connection; "保留", kept; "时间" of "超时时间", the timeout's "time") was a subject
    term of its own, character by character, so the Chinese claim was another subject
    than the English one it translates: "消息队列的重试次数是 7。" was written beside
    "The message queue retry count is 5.". The restatement is still written."""
    _refused_then_written(app, english, chinese_contradicting, chinese_restated)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The new checkout is enabled for 10% of users.", "The new checkout is enabled for 10% "
     "of users in every region.", "The new checkout is enabled for 50% of users."),
    ("新结账功能对 10% 的用户开启。", "新结账功能对 10% 的用户开启。目前如此。",
     "新结账功能对 50% 的用户开启。"),
    ("The cache is enabled with a TTL of 60s.", "The cache is enabled with a TTL of 1 minute.",
     "The cache is enabled with a TTL of 30s."),
    ("The allowed ports are 8000-8010.", "The allowed ports are 8000-8010 only.",
     "The allowed ports are 9000-9010."),
    ("The required Node version is 18.", "The required Node version is 18.0.",
     "The required Node version is 20."),
    ("The cache is enabled on port 8080.", "The cache is enabled on port 8080 in dev.",
     "The cache is disabled on port 8080."),
])
def test_a_shared_state_is_no_agreement_on_the_values_beside_it(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """Any value in common made two claims agree, a state too: "… enabled for 50% of
    users." was written beside "… enabled for 10% of users." (both "enabled"), and "The
    allowed ports are 9000-9010." beside "… 8000-8010." ("allowed" a state word). A state
    and the other values are compared each with their own kind: either disagreeing is a
    conflict (a shared port does not make "enabled" agree with "disabled" either)."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("first", "second"), [
    ("Debug logging is enabled in staging.", "Debug logging is enabled in production."),
    ("Feature flag dark_mode is enabled.", "Feature flag beta_search is disabled."),
    ("SSO is required for admins.", "SSO is required on port 443."),
])
def test_states_and_values_of_two_facts_still_stand_together(
        app: Waymarks, first: str, second: str) -> None:
    """Compared kind by kind, two facts stay two: other subjects, or no kind of value
    beside the state in common."""
    _written(app, first)
    _written(app, second)


@pytest.mark.parametrize(("first", "second"), [
    ("The new checkout is enabled in eu-west-1.", "The new checkout is enabled in us-east-1."),
    ("Maintenance mode is enabled on db-1.", "Maintenance mode is enabled on db-2."),
    ("Debug logging is enabled on worker-3.", "Debug logging is enabled on worker-4."),
    ("Caching is enabled on /api/products.", "Caching is enabled on /api/cart."),
    ("Strict mode is enabled in tsconfig.json.", "Strict mode is enabled in tsconfig.build.json."),
    ("IPv6 is disabled on 10.0.0.5.", "IPv6 is disabled on 10.0.0.6."),
    ("Rate limiting is enabled on port 8080.", "Rate limiting is enabled on port 8443."),
    ("限流已在端口 8080 上启用。", "限流已在端口 8443 上启用。"),
])
def test_one_state_in_two_places_is_two_facts(app: Waymarks, first: str, second: str) -> None:
    """Compared apart from the state, the place a state holds in ("enabled in eu-west-1",
    "on db-1", "on port 8080", "在端口 8080 上启用") was read as the state's value: the same
    state in a second region, host, file or port was refused as another value, where
    before it was written. A place after the state word (after 在 in Chinese) is where it
    holds; the same state elsewhere is one more fact, and the opposite state there still
    contradicts it."""
    _written(app, first)
    _written(app, second)
    flips = {"enabled": "disabled", "disabled": "enabled", "启用": "禁用"}
    word = next(w for w in flips if w in second)
    _refused(app, second.replace(word, flips[word]))


def test_a_learned_claim_of_the_same_state_elsewhere_is_not_held_out(app: Waymarks) -> None:
    """A plan weighs a learned claim against the person's own by the same rules
    (:class:`~waymarks.service.own_claims.OwnClaims`): "… enabled on db-2." was held out
    as contradicting their "… enabled on db-1.", a second host read as another value."""
    from waymarks.service.own_claims import OwnClaims

    mine = _written(app, "Maintenance mode is enabled on db-1.")
    own = OwnClaims(app)
    assert own.contradicted("Maintenance mode is enabled on db-2.") is None
    assert own.contradicted("Maintenance mode is disabled on db-1.") == mine.id


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The queue holds at most 100 jobs.", "The queue holds at most 100 jobs at once.",
     "The queue holds at most 200 jobs."),
    ("The pool keeps max 10 connections.", "The pool keeps max 10 connections open.",
     "The pool keeps max 20 connections."),
    ("Each batch sends roughly 500 emails.", "Each batch sends roughly 500 emails a run.",
     "Each batch sends roughly 900 emails."),
])
def test_a_bound_before_a_count_is_no_name(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"at most 100 jobs" read "most 100" as a name (as "Rack 3" is one), so the claim
    stated no value, and "… at most 200 jobs." was written beside it: a bound or an
    estimate ("most", "least", "max", "roughly" …) before a number names nothing."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("old", "changed"), [
    ("The DB port is 5432.", "The DB port isn't 5432 anymore."),
    ("The DB port is 5432.", "The DB port isn't 5432 anymore; it's 5433."),
    ("The timeout is 30 seconds.", "The timeout isn't 30 seconds anymore; it's 60 seconds."),
    ("The API listens on 8080.", "The API doesn't listen on 8080 anymore."),
])
def test_a_value_denied_with_anymore_contradicts_it(app: Waymarks, old: str,
                                                    changed: str) -> None:
    """"isn't 5432 anymore" read the "t" of "isn't" as a name numbered 5432 (the claim
    stated no value), and "anymore" as a subject word, so the claim was about another
    subject: each change was written beside the value it denies."""
    _written(app, old)
    _refused(app, changed)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The sprint ends on 2026-12-18.", "The sprint ends on December 18, 2026.",
     "The sprint ends on December 20, 2026."),
    ("The release is on Dec 20, 2026.", "The release is on 2026-12-20.",
     "The release is on 2026-12-22."),
    ("The code freeze starts on 15 December 2026.", "The code freeze starts on 2026-12-15.",
     "The code freeze starts on Dec. 18th, 2026."),
])
def test_a_date_written_in_english_is_that_date(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"December 20, 2026" was no date (a number 20 and a number 2026), so it was no
    other value than 2026-12-18 and was written beside it; a month's name with a day and
    a year is the ISO date, as "2026年12月20日" is."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Build output goes to dist/ by default.", "Build output goes to ./dist/ by default.",
     "Build output goes to build/ by default."),
    ("构建输出目录是 dist/。", "构建输出目录是 ./dist。", "构建输出目录是 build/。"),
    ("The output directory is dist/", "The output directory is ./dist/",
     "The output directory is out/"),
])
def test_a_folder_written_with_its_slash_is_a_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """A path of one folder and its slash ("dist/") was a value only when a full stop
    followed it (read as a path "dist/." then): before a space, a Chinese full stop or
    the end, the claim had none, and "… goes to build/ by default." was written beside
    "… dist/ by default."; "./dist/" and "dist/" were two values too."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("The memory limit is 512Mi.", "The memory limit is 512 MiB.", "The memory limit is 1Gi."),
    ("The memory limit is 1Gi.", "The memory limit is 1024Mi.", "The memory limit is 2Gi."),
    ("The PVC requests 10Gi.", "The PVC requests 10 GiB.", "The PVC requests 20Gi."),
])
def test_a_size_in_kubernetes_units_is_that_size(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"512Mi" and "1Gi" (a manifest's binary units, no "B") were no value: the claim had
    no signature, so "… 1Gi." was written beside "… 512Mi." unless a shared derived key
    refused it, as it refused "… 512 MiB.", the same size."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("first", "contradicting"), [
    ("The dev port is 3001.", "开发环境端口是 3000。"),
    ("The staging API port is 8081.", "The staging environment API port is 8080."),
    ("The production database port is 5433.", "生产环境数据库端口是 5432。"),
])
def test_the_word_environment_qualifies_as_the_environment_does(
        app: Waymarks, first: str, contradicting: str) -> None:
    """"the staging environment" is "staging": the word "environment" (环境) named a
    narrower thing, so "生产环境数据库端口是 5432。" was written beside "The production
    database port is 5433."."""
    _refused_then_written(app, first, contradicting, "The API metrics port is 9090.")


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("默认分支是 main。", "默认分支是 main.", "默认分支是 master."),
    ("日志级别为 debug。", "日志级别为 debug.", "日志级别为 info."),
])
def test_a_word_value_ends_before_its_full_stop(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """A word value after 是 ended with an ASCII full stop typed after it ("main."), so
    "默认分支是 main." was refused as another value than "默认分支是 main。"."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("배포 브랜치는 main입니다.", "배포 브랜치는 main 입니다.", "배포 브랜치는 release입니다."),
    ("로그 레벨은 debug입니다.", "로그 레벨은 debug.", "로그 레벨은 info입니다."),
    ("デフォルトのブランチは main です。", "デフォルトのブランチは mainです。",
     "デフォルトのブランチは master です。"),
    ("ログレベルは debug です。", "ログレベルは debug。", "ログレベルは info です。"),
])
def test_a_word_value_of_a_japanese_or_korean_claim_is_read_as_a_chinese_ones(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """docs/conflicts.md: a word that is the rest of its clause after 是, 为 or = is a value, and
    Japanese and Korean claims of the same shapes are read so too; after は or a Korean
    topic particle, before です or 입니다, the word was no value (no signature), so
    "배포 브랜치는 release입니다." was written beside "배포 브랜치는 main입니다."."""
    _refused_then_written(app, first, contradicting, restated)


@pytest.mark.parametrize(("first", "contradicting", "other_flag"), [
    ("Feature flag new_ui is on.", "new_ui is off.", "beta_search is off."),
    ("The checkout_v2 flag is enabled.", "checkout_v2 is disabled.", "checkout_v3 is disabled."),
    ("The new_ui feature flag is on.", "The new_ui toggle is off.", "The old_ui toggle is off."),
])
def test_a_flag_named_with_or_without_the_word_flag_is_one_flag(
        app: Waymarks, first: str, contradicting: str, other_flag: str) -> None:
    """"flag" named a narrower thing than the flag's name ("feature" already qualified as
    a generic word): "new_ui is off." was written beside "Feature flag new_ui is on.";
    another flag's state is still no conflict."""
    _refused_then_written(app, first, contradicting, other_flag)


def test_an_address_and_a_url_of_one_thing_are_two_facts(app: Waymarks) -> None:
    """"url" was made a word of "address" with 地址: "The API URL is https://…" was
    refused beside "The API address is 10.0.0.5.", both true of one API."""
    _written(app, "The API address is 10.0.0.5.")
    _written(app, "The API URL is https://api.example.com.")
    _refused(app, "The API URL is https://api2.example.com.")
    _refused(app, "API 网址是 https://api3.example.com。")


def test_a_job_and_a_task_are_two_words(app: Waymarks) -> None:
    """"task" was made a word of "job" (任务 with it): "The task timeout is 5 minutes."
    was refused beside "The job timeout is 30 minutes.", a CI job's and a worker task's
    limits; 任务 is the task's word."""
    _written(app, "The job timeout is 30 minutes.")
    _written(app, "The task timeout is 5 minutes.")
    _refused(app, "任务超时是 20 分钟。")
    _refused(app, "作业超时是 60 分钟。")


@pytest.mark.parametrize(("first", "restated", "contradicting"), [
    ("Deploys are frozen from 2026-12-20 to 2027-01-05.",
     "Deploys are frozen from December 20, 2026 until 2027-01-05.",
     "Deploys are frozen from 2026-12-22 to 2027-01-05."),
    ("The code freeze runs from 2026-12-20 through 2027-01-05.",
     "The code freeze runs 2026-12-20/2027-01-05.",
     "The code freeze runs from 2026-12-20 through 2027-01-10."),
])
def test_a_period_from_one_date_to_another_is_one_value(
        app: Waymarks, first: str, restated: str, contradicting: str) -> None:
    """"from 2026-12-20 to 2027-01-05" was two dates, either in common an agreement: a
    freeze starting two days later, or ending later, was written beside it. A period is
    one value (ISO's 2026-12-20/2027-01-05); a change "moved from" one date to another
    still denies the first."""
    _refused_then_written(app, first, contradicting, restated)
    _written(app, "The launch is on 2026-12-20.")
    _refused(app, "The launch moved from 2026-12-20 to 2027-01-05.")
