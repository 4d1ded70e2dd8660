"""Redis's password as its configuration gives it: redis.conf's ``requirepass …`` and
``masterauth …`` directives, ``redis-server --requirepass …`` (a Compose file's command),
``CONFIG SET requirepass …``: the password went to the model in clear, and a pin holding
it was stored (a name, then a space: no rule read it). Judged as an assignment's value on
its own line; a commented-out sample (``# requirepass foobared``) and a reference stay.
So does the AUTH command a client sends it (``redis-cli AUTH …``, ``127.0.0.1:6379> AUTH
default …`` in a session), which went out in clear too."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
#: a SHA-256 of a password, as an ACL file keeps it (``#…``): no password, it stays
SHA = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"

CASES: list[tuple[str, str]] = [
    (f"bind 0.0.0.0\nrequirepass {PW}\n", "bind 0.0.0.0\nrequirepass [REDACTED:secret]\n"),
    (f'masterauth "{PW}"', 'masterauth "[REDACTED:secret]"'),
    (f"    command: redis-server --appendonly yes --requirepass {PW}",
     "    command: redis-server --appendonly yes --requirepass [REDACTED:secret]"),
    # the same flag's value as the next item of an argument list: docker inspect's "Cmd",
    # a Compose or pod command as a list, compact JSON, an indented YAML list
    (f'"Cmd": ["redis-server", "--requirepass", "{PW}"]',
     '"Cmd": ["redis-server", "--requirepass", "[REDACTED:secret]"]'),
    (f'command: ["redis-server","--masterauth","{PW}","--port","6380"]',
     'command: ["redis-server","--masterauth","[REDACTED:secret]","--port","6380"]'),
    (f"    args:\n      - --requirepass\n      - {PW}\n",
     "    args:\n      - --requirepass\n      - [REDACTED:secret]\n"),
    (f"127.0.0.1:6379> CONFIG SET requirepass {PW}",
     "127.0.0.1:6379> CONFIG SET requirepass [REDACTED:secret]"),
    # the AUTH command: given to redis-cli, typed at its prompt, or a session's line
    (f"redis-cli AUTH {PW}", "redis-cli AUTH [REDACTED:secret]"),
    (f"docker exec -it cache redis-cli -h 10.0.0.5 -p 6380 auth default '{PW}'",
     "docker exec -it cache redis-cli -h 10.0.0.5 -p 6380 auth default '[REDACTED:secret]'"),
    (f"127.0.0.1:6379> AUTH default {PW}\nOK",
     "127.0.0.1:6379> AUTH default [REDACTED:secret]\nOK"),
    ("redis> auth hunter22\nOK", "redis> auth [REDACTED:secret]\nOK"),
    (f"AUTH default {PW}", "AUTH default [REDACTED:secret]"),
    # redis-cli's long flag for its -a
    (f"redis-cli --user app --pass {PW} ping",
     "redis-cli --user app --pass [REDACTED:secret] ping"),
    # a password an ACL rule adds to a user (``>…``), at the prompt or given to redis-cli
    (f"127.0.0.1:6379> ACL SETUSER app on >{PW} ~cache:* +get",
     "127.0.0.1:6379> ACL SETUSER app on >[REDACTED:secret] ~cache:* +get"),
    ("redis-cli acl setuser ops reset on >hunter22 ~* +@all",
     "redis-cli acl setuser ops reset on >[REDACTED:secret] ~* +@all"),
    # HELLO's AUTH, at the prompt
    (f"127.0.0.1:6379> HELLO 3 AUTH default {PW}",
     "127.0.0.1:6379> HELLO 3 AUTH default [REDACTED:secret]"),
    # HELLO's AUTH on a line of its own (a session pasted without its prompts)
    ("HELLO 3 AUTH default hunter22", "HELLO 3 AUTH default [REDACTED:secret]"),
    # HELLO's SETNAME after its AUTH (a client names its connection so)
    (f"HELLO 3 AUTH default {PW} SETNAME worker-1",
     "HELLO 3 AUTH default [REDACTED:secret] SETNAME worker-1"),
    (f"redis-cli -h cache HELLO 3 AUTH app '{PW}' SETNAME app",
     "redis-cli -h cache HELLO 3 AUTH app '[REDACTED:secret]' SETNAME app"),
    # MIGRATE's AUTH and AUTH2 (the target's login), at the prompt or given to redis-cli
    (f'127.0.0.1:6379> MIGRATE 10.0.0.2 6379 "" 0 5000 AUTH2 app {PW} KEYS user:1 user:2',
     '127.0.0.1:6379> MIGRATE 10.0.0.2 6379 "" 0 5000 AUTH2 app [REDACTED:secret] KEYS user:1'
     ' user:2'),
    ("redis-cli -h cache MIGRATE 10.0.0.2 6379 session:9 0 5000 COPY AUTH hunter22",
     "redis-cli -h cache MIGRATE 10.0.0.2 6379 session:9 0 5000 COPY AUTH [REDACTED:secret]"),
    ("MIGRATE 10.0.0.2 6379 mykey 0 5000 AUTH hunter22",
     "MIGRATE 10.0.0.2 6379 mykey 0 5000 AUTH [REDACTED:secret]"),
    # an ACL file's line (users.acl, as ACL SAVE writes it) and ACL LIST's reply
    (f"user default on nopass ~* &* +@all\nuser app on #{SHA} >hunter22 ~* +@all\n",
     f"user default on nopass ~* &* +@all\nuser app on #{SHA} >[REDACTED:secret] ~* +@all\n"),
    (f'127.0.0.1:6379> ACL LIST\n1) "user app on >{PW} ~cache:* +get"',
     '127.0.0.1:6379> ACL LIST\n1) "user app on >[REDACTED:secret] ~cache:* +get"'),
]

UNCHANGED: list[str] = [
    "# requirepass foobared",  # redis.conf's commented sample
    "command: redis-server --requirepass ${REDIS_PASSWORD}",
    "the requirepass directive sets it",
    "redis-cli AUTH $REDIS_PASSWORD",
    "127.0.0.1:6379> AUTH default ${REDIS_PASSWORD}",
    "AUTH <password>",
    "AUTH failed",  # a log's line: a session's bare line is judged as prose is
    "We use OAuth tokens",
    "configure basic auth here",
    "redis-cli --askpass --user app",
    "ACL SETUSER app on nopass ~* +@all",
    "ACL SETUSER app on >${REDIS_APP_PASSWORD} ~* +@all",
    "MIGRATE 10.0.0.2 6379 mykey 0 5000 AUTH $REDIS_PASSWORD",
    f"user app on #{SHA} ~* +@all",
    "user default on nopass ~* &* +@all",
    "the user bob on call > 5 minutes is paged",
    "Hello 3 auth retries today",
    "HELLO 3 AUTH default $REDIS_PASSWORD SETNAME worker-1",
    "we set auth mode setname later",
    '"Cmd": ["redis-server", "--requirepass", "$(REDIS_PASSWORD)"]',
    '["redis-server", "--requirepass", "--port", "6380"]',
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_the_password_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_sample_or_reference_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_an_acl_files_password_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"users.acl: user app on >{PW} ~cache:* +get", PW)


def test_the_line_before_each_auth_is_read_a_bounded_way_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``AUTH a KEYS AUTH a KEYS …`` on one line (a hostile or broken text): since MIGRATE's
    KEYS may follow a password, each ``AUTH a`` is a match, and what leads it was read from
    its line's start, a square of the line (0.5 MB: 2.4 s CPU, 0.24 s before the KEYS form).
    A lead is a few hundred characters at most, so no more is read back (no clock: the
    characters the lead's pattern is given, counted); a lead far back on a long line still
    counts, and a bare line's AUTH is still judged as one."""
    from waymarks.core import secret_commands

    lead = secret_commands._REDIS_LEAD
    read: list[int] = []

    class Counted:
        def fullmatch(self, text: str, pos: int, endpos: int) -> object:
            read.append(endpos - pos)
            return lead.fullmatch(text, pos, endpos)

    monkeypatch.setattr(secret_commands, "_REDIS_LEAD", Counted())
    text = "AUTH a keys " * 2000
    redact(text)
    assert 0 < sum(read) <= 1100 * len(read)
    padded = "x" * 5000 + f"\nredis-cli -h cache AUTH default {PW}\n"
    assert redact(padded) == (padded.replace(PW, "[REDACTED:secret]"), 1)
    bare = "y" * 5000 + f"\n{' ' * 1500}AUTH default '{PW}'\n"
    assert redact(bare) == (bare.replace(PW, "[REDACTED:secret]"), 1)
