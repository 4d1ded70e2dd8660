"""Values of a kind (:mod:`waymarks.core.contradiction`'s signatures): a service, a tool or
a cloud region named where a claim says where a thing runs, lives or goes, or what it is
done with ("CI runs on GitHub Actions.", "The database runs in eu-west-1.", "We use uv to
manage dependencies.", "密钥存放在 Vault 里。"). Read as words, such a name was a subject
word (each claim another subject) or, after "runs on", no value at all, so "… runs on
CircleCI." was written beside "… runs on GitHub Actions.".

A name is a value of its kind only after a word that makes it an object (a verb of using
or a preposition: "on", "in", "to", "by", "with", "through", "use", 在, 到, 使用 …), not as
the subject ("Vault listens on 8200."); a region is one only after a verb of where
("runs in", "lives in", "is deployed to", 部署在), as "enabled in us-east-1" says where a
state holds. Two values compare only within one kind (:func:`waymarks.core.claim_values.
kinds`): "The frontend uses yarn." says nothing of "The frontend uses TypeScript." (no
kind), nor "Logs go to Datadog." of "Errors go to Sentry." (two kinds). "rather than
npm", "instead of npm" and "not npm" deny the name. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from waymarks.core.claim_tool_kinds import KIND_WORDS, TOOL_KINDS, tool_said
from waymarks.core.lazy_re import lazy

#: kind -> its names, each as typed in lower case (the first is the canonical name)
_KINDS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "ci": (("github actions", "gh actions"), ("gitlab ci", "gitlab ci/cd"), ("circleci",),
           ("jenkins",), ("buildkite",), ("travis ci", "travis"), ("teamcity",),
           ("azure pipelines",), ("bitbucket pipelines",), ("drone ci",),
           ("semaphore ci",)),
    "js-packages": (("npm",), ("yarn",), ("pnpm",), ("bun",)),
    "py-packages": (("pip",), ("poetry",), ("uv",), ("pipenv",), ("pdm",), ("conda",),
                    ("hatch",)),
    "bundler": (("vite",), ("webpack",), ("rollup",), ("esbuild",), ("parcel",),
                ("turbopack",), ("rspack",)),
    "secrets": (("vault", "hashicorp vault"), ("aws secrets manager", "secrets manager"),
                ("doppler",), ("1password",), ("azure key vault", "key vault"),
                ("gcp secret manager", "google secret manager", "secret manager"),
                ("infisical",)),
    "registry": (("docker hub", "dockerhub"), ("ghcr", "github container registry"),
                 ("ecr", "amazon ecr", "aws ecr"), ("gcr",), ("artifact registry",),
                 ("quay",), ("harbor",)),
    "hosting": (("netlify",), ("vercel",), ("cloudflare pages",), ("github pages",),
                ("heroku",), ("firebase hosting",), ("aws amplify", "amplify")),
    "logs": (("datadog",), ("loki", "grafana loki"), ("splunk",), ("papertrail",),
             ("new relic",), ("honeycomb",), ("cloudwatch", "cloudwatch logs")),
    "errors": (("sentry",), ("rollbar",), ("bugsnag",), ("honeybadger",), ("airbrake",)),
    "flags": (("launchdarkly",), ("unleash",), ("flagsmith",), ("growthbook",),
              ("configcat",)),
    "email": (("sendgrid",), ("postmark",), ("mailgun",), ("amazon ses", "aws ses", "ses"),
              ("mailchimp",), ("resend",), ("sparkpost",)),
    "broker": (("rabbitmq",), ("kafka",), ("amazon sqs", "aws sqs", "sqs"), ("nats",),
               ("activemq",), ("pulsar",)),
    "search": (("elasticsearch",), ("opensearch",), ("meilisearch",), ("typesense",),
               ("algolia",), ("solr",)),
    "cloud": (("aws",), ("gcp", "google cloud"), ("azure",), ("阿里云",), ("腾讯云",),
              ("华为云",), ("digitalocean",), ("hetzner",)),
    "tests": (("pytest",), ("unittest",), ("jest",), ("vitest",), ("mocha",)),
    # what a thing keeps its data or cache in, and the language it is written in ("The
    # cache cluster uses Redis.", "缓存使用 Memcached。", "订单服务用 Go 编写。")
    "cache": (("redis",), ("memcached",), ("valkey",), ("keydb",), ("dragonfly",)),
    "database": (("postgres", "postgresql"), ("mysql",), ("mariadb",), ("mongodb",),
                 ("sqlite",), ("dynamodb",), ("cockroachdb",), ("cassandra",),
                 ("clickhouse",), ("oracle database",), ("sql server",)),
    "language": (("go", "golang"), ("java",), ("python",), ("rust",), ("typescript",),
                 ("javascript",), ("kotlin",), ("ruby",), ("php",), ("scala",),
                 ("elixir",), ("c#", "csharp"), ("c++", "cpp"), ("swift",)),
    # the day of the week a thing happens on ("changes every Monday", "runs on Sundays")
    "weekday": tuple((day, day + "s") for day in (
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")),
} | TOOL_KINDS
_CANONICAL: Final = {name: f"k:{kind}:{names[0]}" for kind, groups in _KINDS.items()
                     for names in groups for name in names}
_NAMES: Final = "|".join(re.escape(name) for name in sorted(_CANONICAL, key=len, reverse=True))
#: a cloud region by its shape: AWS ("us-east-1", "ap-northeast-1"), Google Cloud
#: ("europe-west4", "us-central1") and Azure ("eastus2", "westeurope")
_REGION: Final = (
    r"(?:us|eu|ap|sa|ca|me|af|il|mx|cn)(?:-gov)?-(?:north|south|east|west|central)"
    r"(?:east|west)?-\d"
    r"|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-"
    r"(?:north|south|east|west|central)(?:east|west)?\d{1,2}"
    r"|(?:east|west|north|south|central)(?:us|europe|asia)\d?"
    # a Chinese cloud's region in words ("华东 1 区", "华北2", "华南 3 区")
    r"|(?:华东|华北|华南|华中|西南|西北|东北)\s*\d{1,2}(?:\s*区)?")
#: the words that make a name an object: a verb of using, a preposition, a copula; the
#: denials of one ("rather than", "instead of", "not")
_BEFORE_NAME: Final = (
    r"\b(?P<verb>(?:(?:runs?|running|ran|lives?|living|is|are|be|been|hosted|deployed"
    r"|stored|kept|managed|backed|shipped|pushed|published|sent|built|bundled|tested"
    r"|handled|tracked|uploaded|go(?:es)?|moved|migrated|switched|served|located|based)"
    r" )?(?:on|in|into|to|by|with|through|via|at|onto|over|as)|use[sd]?|using|follows?|is|are|be"
    r"|was|were"
    r"|every"
    r"|(?P<denial>rather than|instead of|not|never|no longer)|(?P<since>from))"
    r" (?:the |an? |our |a self-hosted )?"
    r"|(?P<han>(?:部署|运行|托管|存放|存储|保存|发送|上传|推送|迁移|迁到|放)?(?:在|到|至|于)"
    r"|改用|使用|采用|用|通过|基于|由|是|为|(?P<han_denial>而不是|不是|不用|不再使用|不使用))\s*")
_KIND_NAME: Final = lazy(
    # (a number after a name is its version, "Node 20", but after a day its time: "every
    # tuesday 10:00", as a Chinese schedule reads, :mod:`waymarks.core.claim_schedules`)
    rf"(?:{_BEFORE_NAME})(?P<name>(?:{_NAMES})(?![\w-]|\.\w|:\S|\s*-|(?<!day)(?<!days)\s*v?\d)"
    rf"|(?P<region>{_REGION})(?![\w-]))"
    r"(?:\s*(?:上|中|里)(?![\u4e00-\u9fff]))?")


def kind_values(text: str, denied_at: Callable[[str, int, int], bool]
                ) -> tuple[str, set[str], set[str]]:
    """``text`` (folded, in lower case) with each name of a kind and the words that make it
    an object blanked (no subject words), the values (``k:<kind>:<name>``) and those the
    sentence denies ("rather than npm", "not npm", "不用 npm", or by ``denied_at``: "moved
    from Jenkins to …")."""
    values: set[str] = set()
    denied: set[str] = set()
    if not _HINT.search(text) and not _SHARING_HINT.search(text):
        return text, values, denied
    said = text
    blanked: list[tuple[int, int]] = []  # (blanked once at the end: each match's copy of
    # the text made a long one quadratic, 919 ms at 100 KB)
    for match in _KIND_NAME.finditer(said):
        if match.group("region") is not None:
            words = said[match.start():match.start("name")].split()
            if (words[-1] in _COPULAS if words else True) or (
                    match.group("han") is None and words[0] not in _WHERE_VERB):
                continue  # (after a copula alone, the value the copula rule reads)
            value = "k:region:" + "".join(match.group("region").split()).rstrip("区")
        else:
            value = _CANONICAL[match.group("name")]
            kind = value[2:value.index(":", 2)]
            if kind in _USED and not _USED[kind].search(
                    said, max(0, match.start() - 8), match.start("name")):
                continue  # ("stored in Redis": the place read as before; "ready to go")
            if kind in TOOL_KINDS and not tool_said(said, match.start(), match.start("name")):
                continue  # ("stored in Terraform Cloud": a place; "encrypted at rest")
        values.add(value)
        if match.group("denial") or match.group("han_denial") or denied_at(
                said, match.start(), match.end()) or (
                match.group("since") and _TO.match(said, match.end())):
            denied.add(value)
        blanked.append(match.span())
    for match in _OWN_OR_SHARED.finditer(said):  # a thing of its own, or one it shares
        values.add("k:own:" + ("own" if match.group("own") else "shared"))
        blanked.append(match.span())
    return blank(said, blanked), values, denied


def blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each of ``spans`` (which may overlap) replaced by as many spaces, in
    one pass."""
    if not spans:
        return text
    pieces: list[str] = []
    done = 0
    for start, end in sorted(spans):
        if end <= done:
            continue
        start = max(start, done)
        pieces.append(text[done:start])
        pieces.append(" " * (end - start))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


#: a thing of its own ("has its own database", "uses a dedicated database", "有自己的数据库")
#: or shared with another ("shares the main database", "和主服务共用一个数据库"): two values of
#: one kind
_OWN_OR_SHARED: Final = lazy(
    r"(?P<own>\b(?:has|have|gets?|uses?|runs?) (?:its|their|an?) (?:own|dedicated|separate)\b"
    r"|有自己的|有独立的|使用独立的)"
    r"|\bshares? (?:the|a|one) (?:main |same |common |primary |single )?"
    # (and the word saying which kind of it: "shares the main Postgres database")
    r"(?:[a-z][\w-]* (?=(?:database|db|cluster|bucket|queue|cache|schema)\b))?"
    r"|\buses? the (?:main|same|shared|common) "
    r"|(?:和|与)[\u4e00-\u9fff]{1,6}?(?:共用|共享)(?:一个|同一个)?|共用|共享")


#: the kinds named as a value only after a verb of using (or, a language, of writing):
#: "uses Redis", "使用 Memcached", "is written in Go", "用 Go 编写"; after "stored in" or
#: "kept in" a store is the place it is (:mod:`waymarks.core.claim_word_values`), after a
#: copula a word ("The default language is Go.")
_USING: Final = r"(?:\buse[sd]? |\busing |使用\s*|采用\s*|改用\s*|(?<!使)用\s*)"
_USED: Final = {"cache": lazy(_USING + "$"), "database": lazy(_USING + "$"),
                "language": lazy(rf"(?:{_USING}|\bwritten in |\bbuilt in )$")}


#: the words of a kind's own attribute: a claim of a package manager says what installs
#: the dependencies whatever it names of them ("Use yarn to install dependencies.", "Always
#: use pnpm rather than yarn.", "使用 npm 管理依赖": one subject, the kind's)
_KIND_WORDS: Final = {kind: frozenset(("dependency", "install", "package", "manage",
                                       "management", "manager", "管理", "安装"))
                      for kind in ("js-packages", "py-packages")} | {
    "language": frozenset(("written", "write", "language", "编", "写", "语", "言"))} | KIND_WORDS


def kind_subject(subject: set[str], values: set[str]) -> set[str]:
    """``subject`` with the words of the kinds of ``values`` (:data:`_KIND_WORDS`) left out
    and each such kind as a term: the attribute both claims state."""
    for value in values:
        kind = value[2:value.index(":", 2)] if value[:2] == "k:" else ""
        if kind in _KIND_WORDS:
            subject = (subject - _KIND_WORDS[kind]) | {"@" + kind}
    return subject


def done_beside_kind(action: str, valued: str, values: frozenset[str]) -> bool:
    """Whether ``action`` (normalized, a claim of no value) says a thing done to its
    subject in the passive and ``valued`` (normalized, of values ``values``) another verb
    done to it with a name of a kind ("Feature flags are managed in LaunchDarkly." beside
    "… are cleaned up every quarter."): two things done to it, as two claims of no value
    are (read as no value, the name had made it none)."""
    done, verb = _DONE.match(valued), _DONE.match(action)
    return any(value[:2] == "k:" for value in values) and done is not None and (
        verb is not None and done.group(1) != verb.group(1))


#: a participle in "ed" after the copula ("are managed in …", "are cleaned up …")
_DONE: Final = lazy(r"^[^=]+? (?:is|are)(?: (?:now|also|always|automatically|only))?"
                    r" ([a-z]{3,}ed)\b")
#: the verbs before a region that say where a thing is (a region after another word, as
#: "enabled in us-east-1", says where a state holds: compared apart, as before)
_WHERE_VERB: Final = frozenset(
    "runs run running ran lives live living is are be been hosted deployed stored kept"
    " located based moved migrated served was were".split())
_COPULAS: Final = frozenset(("is", "are", "be", "was", "were", "是", "为"))
_SHARING_HINT: Final = lazy(r"own|dedicated|separate|share|自己|独立|共")
_TO: Final = lazy(r" (?:to|into) ")


#: a cheap test before the expression: some name's first letters, or a region's digit
_HINT: Final = lazy(
    "|".join(sorted({re.escape(name[:3]) for name in _CANONICAL})) + r"|\d|east|west")
#: (a Chinese region holds a digit: the hint above finds it)
