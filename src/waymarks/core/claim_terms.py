"""The vocabulary of claim signatures (:mod:`waymarks.core.contradiction`): surface words,
English, Chinese, Japanese and Korean, mapped to one canonical subject term each, so
``DB``, ``database``, ``数据库``, ``データベース`` and ``데이터베이스`` are one term and
``listens`` is the port; the words that qualify a fact
rather than name another, the state words, the Chinese function words and the unit words.
Pure data."""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from waymarks.core.claim_change_verbs import HAN_CHANGE_WORDS, HAN_WHERE_WORDS

#: surface word -> canonical subject term (English words and Chinese words alike)
TERMS: Final[dict[str, str]] = {
    word: name
    for name, words in {
        "database": ("database", "databases", "db", "dbs", "数据库", "資料庫"),
        # ("binds to 8080" is the port as "listens on 8080" is; a bound address alone,
        # "binds to 0.0.0.0", is where, compared with no port)
        "port": ("port", "ports", "listen", "listens", "listening", "bind", "binds", "端口",
                 "埠", "监听", "端口号"),
        "host": ("host", "hostname", "主机", "主机名"),
        "timeout": ("timeout", "timeouts", "超时"),
        "version": ("version", "versions", "版本"),
        "password": ("password", "passwords", "密码"),
        "user": ("user", "users", "username", "用户", "用户名"),
        "branch": ("branch", "branches", "分支"),
        "cache": ("cache", "caches", "cached", "caching", "缓存"),
        "server": ("server", "servers", "服务器", "服务端"),
        "flag": ("flag", "flags", "toggle", "toggles", "开关", "功能开关", "特性开关"),
        "feature": ("feature", "features", "功能", "特性"),
        "log": ("log", "logs", "logging", "日志"),
        "level": ("level", "级别", "等级"),
        "mode": ("mode", "modes", "模式"),
        "test": ("test", "tests", "测试"),
        "deploy": ("deploy", "deploys", "deployment", "deployments", "部署", "发布", "上线"),
        "limit": ("limit", "limits", "上限", "限制"),
        "size": ("size", "大小"),
        "retry": ("retry", "retries", "retried", "重试"),
        "worker": ("worker", "workers", "工作进程"),
        "directory": ("directory", "dir", "folder", "目录", "文件夹"),
        "path": ("path", "路径"),
        "queue": ("queue", "队列"),
        "route": ("route", "routes", "路由"),  # not 路 and 由, a function character
        "region": ("region", "区域", "地区"),
        "api": ("api", "接口"),
        "key": ("key", "keys", "密钥"),
        "token": ("token", "tokens", "令牌"),
        "dev": ("dev", "development", "开发"),
        # (生产环境 is production, as 生产 is: "environment" is no narrower thing there)
        "prod": ("prod", "production", "生产", "生产环境"),
        "staging": ("staging", "预发"),
        "local": ("local", "本地"),
        # a participle is its verb's term: "is built with Node 20" and "Node 18 builds
        # it" are one subject ("built" and "compiled" were words of their own, so the
        # passive was another fact than the active)
        "build": ("build", "builds", "built", "构建", "编译"),
        "compile": ("compile", "compiles", "compiled"),
        "service": ("service", "services", "服务"),
        "interval": ("interval", "间隔"),
        "expiry": ("ttl", "expiry", "expires", "expiration", "过期", "有效期"),
        "memory": ("memory", "ram", "内存"),
        "node": ("node", "nodes", "节点"),
        "replica": ("replica", "replicas", "副本"),
        "default": ("default", "defaults", "默认"),
        "encoding": ("encoding", "charset", "编码"),
        "language": ("language", "语言"),
        "team": ("team", "团队"),
        # ("owns" is "own" once its s goes: "Alice owns the billing service." is about its
        # owner, as "The billing service owner is Alice." is)
        "owner": ("owner", "owners", "owned", "own", "负责人", "负责", "所有者"),
        "request": ("request", "requests", "req", "reqs", "请求"),
        "count": ("count", "number", "数量", "个数", "次数", "数目"),
        "max": ("max", "maximum", "最大", "最多"),
        "min": ("min", "minimum", "最小", "最少"),
        # the words of project notes a Chinese claim says with its own: unknown, each
        # was its characters, another subject than the English claim it translates
        # ("消息队列的重试次数是 7。" was written beside "The message queue retry count is 5.")
        "message": ("message", "msg", "消息"),
        "search": ("search", "搜索", "检索"),
        "image": ("image", "镜像"),
        "frontend": ("frontend", "前端"),
        "backend": ("backend", "后端"),
        "connection": ("connection", "conn", "连接"),
        "pool": ("pool", "池"),
        "thread": ("thread", "线程"),
        "backup": ("backup", "备份"),
        "upload": ("upload", "上传"),
        "download": ("download", "下载"),
        "email": ("email", "mail", "邮件", "邮箱"),
        "session": ("session", "会话"),
        "config": ("config", "configuration", "配置"),
        "file": ("file", "文件"),
        "disk": ("disk", "磁盘", "硬盘"),
        "quota": ("quota", "配额"),
        "batch": ("batch", "批量", "批次"),
        "job": ("job", "作业"),
        "task": ("task", "任务"),  # (no job: a CI job's limit is no worker task's)
        "storage": ("storage", "存储"),
        "bucket": ("bucket", "桶"),
        "domain": ("domain", "域名"),
        "certificate": ("certificate", "cert", "证书"),
        "concurrency": ("concurrency", "并发"),
        "environment": ("environment", "env", "环境"),
        "model": ("model", "模型"),
        "name": ("name", "名称", "名字"),
        "index": ("index", "indexes", "indices", "索引"),
        "schedule": ("schedule", "调度"),
        # the words of policies and their things a Chinese claim says with its own
        # ("合并到 main 分支需要代码评审。": 代码评审 was four characters of the subject,
        # too many for one fact; "订单服务监听 7005 端口。" beside "The orders service …")
        "review": ("review", "reviews", "reviewed", "评审", "代码评审", "审查", "代码审查"),
        "approval": ("approval", "approvals", "审批"),
        "merge": ("merge", "merges", "merged", "合并"),
        "push": ("push", "pushes", "pushed", "推送"),
        "direct": ("direct", "直接"),
        "order": ("order", "orders", "订单"),
        # (not "keep"/"keeps", its own word as before: merged, "Jobs are kept for 9
        # days." was about every "… queue keeps jobs …" claim, all read to weigh it)
        "retention": ("retention", "kept", "retained", "保留"),
        "rate": ("rate", "速率"),
        "length": ("length", "长度"),
        "tag": ("tag", "标签"),
        "address": ("address", "addr", "地址"),
        "url": ("url", "网址"),  # (no address: "The API URL" and "… address" both hold)
        # more words of project notes a Chinese claim says with its own ("调试日志已禁用。"
        # was two characters of its own, another subject than "Debug logging is enabled.")
        # (not "debug" itself, a log level: as a word of the vocabulary, "Debug is the log
        # level." stated no value; unmapped, it is its own term still)
        "debug": ("debugging", "调试"),
        "doc": ("doc", "docs", "documentation", "文档"),
        "monitor": ("monitor", "monitoring", "监控"),
        "alert": ("alert", "alerts", "alerting", "告警", "报警"),
        "threshold": ("threshold", "阈值"),
        "metric": ("metric", "metrics", "指标"),
        "proxy": ("proxy", "proxies", "代理"),
        "gateway": ("gateway", "网关"),
        "payment": ("payment", "payments", "支付"),
        "billing": ("billing", "计费"),
        "audit": ("audit", "审计"),
        "permission": ("permission", "permissions", "权限"),
        "role": ("role", "roles", "角色"),
        "account": ("account", "accounts", "账号", "账户"),
        "notification": ("notification", "notifications", "通知"),
        "migration": ("migration", "migrations", "迁移"),
        "dependency": ("dependency", "dependencies", "依赖"),
        "cluster": ("cluster", "clusters", "集群"),
        "container": ("container", "containers", "容器"),
        "shard": ("shard", "shards", "分片"),
        "latency": ("latency", "延迟"),
        "traffic": ("traffic", "流量"),
        "script": ("script", "scripts", "脚本"),
        "template": ("template", "templates", "模板"),
        "tenant": ("tenant", "tenants", "租户"),
        "encryption": ("encryption", "加密"),
        "compression": ("compression", "压缩"),
        "login": ("login", "登录"),
        "access": ("access", "访问"),
        "anonymous": ("anonymous", "匿名"),
        "telemetry": ("telemetry", "遥测"),
        "pipeline": ("pipeline", "pipelines", "流水线"),
        "primary": ("primary", "主"),
        "public": ("public", "公共"),
        "application": ("application", "applications", "应用"),
    }.items()
    for word in words
} | {
    # Japanese katakana and Korean Hangul words (Japanese kanji are read as Chinese ones)
    word: name
    for name, words in {
        "database": ("データベース", "데이터베이스", "디비"),
        "port": ("ポート", "포트"),
        "host": ("ホスト", "호스트"),
        "timeout": ("タイムアウト", "타임아웃"),
        "version": ("バージョン", "버전"),
        "password": ("パスワード", "비밀번호", "패스워드"),
        "user": ("ユーザー", "ユーザ", "사용자", "유저"),
        "branch": ("ブランチ", "브랜치"),
        "cache": ("キャッシュ", "캐시"),
        "server": ("サーバー", "サーバ", "서버"),
        "flag": ("フラグ", "플래그"),
        "feature": ("機能", "기능"),
        "log": ("ログ", "로그"),
        "level": ("レベル", "레벨"),
        "test": ("テスト", "테스트"),
        "deploy": ("デプロイ", "배포"),
        "limit": ("上限", "リミット", "제한", "한도"),
        "size": ("サイズ", "크기", "사이즈"),
        "retry": ("リトライ", "再試行", "재시도"),
        "worker": ("ワーカー", "워커"),
        "directory": ("ディレクトリ", "フォルダ", "디렉터리", "디렉토리", "폴더"),
        "path": ("パス", "경로"),
        "queue": ("キュー", "큐"),
        "region": ("リージョン", "리전"),
        "key": ("キー", "키"),
        "token": ("トークン", "토큰"),
        "dev": ("開発", "개발"),
        "prod": ("本番", "운영", "프로덕션"),
        "staging": ("ステージング", "스테이징"),
        "build": ("ビルド", "빌드"),
        "service": ("サービス", "서비스"),
        "interval": ("間隔", "インターバル", "간격"),
        "memory": ("メモリ", "メモリー", "메모리"),
        "node": ("ノード", "노드"),
        "replica": ("レプリカ", "레플리카", "복제본"),
        "default": ("デフォルト", "既定", "기본", "기본값"),
        "encoding": ("エンコーディング", "인코딩"),
        "team": ("チーム", "팀"),
        "request": ("リクエスト", "요청"),
        "count": ("回数", "횟수", "개수"),
        "max": ("最大", "최대"),
        "min": ("最小", "최소"),
        "message": ("メッセージ", "메시지"),
        "search": ("検索", "검색"),
        "image": ("イメージ", "이미지"),
        "frontend": ("フロントエンド", "프론트엔드"),
        "backend": ("バックエンド", "백엔드"),
        "connection": ("接続", "연결"),
        "thread": ("スレッド", "스레드"),
        "backup": ("バックアップ", "백업"),
        "upload": ("アップロード", "업로드"),
        "download": ("ダウンロード", "다운로드"),
        "email": ("メール", "이메일", "메일"),
        "session": ("セッション", "세션"),
        "config": ("設定", "설정"),
        "file": ("ファイル", "파일"),
        "disk": ("ディスク", "디스크"),
        "batch": ("バッチ", "배치"),
        "job": ("ジョブ", "작업"),
        "task": ("タスク", "태스크"),
        "storage": ("ストレージ", "스토리지"),
        "domain": ("ドメイン", "도메인"),
        "certificate": ("証明書", "인증서"),
        "environment": ("環境", "환경"),
        "model": ("モデル", "모델"),
        "name": ("名前", "이름"),
        "index": ("インデックス", "인덱스"),
        "tag": ("タグ", "태그"),
        "address": ("アドレス", "주소"),
    }.items()
    for word in words
}

