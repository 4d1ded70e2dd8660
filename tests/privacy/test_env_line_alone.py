"""A ``NAME=VALUE`` line alone, a .env file's or one pasted into a note, whose name says
nothing of a credential (``DB=…``): a generated value there went out in clear (only a
credential's name, an ``export`` or an environment's dump was read). It goes now when it
reads as generated, as a container's environment entries are judged
(secret_environments.generated); settings, IDs, digests and a weak password under such a
name stay. A pair starting a command's line, the command's environment (``DB=… rails s``),
went out in clear too, and so did one after a prefix on its line (``start: DB=… rails
s``): they go now."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests
from waymarks.core.secrets import redact

PW = "Xk9vT2pQ7mLwR4sZ"

#: each holds PW once, the value of a line alone: what stays is the text with PW redacted
ALONE = [
    f"DB={PW}",
    f"The staging env file:\nDB={PW}\nREDIS_HOST=redis.internal",
    f'  SESSION="{PW}"',
    f"SIGNING='{PW}'\r\nLOG_LEVEL=debug",
]

#: settings, IDs and digests under a neutral name, each a line of its own (and read alone)
SETTINGS = """NODE_ENV=production
GIT_COMMIT=3f2504e04f8911d39a0c0305e82c3301abcdef12
REQUEST_ID=3f2504e0-4f89-11d3-9a0c-0305e82c3301
DB=hunter22
ULID=01HF8XKQW3Z9G7R2B5N4M6P8TV
AUTH0_DOMAIN=MyTenantProduction2024
MODULE_PATH=src/waymarks/core/secret_environments"""
UNCHANGED = [SETTINGS, *SETTINGS.splitlines(), "x = y\nWIDTH=1024"]


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"The staging env file:\nDB={PW}", PW)


test_the_value_alone_on_its_line_is_redacted, test_a_setting_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in ALONE], UNCHANGED)


def test_a_token_cut_after_its_padding_is_no_pair() -> None:
    # the head of a wrapped base64 token (a Sentry org token's, its JSON's "=" then more):
    # a name of 64+ characters is no variable's, and the token's own rule reads it whole
    head = "sntrys_eyJpYXQiOiAxNzE3MTcxNzE3LjUsICJ1cmwiOiAiaHR0cHM6Ly9zZW50cnkuaW8iLCAi"
    text = f"{head}In0={PW}"
    assert redact(text) == (text, 0)


def test_the_pretest_reads_such_a_line_from_its_equals_sign_back() -> None:
    # alone_pair, the pre-test's reading: a name alone before the "=", a token's run after
    from waymarks.core.secret_tokens import alone_pair

    assert alone_pair(f"notes\n  DB='{PW}'\nmore")
    assert alone_pair(f"DB={PW}")
    assert alone_pair(f"run DB={PW} rails s")  # after a prefix's space (a command's env)
    assert not alone_pair(f"start:DB={PW} rails s")  # glued to a word: no pair of its own
    assert not alone_pair(f"x = {PW}")  # a space before the "=": code
    assert not alone_pair("DB=short")


def test_a_pair_starting_a_command_line_is_redacted() -> None:
    # the command's environment: went out in clear (env_line wanted the line's end)
    for text in (f"DB={PW} rails s", f"SIGNING={PW} ./run.sh --port 3000",
                 f"Start it with:\n  SESSION='{PW}' bundle exec puma\n"):
        assert redact(text) == (text.replace(PW, "[REDACTED:secret]"), 1), text
    for text in ("GIT_COMMIT=3f2504e04f8911d39a0c0305e82c3301abcdef12 make release",
                 "AUTH0_DOMAIN=MyTenantProduction2024 npm start",
                 "NODE_OPTIONS=--max-old-space-size=4096 node app.js"):
        assert redact(text) == (text, 0), text


def test_a_pair_after_a_prefix_on_its_line_is_redacted() -> None:
    # ``start: DB=… rails s``: a pair not starting its line went out in clear (the rule
    # read a line's start only); after a prefix's space, a backtick or a shell's operator
    for text in (f"start: DB={PW} rails s", f"run DB={PW} rails s", f"$ DB={PW} rails s",
                 f"sudo SIGNING='{PW}' ./run.sh", f"make it so: `SESSION={PW} bin/dev`",
                 f"cd app && DB={PW} rails s", f"the env file has DB={PW}\nand more"):
        assert redact(text) == (text.replace(PW, "[REDACTED:secret]"), 1), text
    # settings, a commit, a logfmt line's pairs (a word with "=" after), an argument in
    # code and a pair glued to a word stay
    for text in ("run GIT_COMMIT=3f2504e04f8911d39a0c0305e82c3301abcdef12 make release",
                 "then AUTH0_DOMAIN=MyTenantProduction2024 npm start",
                 "run NODE_OPTIONS=--max-old-space-size=4096 node app.js",
                 "docker run --label build=7f3a9c2b4e1d8f6a0b5c3e2d1f4a6b8c nginx",
                 f"ts=2024 level=info span={PW} status=200", f"f(a, b={PW})",
                 f"start:DB={PW} rails s", "$ DB=hunter22 rails s"):
        assert redact(text) == (text, 0), text
