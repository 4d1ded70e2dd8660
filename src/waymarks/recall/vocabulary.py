"""Curated vocabulary for recall: stop words, filler, generic words, concepts, query framing.

Small on purpose and general (no dataset-specific entries): a concept groups words that
mean the same thing across Chinese and English, so synonyms count as one feature. The
groups are about software work: an everyday word is no synonym of a coding one ("job"
with "career" and 工作, "work", recalled every CI job for a career question or "how does
this function work?"), and everyday groups (pets, books, trips, family) named a record of
another person's store by a rare concept (LoCoMo dev, lexical: foreign injection 5.1 ->
3.2 %).
Keys are case-folded surface words and English stems (the analyser looks up both).
"""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy

STOP_WORDS: Final = frozenset(
    """
    a an the and or but if then else of to in on at by for with from into onto over under
    about as is am are was were be been being do does did done doing have has had having
    i me my mine we us our ours you your yours he him his she her hers it its they them
    their theirs this that these those there here what which who whom whose when where why
    how all any both each few more most other some such no nor not only own same so than
    too very can will just should would could may might must shall s t don't isn't aren't
    wasn't weren't won't can't didn't doesn't i'm i've i'd you're we're they're it's that's
    let's what's where's who's how's there's here's also up down out off again further once
    yes ok okay oh hey hi hello well really
    get got gets getting go goes going went gone make made makes like still even ever
    much many lot lots thing things something anything everything nothing stuff
    的 了 是 在 和 与 及 也 都 就 还 又 很 把 被 给 让 吧 呢 啊
    呀 吗 嘛 哦 么 着 过 之 其 这 那 这个 那个 这些 那些 一个
    一下 我 你 他 她 它 我们 你们 他们 她们 它们 自己 什么 怎么
    怎样 为什么 哪 哪里 哪个 谁 如何 是否 有 没有 不 没 要 会 能
    可以 应该 需要 现在 已经 多少 几 哪些 是多少 里 中 上 时候 何时 几时
    """.split()
)

#: stop words that are no function words: capitalized before an attribute, one is a name
#: even as a prompt's first word ("Go version?", "Make version?"), which "What", "Is" or
#: "The" never is (:mod:`waymarks.recall.plan`)
NAME_LIKE_STOP_WORDS: Final = frozenset({"go", "make"})

#: words that say nothing about a subject; they never become features
FILLER: Final = frozenset(
    """
    please thanks thank want need know think tell say said again now today
    time way kind sort actually basically maybe probably sure right new old good bad help
    look see try use used using work working question answer continue continu resume
    proceed keep carry 好 好的 嗯 行 对 是的 ok
    继续 接着 接上 请 谢谢 想 知道 觉得 告诉 说 记得 回忆 今天 帮 帮忙
    问题 看看 试试 使用 用
    """.split()
)

#: generic configuration words: real features, but they cannot qualify a record alone
GENERIC: Final = frozenset(
    """
    config configur set setting value option default file project code run enabl disabl
    chang updat status progress state current
    配置 设置 值 选项 默认 文件 项目 代码 运行 状态 进度 修改 更新
    """.split()
)

