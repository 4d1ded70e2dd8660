"""Deny by default after a credential's noun, a clause about it and an assignment
(core/secret_denied.py): the value goes unless it is recognisably not one."""

from __future__ import annotations

import pytest

from waymarks.core.secrets import redact

REDACTED = [
    ("the wiki pw on the old staging box was literally Autumn2017 and nobody changed it",
     "Autumn2017"),
    ("The guest password they handed out was Green-Lamp-42 - rotate it monday", "Green-Lamp-42"),
    ("the console passphrase is 'rain on tin roofs' (spaces included)", "rain on tin roofs"),
    ("pasword for the metrics viewer is Viewer!88 fyi", "Viewer!88"),
    ("the kiosk admin pw is 4.0.2-beta, someone found that clever", "4.0.2-beta"),
    ("Gate code at the depot is 8841. Do not share it.", "8841"),
    ("the bastion pw: was Old!Pass9, now Fresh_Kite_221", "Old!Pass9"),
    ("the bastion pw: was Old!Pass9, now Fresh_Kite_221", "Fresh_Kite_221"),
    ("路由器口令：明月松间照", "明月松间照"),
    ("门禁码从 2468 改成 1357 了", "1357"),
    ("门禁码从 2468 改成 1357 了", "2468"),
    ("ftp creds: dana / pine.Cone.77", "pine.Cone.77"),
]
KEPT = [
    "the password is stale, ask IT for a new one",
    "pw: see 1Password",
    "the password is 16 characters long",
    "password: <password>",
    "changed the deploy key from RSA to ed25519",
    "self.password = password",
    "password = get_password()",
    "vault token TTL is 768h which is too long",
    "the secret sauce is a good index",
    "the helm chart pin is 3.2.1 until the fix lands",
    "密码：请联系管理员",
    "the password for the db is in the vault",
]


@pytest.mark.parametrize(("text", "value"), REDACTED)
def test_a_value_after_noun_clause_and_assignment_goes(text: str, value: str) -> None:
    out, count = redact(text)
    assert value not in out and count >= 1


@pytest.mark.parametrize("text", KEPT)
def test_what_is_recognisably_no_value_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_long_run_of_nouns_and_clauses_is_no_value() -> None:
    # the clause is bounded (12 words): a run of nouns and clauses with no assignment stays
    text = "password for a b c d e f g h i j k l m " * 2000
    assert redact(text) == (text, 0)