#: subject terms that qualify a fact without naming another thing: the environment it
#: holds in (docs/conflicts.md's "The dev DB listens on 5436." contradicts "The database port is
#: 5435.") and generic words a paraphrase adds ("the payments service", "the worker
#: count", "the request timeout defaults to …"). Any other word in a subject before its
#: verb names a narrower thing ("the API metrics port", "the Redis sentinel port", "the
#: user cache TTL"): another fact. A word saying what kind of running thing the subject
#: is ("the Redis instance", "the Postgres server", "the Redis daemon") names no narrower
#: thing either: "The staging Redis instance listens on 6380." is about the staging Redis
#: port
SAME_FACT: Final = frozenset((
    "dev", "prod", "staging", "local", "qa", "uat", "sandbox", "preview", "live",
    "environment",
    "default", "current", "feature", "flag", "count", "service", "endpoint", "port", "setting",
    "config", "configuration", "instance", "server", "daemon"))

#: words ending in "s" that are no plurals: a protocol over TLS is another protocol than the
#: one it secures, with another port ("HTTPS is served on port 443." beside "HTTP is served
#: on port 80."; SMTPS, LDAPS, IMAPS…); de-pluralized, each was the plain protocol, and a
#: legitimate claim about one was refused as a conflict with the other
NOT_PLURAL: Final = frozenset(
    "https ftps smtps imaps ldaps amqps mqtts nntps pop3s sips xmpps grpcs rediss".split())