#: concept name -> words (surface forms and English stems) that mean it
_CONCEPT_GROUPS: Final[dict[str, tuple[str, ...]]] = {
    "database": ("database", "databas", "db", "数据库", "資料庫"),
    "port": ("port", "端口", "端口号", "埠"),
    "auth": ("auth", "authent", "authentication", "login", "logon", "signin", "认证", "鉴权",
             "登录", "登陆"),
    "password": ("password", "passwd", "passphras", "密码", "口令"),
    "config": ("config", "configur", "configuration", "配置"),
    "test": ("test", "tests", "测试", "单测"),
    "deploy": ("deploy", "deployment", "releas", "部署", "发布", "上线"),
    "server": ("server", "服务器", "伺服器"),
    "error": ("error", "errors", "failur", "exception", "错误", "报错", "异常"),
    "cache": ("cache", "cach", "缓存"),
    "user": ("user", "用户"),
    "directory": ("directori", "directory", "folder", "目录", "文件夹"),
    "branch": ("branch", "分支"),
    "commit": ("commit", "提交"),
    "build": ("build", "构建", "编译"),
    "install": ("instal", "install", "安装"),
    "dependency": ("depend", "dependency", "depende", "依赖"),
    "log": ("log", "logs", "日志"),
    # a session, a token or a link that expires after a while has that while for its
    # timeout ("what's the auth session timeout?" of "Auth sessions expire after 12
    # hours."): expiring is timing out, said of what is held rather than what is waited on
    "timeout": ("timeout", "timesout", "timedout", "timingout", "expir", "expire", "expiri",
                "expiry", "超时", "过期"),
    "version": ("version", "版本", "版本号"),
    "token": ("token", "令牌"),
    "key": ("apikey", "密钥"),
    "email": ("email", "mail", "邮件", "邮箱"),
    "schedule": ("schedul", "schedule", "calendar", "日程", "日历"),
    "meeting": ("meet", "meeting", "会议", "开会"),
    # being paged is being on call ("who gets paged?" of the on-call rotation); only the
    # verb's past and the pager: "pages" and "paging" are a site's pages and pagination,
    # and "paged" stemmed as they are recalled "Cloudflare Pages" and a login page
    # who owns a thing of software work is its owner and its maintainer ("who maintains
    # the gateway?", "who's the owner of the mailer?" of "Tom Becker owns the gateway.");
    # "own" typed alone stays a stop word ("my own branch")
    "owner": ("owner", "own", "maintainer", "maintain"),
    # the tool that lints is what is run to lint ("how do I run the linter?" of "Use
    # `make lint` before pushing."): "linter" keeps its "-er" in the stemmer
    "lint": ("lint", "linter", "linters", "linting"),
    "oncall": ("oncall", "oncal", "值班", "paged", "pager"),
    # an architecture decision record is an ADR, spelled out or not ("where are the
    # ADRs?" of "The architecture decision records are in docs/adr/."): the spelled-out
    # form is read as one word (:data:`PHRASAL_WORDS`)
    "adr": ("adr", "adrs", "architecturedecisionrecord", "architecturedecisionrecords"),
}

#: the things of software work named by a verb and "-er" that the stemmer cuts back to the
#: verb ("exporter" to "export", "container" to "contain", "manager" to "manag"): each is a
#: word of its own, so "the metrics exporter" is not "export the issues", nor "the
#: package manager" "flags are managed"; one that keeps its "-er" ("worker", "parser")
#: needs no entry, nor "scheduler", a word of the schedule concept (split from it, a
#: question about the on-call schedule found the scheduler's beat_schedule.py by its one
#: rare "schedule"). The plural is the same word
AGENT_NOUNS: Final = frozenset(
    """
    exporter importer container controller compiler transformer consumer
    producer provider listener installer manager computer
    """.split()
)

CONCEPTS: Final[dict[str, str]] = {
    word: name for name, words in _CONCEPT_GROUPS.items() for word in words
}

