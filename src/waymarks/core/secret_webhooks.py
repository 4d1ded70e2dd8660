"""The credential rules of a capability URL, a webhook whose secret is in its path: anyone
holding the URL posts to it. Slack's, Discord's, Microsoft Teams' and IFTTT's have rules of
their own (:mod:`waymarks.core.secret_tokens`); these went out in clear:

- ``zapier_hook``: a Zapier catch hook, ``https://hooks.zapier.com/hooks/catch/<account>/
  <hook>/`` (its two numbers-and-letters parts go, kind ``zapier-webhook``);
- ``webhook_path``: any other incoming webhook, a Mattermost or Rocket.Chat one
  (``https://chat.example.com/hooks/<26 random>``), a self-hosted service's
  (``…/webhooks/incoming/<token>``): the first path segment of 16-128 of a token's
  characters after ``hook``, ``hooks``, ``webhook``, ``webhooks`` or ``incoming``
  (up to four segments between), when it reads as random
  (:func:`waymarks.core.secret_values.setting_is_secret`: a UUID, a date, words such as
  ``getting-started-with-webhooks``, and digits alone stay), kind ``webhook-secret``.

Part of the rule table of :mod:`waymarks.core.secret_rules`.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

ZAPIER_HOOK: Final = Rule("zapier_hook", "zapier-webhook", lazy(
    r"https?://hooks\.zapier\.com/hooks/catch/(?P<zapier_hook>[0-9]{4,12}/[A-Za-z0-9]{5,16})"
    r"(?![A-Za-z0-9])", re.ASCII), ("hooks.zapier.com/hooks/catch/",), guard="/")

WEBHOOK_PATH: Final = Rule("webhook_path", "webhook-secret", lazy(
    r"https?://[^\s/?#]{1,253}/(?:[^\s?#]{0,512}/)?(?:(?:[Ww]eb)?[Hh]ooks?|(?:WEB)?HOOKS?"
    r"|[Ii]ncoming|INCOMING)/"
    r"(?:[^\s/?#]{1,128}/){0,4}?(?P<webhook_path>[A-Za-z0-9_-]{16,128})(?![A-Za-z0-9_-])",
    re.ASCII), ("hook", "incoming"), folded=True, guard="/")