#: on/off words, English and Chinese, and the state each asserts
STATES: Final[dict[str, str]] = {
    "enabled": "on", "enable": "on", "on": "on", "true": "on", "active": "on",
    "allowed": "on", "required": "on", "mandatory": "on",
    "disabled": "off", "disable": "off", "off": "off", "false": "off", "inactive": "off",
    "forbidden": "off", "optional": "off", "activated": "on", "deactivated": "off",
    "permitted": "on", "prohibited": "off", "disallowed": "off",
    # a policy said in other words ("Direct pushes to main are blocked." / "… allowed.",
    # "合并需要代码评审。" / "合并不需要代码评审。", 无需 its negation)
    "blocked": "off", "需要": "on", "无需": "off",
    # whether data is encrypted ("encrypted at rest" beside "encrypted in transit": one
    # state in two places, two facts; "is unencrypted" its opposite)
    "encrypted": "on", "unencrypted": "off", "plaintext": "off",
    "加密": "on", "明文": "off", "未加密": "off",
    "允许": "on", "禁止": "off",
    "开启": "on", "启用": "on", "打开": "on", "开着": "on", "生效": "on", "必须": "on",
    "关闭": "off", "禁用": "off", "停用": "off", "关着": "off", "失效": "off", "可选": "off",
    "有効": "on", "無効": "off", "활성화": "on", "비활성화": "off", "켜짐": "on", "꺼짐": "off",
}
#: single function characters of a Han run (never terms; 有, "has", before a count: "有 6
#: 个分片" is about the shards as "没有分片" is)
HAN_STOP: Final = frozenset(
    "是的了在为和与及也都就还又很把被给让吧呢啊呀吗嘛哦么着过之其这那个我你他她它们号已秒天次不未没每有到")