#: recall framing around the subject of a question, removed from queries only. Each
#: expression comes with its cues, one of which every match of it contains: a query with
#: none of them is not scanned, and the expression is compiled on first use (compiling
#: all eight cost a fresh ``waymarks recall`` 1.5-2 ms, for most questions nothing)
FRAMING_PATTERNS: Final = tuple(
    (cues, lazy(p))
    for cues, p in (
        (("you",), r"\b(?:do|did|can|could)\s+you\s+(?:still\s+)?(?:remember|recall)\b"
                   r"(?:\s+(?:what|that|if|whether))?"),
        (("did",),
         r"\bwhat\s+did\s+(?:we|i|you)\s+(?:say|decide|agree|note|write)\s+(?:about|on)\b"),
        (("remind", "tell"), r"\b(?:remind\s+me|tell\s+me)\s+(?:again\s+)?(?:about|what|of)?\b"),
        (("forg", "remember"), r"\bi\s+(?:forgot|forget|don'?t\s+remember)\b"),
        (("remember", "recall"),
         r"^\s*(?:please\s+)?(?:remember|recall)\b(?:\s+(?:what|that|if|whether))?"),
        (("you",), r"\bwhat\s+do\s+you\s+(?:remember|recall|know)\s+(?:about|of)\b"),
        (("记", "之前", "提醒我"),
         r"(?:你)?还记得|你记得|记不记得|我们之前(?:说过|讨论过|聊过)?|之前(?:说过|提到过?)|提醒我"),
        (("来着", "吗", "呢"), r"(?:是什么|是多少|是哪个)?(?:来着|吗|呢)[?？]?$"),
        # the present a question closes with ("who is on call this week?", "… right
        # now?"): what is in effect is what a claim says, never that week by its word
        (("this", "now", "moment"),
         r"(?<=\w)\s+(?:this\s+(?:week|month)|right\s+now|at\s+the\s+moment)\s*[?？.!]*\s*$"),
    )
)

#: asking whom to ask about a thing is asking its owner ("who should I ask about
#: inventory?", "who do I talk to about notifications?", "who can we contact about
#: billing?"): read as "who owns", in queries only; the "talk" asked with was taken for
#: the question's verb ("Billing talks to the gateway over gRPC.") and the owner's claim,
#: saying neither, was no answer. So is asking who is responsible for it or in charge of
#: it ("who is responsible for the scheduler?": "responsible" was a word no claim said).
#: Its cue is what every match holds
ASKED_WHOM: Final = lazy(
    r"\bwho(?:m)?\s+(?:should|do|can|could|would|shall)\s+(?:i|we)\s+(?:ask|contact|ping|"
    r"(?:talk|speak)\s+(?:to|with)|reach\s+out\s+to|go\s+to)\s+(?:about|for|regarding)\b"
    r"|\bwho(?:'s|’s|\s+is|\s+are|\s+was)\s+(?:responsible\s+for|in\s+charge\s+of)(?=\s)")

#: a word of software work also typed as two, spaced or hyphenated ("on call", "on-call",
#: "log in", "sign-in"): read as the one word, its space or hyphen left out ("oncall",
#: "login": the auth concept's), in records and queries alike; each comes with its cues,
#: one of which every match holds (a text holding none is not scanned: "in", once the
#: cue of "log in", is in most texts). Apart, "who is on call?" matched "upstream calls"
#: and "how do I log in?" every claim about logs. "log in" and "sign in" typed apart only
#: as the verb, before "to", "with", "as", "using", "via" or the sentence's end: "the log
#: in JSON" is a log; "time out" in each of its verb's forms ("timed out", "times out",
#: "timing out") is the timeout concept's (a claim "Session cookies time out after 30
#: minutes." said no timeout: "time" is filler and "out" a stop word)
PHRASAL_WORDS: Final = (
    (("call",), lazy(r"\bon[\s-]call\b")),
    (("decision",), lazy(r"\barchitecture[\s-]decision[\s-]records?\b")),
    (("log", "sign"), lazy(r"\b(?:log|sign)(?:-in\b|\s+in(?=\s+(?:to|with|as|using|via)\b"
                           r"|\s*(?:[?.!,;:]|$)))")),
    (("time", "timing"), lazy(r"\btim(?:e|es|ed|ing)[\s-]out\b")),
)

#: attribute words: they refine a subject but cannot start a new one
ATTRIBUTES: Final = frozenset(
    """
    c:port c:auth c:password c:version c:timeout c:config c:error c:log c:token c:key
    w:progress w:status w:path w:output w:input w:connect w:perform w:price w:host w:url
    w:name w:size w:limit w:address w:date w:time c:owner w:threshold
    w:进度 w:状态 w:路径 w:输出 w:输入 w:连接 w:性能 w:价格 w:地址
    """.split()
)
#: attributes too general to be demanded of a record by the short named-attribute rule
WEAK_ATTRIBUTES: Final = frozenset({"w:status", "w:progress", "c:error", "w:进度", "w:状态"})

