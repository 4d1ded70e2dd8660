"""Benchmark: cross-lingual recall and recall in other words (issue 20, dev set ``dev-xling``).

A development set, written before the recall rules it measures were read and tuned on freely
(held-out sets stay in :mod:`everyday_heldout3`). Sets, reported apart, counted as
:func:`everyday.measure` counts (right, wrong, missed, wrong claims):

- ``zh_on_en``: Chinese questions about the everyday store's English claims
  (:mod:`tests.recall.everyday_store`);
- ``en_other_words``: English questions about the everyday store that share no content
  word with the claim that answers them;
- ``en_on_zh``: English questions about a small store of Chinese claims (:data:`ZH_CLAIMS`);
- ``unanswerable``: questions of both stores no claim answers, in both languages: right only
  when nothing is recalled.

    PYTHONPATH=src .venv/bin/python benchmarks/everyday_xling.py [--show] [--semantic]

``--semantic`` measures hybrid recall (every claim embedded first, as everyday.py does).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

sys.path[:0] = [str(Path(__file__).resolve().parent)]

import everyday  # noqa: E402
from tests.recall import everyday_store  # noqa: E402

#: Chinese questions about the everyday store -> answers
ZH_ON_EN: Final[Mapping[str, tuple[str, ...]]] = {
    "计费服务监听哪个端口?": ("port 8041",),
    "计费服务的负责人是谁?": ("Maria Santos",),
    "认证服务用什么语言写的?": ("Go 1.22",),
    "认证会话多久过期?": ("12 hours",),
    "搜索服务的负责人是谁?": ("Lena Fischer",),
    "搜索结果缓存多久?": ("60 seconds",),
    "网关用的是什么软件?": ("Envoy 1.29",),
    "网关的上游超时是多少?": ("gateway timeout",),
    "通知服务怎么发送推送消息?": ("Firebase Cloud Messaging",),
    "库存服务用什么数据库?": ("MySQL 8.0",),
    "库存服务的堆内存限制是多少?": ("2 GB",),
    "前端部署在哪里?": ("Cloudflare Pages",),
    "前端开发服务器运行在哪个端口?": ("port 3000",),
    "分析服务的原始事件保留多久?": ("90 days",),
    "邮件服务通过什么发送邮件?": ("Amazon SES",),
    "调度器使用哪个 Python 版本?": ("Python 3.9",),
    "支付服务使用哪个支付接口?": ("Adyen",),
    "生产环境部署需要几个审批?": ("two approvals",),
    "默认分支是什么?": ("default branch is main",),
    "备份保留多少天?": ("35 days",),
    "客户数据必须存放在哪个区域?": ("EU region",),
    "功能开关用什么管理?": ("LaunchDarkly",),
    "生产集群叫什么?": ("prod-eu-1",),
    "代码覆盖率必须高于多少?": ("Coverage must stay above",),
    "消息总线用的是什么?": ("Kafka 3.6",),
    "服务网格用的是什么?": ("Linkerd",),
    "文档站点用什么构建?": ("MkDocs",),
    "容器镜像推送到哪里?": ("ghcr.io/acme",),
}

#: English questions about the everyday store sharing no content word with their claim
EN_OTHER_WORDS: Final[Mapping[str, tuple[str, ...]]] = {
    "who is responsible for the invoicing backend?": ("Maria Santos",),
    "how long until a signed-in user has to log back in?": ("12 hours",),
    "what software sits at the edge in front of our apis?": ("Envoy 1.29",),
    "which cloud host serves the web ui?": ("Cloudflare Pages",),
    "how many sign-offs before shipping to prod?": ("two approvals",),
    "how long do we hold on to snapshots?": ("35 days",),
    "where must client information be hosted?": ("EU region",),
    "what toggles new functionality at runtime?": ("LaunchDarkly",),
    "what language runtime is the email sender on?": ("Ruby 3.2",),
    "which bot opens the library upgrade requests?": ("Renovate",),
    "which queue holds failed push notices to resend?": ("notifications-retry",),
    "how many tries for a declined card charge?": ("three times",),
    "how often is the secret behind access tokens replaced?": ("30 days",),
    "how much memory may the stock java app use?": ("2 GB",),
    "what generates our documentation website?": ("MkDocs",),
    "where are the docker builds published?": ("ghcr.io/acme",),
}

#: a small store of Chinese claims
ZH_CLAIMS: Final = (
    "订单服务监听 8120 端口。",
    "订单服务由王磊负责。",
    "订单数据库是 PostgreSQL 16。",
    "报表任务每天凌晨三点运行。",
    "日志保留十四天。",
    "短信通过阿里云短信服务发送。",
    "测试环境的地址是 https://test.example.cn。",
    "前端使用 Vue 3 编写。",
    "发布前需要运行 `make check`。",
    "缓存使用 Redis 6,过期时间五分钟。",
    "对象存储用的是腾讯云 COS。",
    "代码评审至少需要一位同事批准。",
    "客服系统由李娜维护。",
    "用户头像存放在 images/avatars 目录。",
)

#: English questions about the Chinese store -> answers
EN_ON_ZH: Final[Mapping[str, tuple[str, ...]]] = {
    "which port does the order service listen on?": ("8120",),
    "who owns the order service?": ("王磊",),
    "what database does the order service use?": ("PostgreSQL 16",),
    "when does the report job run?": ("报表任务",),
    "how long are logs kept?": ("日志保留",),
    "how are text messages sent?": ("短信",),
    "what is the test environment url?": ("test.example.cn",),
    "which framework is the frontend written in?": ("Vue 3",),
    "what must run before a release?": ("make check",),
    "what is the cache expiry?": ("Redis 6",),
    "which object storage do we use?": ("COS",),
    "how many approvals does a code review need?": ("代码评审",),
    "who maintains the customer support system?": ("李娜",),
    "where are user avatars stored?": ("images/avatars",),
}

#: questions no claim answers (first store: everyday; second: the Chinese store)
UNANSWERABLE_EN_STORE: Final = (
    "计费服务用什么消息队列?",
    "认证服务的负责人的电话是多少?",
    "搜索服务在哪个机房?",
    "前端用了哪个 CSS 框架?",
    "what is the wifi password in the office?",
    "who approves vacation requests?",
    "which laptop model do new hires get?",
)
UNANSWERABLE_ZH_STORE: Final = (
    "which port does the payment service listen on?",
    "who owns the mobile app?",
    "what is the production database password?",
    "支付服务由谁负责?",
    "移动端用什么框架?",
)


def main(argv: Sequence[str] | None = None) -> int:
    args = everyday.parse_args(__doc__, "everyday_xling", argv)
    if args is None:
        return 2
    hybrid, show = args.semantic, args.show
    en = everyday_store.CLAIMS
    none_en = {question: () for question in UNANSWERABLE_EN_STORE}
    none_zh = {question: () for question in UNANSWERABLE_ZH_STORE}
    result = {
        "engine": "hybrid" if hybrid else "lexical",
        "zh_on_en": everyday.measure(en, ZH_ON_EN, show, semantic=hybrid),
        "en_other_words": everyday.measure(en, EN_OTHER_WORDS, show, semantic=hybrid),
        "en_on_zh": everyday.measure(ZH_CLAIMS, EN_ON_ZH, show, semantic=hybrid),
        "unanswerable": {
            "everyday_store": everyday.measure(en, none_en, show, semantic=hybrid),
            "zh_store": everyday.measure(ZH_CLAIMS, none_zh, show, semantic=hybrid),
        },
    }
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