#: "from" (从, 由): a function character at the end of a Han run, before the value a change
#: started from ("端口从 5432 改为 5433"); inside a run, a word's ("从节点": a replica node,
#: dropped as "from", it was refused beside "节点数量是 5。")
HAN_FROM: Final = frozenset("从由")
#: function words of more than one character, matched whole (a character set would drop
#: "前" of "前端" for being part of "目前")
HAN_STOP_WORDS: Final = ("已经", "目前", "现在", "改成", "改为", "设为", "设置为", "分钟", "小时",
                         "不是", "没有", "以前", "之前", "原来", "曾经", "番号",
                         # negations of an action, as "never" and "no longer" are stop
                         # words (从 and 再 were subject characters)
                         "从不", "不再", "不会",
                         # a count's verbs ("有 6 个分片", "分成 8 个分片": 6 and 8 shards, as
                         # "has 6 shards"; read as characters, each was another subject than
                         # "没有分片")
                         "分成", "分为",
                         # "time" of a measure's name ("超时时间", the timeout), as the
                         # English "time" is a stop word
                         "时间",
                         # the verbs English claims say with stop words ("uses", "runs",
                         # "set"): as characters, "构建使用 Node 18。" was another
                         # subject than "The build uses Node 20."
                         "使用", "采用", "运行", "设置",
                         # a change's verb and its particle ("升级到", "迁到", "换成"): as
                         # characters, "构建已升级到 JDK 17" was another subject than
                         # "构建用的是 JDK 11" (core/claim_change_verbs.py)
                         *HAN_CHANGE_WORDS,
                         # a verb of where a thing is ("放在", "位于"), as "is in" is none
                         *HAN_WHERE_WORDS)
#: those verbs, which also start a compound noun (运行日志, run logs; 设置页面, the settings
#: page; 使用说明, the manual): at a Han run's start, before more of it, they are the noun's
HAN_NOUN_VERBS: Final = frozenset(("使用", "采用", "运行", "设置"))
#: attributes whose values are words: after one, the word ending an English clause after
#: "is" is its value ("The log level is info.", as "日志级别是 info。"); elsewhere "is"
#: before a word says too many other things ("The API is fast.")
WORD_ATTRIBUTES: Final = (
    "level", "mode", "branch", "format", "driver", "engine", "strategy", "region", "provider",
    "theme", "language", "runtime", "encoding", "locale", "timezone", "channel", "profile",
    "policy", "tier", "owner")
