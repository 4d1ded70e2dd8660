"""What ``vault kv get -field=password secret/x`` (``vault read -field=token …``) prints, in
a pasted terminal session: the value alone on the line after the command went out in clear.
A field named for a credential only; a label, a prompt or a redirect's command stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vT2pQ" + "7mLwR4sZ"
R = "[REDACTED:secret]"


def test_the_printed_field_is_redacted() -> None:
    for command in ("$ vault kv get -field=password secret/x",
                    "vault kv get -mount=secret -field=api_key app/prod",
                    "vault read -field=token auth/approle/login"):
        text = f"{command}\n{PW}\n$ exit"
        assert redact(text) == (f"{command}\n{R}\n$ exit", 1), command
    # judged as a flag's value: a word goes too, the field says what it is
    assert redact("vault kv get -field=password secret/db\nhunter22") == \
        (f"vault kv get -field=password secret/db\n{R}", 1)


def test_other_fields_and_lines_stay() -> None:
    for text in ("vault kv get -field=username secret/x\nadmin_user",
                 "vault kv get -field=password secret/x\n$ echo done",
                 f"vault kv get -field=password secret/x > pw.txt\n{PW}",
                 "vault kv get -field=password secret/x\nOutput:\n",
                 "vault kv get -field=password secret/x\n$PASSWORD_FROM_ENV"):
        assert redact(text) == (text, 0), text


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"$ vault kv get -field=password secret/x\n{PW}", PW)