#: attributes a record may say by a value of their shape rather than by their word: "v2"
#: says a version, and "Python 3.13" the version of Python (a dotted number right after
#: the name the query asks about, :data:`VERSION_AFTER_NAME`: "costs 2.5 dollars" or
#: "went out on 2024.05.01" say none); "Redis listens on 6380", "localhost:5432" and
#: "db.internal:5432" the port, and so does a one-word host's ("kafka:9092", a compose
#: service's) four or five digits (a bare number does not, "the timeout is 30", nor an
#: image tag, "postgres:16-alpine", "node:20"). The short named-attribute rule
#: (:mod:`waymarks.recall.scoring`) accepts either. A URL is said by one written out
#: ("https://…"), whatever word it follows.
ATTRIBUTE_VALUES: Final = {
    "c:version": lazy(r"(?<![\w.])[vV]\d+(?:\.\d+)*(?!\w|\.\d)"),
    # a threshold is said by a bound before a number ("Coverage must stay above 80
    # percent." for "what is the coverage threshold?", "must not drop below 90 percent",
    # "at least 2 approvals"), which no claim calls a threshold
    "w:threshold": lazy(r"(?i)\b(?:above|below|under|over|at\s+(?:least|most)|(?:no\s+)?"
                        r"(?:more|less|fewer)\s+than|up\s+to)\s+\d"),
    # "Grafana is at https://grafana.example.internal." says Grafana's URL
    "w:url": lazy(r"\b(?:https?|wss?|ftp)://\w"),
    # a host is read from the start of its run of host characters, each part once: from
    # every word start of "a-a-a-…" (a pasted log's, a compacted turn's) the scan took
    # time quadratic in the run (20 KB: 7 s)
    "c:port": lazy(r"(?:\b(?:listen(?:s|ing|ed)?|binds?|bound)\s+(?:on\s+|to\s+)?"
                   r"(?:[\w.-]++:)?|(?<![\w.-])(?:localhost|[\w-]++(?:\.[\w-]++)+):"
                   r"|(?<![\w.-])[^\W\d_][\w-]*+:(?=\d{4,5}(?![\w-]|\.\d)))(\d{2,5})"
                   r"(?!\w|\.\d)"),
}
#: no unit after a number: with a price, a duration, a size or a share ("2.5 dollars",
#: "1.5 GB", "20 minutes", "2048 MB") a number is no version, nor a year
NO_UNIT_AFTER: Final = (
    r"(?![ \t]*(?i:dollars?|usd|eur(?:os?)?|cents?|percent|ms|s|secs?|seconds?|minutes?|"
    r"mins?|hours?|h|days?|weeks?|gb|mb|kb|tb|x|times)\b)")
#: a word and the dotted number after it ("Python 3.13", "Go 1.22.4", "python==3.11.4",
#: "Python: 3.12", "Python is 3.12", "node@20.1"): a version of what the word names, when
#: the query names it; so is a major version alone, a whole number of up to three digits
#: right after it ("Node 20", "Java 21", "node@20"), but one with a unit ("Node 20 ms")
#: or a clock time ("Monday at 10:00")
VERSION_AFTER_NAME: Final = lazy(
    r"(?<![\w+#-])([A-Za-z][\w+#-]*+)"
    r"(?:[ \t]*(?:==|=|:|@)[ \t]*|[ \t]+(?:(?:is|at|version)[ \t]+)?)"
    r"[vV]?(\d+(?:\.\d+){1,2}(?![\w%]|\.\d)"
    rf"|\d{{1,3}}(?![\w%:]|\.\d){NO_UNIT_AFTER})")
#: a dotted number with no name asked about ("which version do we use?"): any, but one
#: with a unit (:data:`NO_UNIT_AFTER`) or a dated one ("2024.05.01")
VERSION_ALONE: Final = lazy(
    r"(?<![\w.])(?!(?:19|20)\d\d\.)\d+(?:\.\d+){1,2}(?![\w%]|\.\d)" + NO_UNIT_AFTER)
