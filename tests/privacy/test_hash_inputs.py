"""The password a hashing or checking call is given as a string literal: a user reset in
Laravel's tinker (``bcrypt('PW')``, ``Hash::make('PW')``), a seeder, a shell of Django or
Flask, a snippet of Node, Ruby, Java, Go or .NET went out in clear (no name of a
credential stands before it, or only in code the assignment rule took instead). Its
literal goes now; a variable, a call and a plain ``hash()`` of data stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4n"

#: each holds PW once, as the call's literal: what stays is the text with PW redacted
HASHED = [
    f">>> bcrypt('{PW}')",
    f"> Hash::make('{PW}')",
    f"$hash = password_hash('{PW}', PASSWORD_DEFAULT);",
    f"user.set_password('{PW}')",
    f"make_password(\"{PW}\")",
    f"generate_password_hash('{PW}')",
    f"hashed = bcrypt.hashpw(b'{PW}', bcrypt.gensalt())",
    f"const h = await bcrypt.hash('{PW}', 10);",
    f"BCrypt::Password.create('{PW}')",
    f'String h = passwordEncoder.encode("{PW}");',
    f'new BCryptPasswordEncoder().encode("{PW}")',
    f'h, _ := bcrypt.GenerateFromPassword([]byte("{PW}"), bcrypt.DefaultCost)',
    f'var h = BCrypt.Net.BCrypt.HashPassword("{PW}");',
]

UNCHANGED = [
    "Hash::make($request->password)",
    "password_hash($pw, PASSWORD_BCRYPT)",
    "bcrypt(Str::random(32))",
    "hash('sha256', 'hello world')",
    'encoder.encode("hello")',
    "the bcrypt('…') helper hashes with the default cost",
]


def test_a_weak_password_hashed_goes_too() -> None:
    # what a tinker session resets a user to: a word and a number, no name before it
    assert redact("> $u->password = bcrypt('hunter22')") == (
        "> $u->password = bcrypt('[REDACTED:secret]')", 1)


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"admin reset in tinker: Hash::make('{PW}')", PW)


test_the_literal_hashed_is_redacted, test_a_variable_a_call_or_data_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in HASHED], UNCHANGED)
