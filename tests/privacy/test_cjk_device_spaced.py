"""A Chinese device's word, a space, then an English PIN or code and its digits, as mixed
Chinese and English notes write it ("车库门禁 PIN 4826", "保险柜 code 1 2 3 4"): c9b27a97's
lock-code rule wanted the noun right after the Chinese word, and the digits went to a
remote model in clear while "门禁PIN 4826" went. A Chinese word with no code's noun after
it ("门禁 2024 年更换") stays."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

STATED = [
    ("车库门禁 PIN 4826", "4826"),
    ("保险柜 code 1 2 3 4", "1 2 3 4"),
    ("电话会议 PIN：889 2071#", "889 2071"),
]

UNCHANGED = [
    "门禁 2024 年更换",
    "门禁 PIN 由行政保管",
    "保险柜 code review 2024",
]

test_the_code_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)
