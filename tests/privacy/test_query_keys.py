"""A URL's query parameter named for a key or a signature, ``?key=…`` (an API's key),
``?sig=…`` or ``?signature=…`` (a presigned link's, shorter than the 30 characters the SAS
rule reads): the value went to the model in clear, and a claim holding it was stored.
A HAR file lists them too, ``"queryString": [{"name": "key", "value": "…"}]``, which went
out in clear. The name says little, so the value counts only when it reads as random."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the value as ``{}``
TEMPLATES: list[str] = [
    "https://tiles.example.com/v2/map.png?sig={}",
    "curl 'https://api.example.com/v1/geocode?q=Berlin&key={}&lang=de'",
    "GET /download/report.pdf?expires=1735689600&signature={} HTTP/1.1",
    '"url": "https://api.example.com/v1/items?page=2&key={}"',
    "https://api.example.com/v1/x?key=7f3a9b2c1d4e5f6a7b8c9d0e1f2a3b4c".replace(
        "7f3a9b2c1d4e5f6a7b8c9d0e1f2a3b4c", "{}"),
    # a HAR file's queryString entries, on a line or pretty-printed
    '"queryString": [{{"name": "key", "value": "{}"}}, {{"name": "page", "value": "2"}}]',
    '"queryString": [\n  {{\n    "name": "sig",\n    "value": "{}"\n  }}\n]',
]

UNCHANGED: list[str] = [
    "https://s3.example.com/bucket?key=uploads/2024/avatar.png",
    "https://example.com/?sig=abc",
    "/search?key=dark&sort=asc",
    "https://example.com/docs?key=value",
    "https://example.com/cache?key=user_profile_42",
    "the ?key= parameter takes your API key",
    '{"name": "key", "value": "dark"}',
    '"queryString": [{"name": "Key", "value": "user_profile_42"}]',
]

test_the_value_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(PW), t.format(R)) for t in TEMPLATES], UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"tiles: https://tiles.example.com/map.png?sig={PW}", PW)