#: the participles that do not end in "ed", as software notes use them ("is written to
#: dist", "is frozen", "is overridden in tests"): what is done to a thing, no word value
IRREGULAR_PARTICIPLES: Final = frozenset(
    "written built run sent kept made done held shown taken given hidden bound found driven"
    " known spun split shut frozen overridden rewritten broken chosen forgotten".split())
#: the copula between such an attribute and its word, as a fact states it: "is", a modal
#: "be" ("The log level should be debug.", "… must be", "… will be"), "is set to" and
#: "defaults to" (with "is" alone, "should be debug" stated no value, and was written
#: beside "The log level is info."); not before a word of what may be done to it ("… is
#: configurable", "… should be raised", "… is protected": no value of it, what is done to
#: it; its state words are states, read apart); an adverb of time after it is
#: none of the word ("is still info", "is now debug": read as a value, "still info" was
#: refused beside "info" by the replay rule's derived key), and a change names the word it
#: made ("was changed to debug", "has been set to debug")
WORD_COPULA: Final = (
    r"(?:(?:(?:is|are)(?:n't| not)?|(?:(?:should|must|shall|will|needs? to|has to|have to)"
    r"(?:n't| not)?|won't) be(?! [a-z]+ed\b))(?: (?:now|currently|still|always|usually))?"
    r"(?: set to)?|(?:(?:is|are|was|were|has been|have been) )?(?:changed|set|switched"
    r"|updated) to)(?! (?:[a-z]+(?:[ai]ble|ed)|" + "|".join(sorted(IRREGULAR_PARTICIPLES))
    + r")\b)|defaults? to")
#: a verb of where a thing is written, goes or is kept, and its preposition: the word
#: ending the clause after it is the place, a value ("The release artifacts are written
#: to dist." is the folder "dist/"; read as a word, it stated nothing, and the replay
#: rule's shared key refused it beside "… written to dist/.", the same fact); where a thing
#: is deployed or hosted, in the passive (a pipeline that "deploys to" staging may deploy
#: to production too), and the same verbs in Chinese ("前端部署到 Vercel。", "文件存储在 S3。",
#: a word typed right after them too: "部署到Vercel")
DESTINATION: Final = (
    r"\b(?:written|writes|write|goes|go|output|outputs|saved|saves|stored|stores|copied"
    r"|published|uploaded|emitted|generated|placed|cached) (?:to|into|in|under)"
    r"|\b(?:deployed|hosted) (?:to|on|at)"
    r"|(?:部署|发布|上传|托管|存储|存放|保存|写入|输出)(?:到|在|至)")
#: Korean particles glued to a word's end ("포트는": the port, as topic), longest first;
#: a word ending in a predicate's ending ("입니다", "있습니다") is no subject word
HANGUL_PARTICLES: Final = ("에서", "으로", "은", "는", "이", "가", "을", "를", "의", "에", "로",
                           "와", "과", "도", "만")
HANGUL_PREDICATE_ENDINGS: Final = ("니다", "다", "요")
#: unit words after a number, which no name is
UNITS: Final = frozenset(
    "seconds second secs sec minutes minute mins min hours hour days day weeks week months"
    " ms percent times mb gb kb tb bytes items rows requests users workers threads".split())
#: a rate's time unit, by its words
RATE_NAMES: Final[dict[str, str]] = {
    **dict.fromkeys(("second", "seconds", "sec", "secs", "s"), "s"),
    **dict.fromkeys(("minute", "minutes", "min", "mins"), "min"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "h"), "h"),
    **dict.fromkeys(("day", "days", "d"), "d"), **dict.fromkeys(("week", "weeks"), "w"),
}
#: a duration's unit in seconds
SECONDS: Final[dict[str, Fraction]] = {
    **dict.fromkeys(("ms", "millis", "millisecond", "milliseconds", "毫秒", "ミリ秒", "밀리초"),
                    Fraction(1, 1000)),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds", "秒", "초"), Fraction(1)),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes", "分钟", "分", "분"), Fraction(60)),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours", "小时", "時間", "시간"), Fraction(3600)),
    **dict.fromkeys(("d", "day", "days", "天"), Fraction(86400)),
    **dict.fromkeys(("w", "week", "weeks", "周"), Fraction(604800)),
}
UNIT_NAMES: Final[dict[str, str]] = {"byte": "b", "bytes": "b"}
