"""What ``vault kv get -field=password secret/x`` (``vault read -field=token …``) prints, in
a pasted terminal session: the value alone on the line after the command went out in clear.
A field named for a credential only; a label, a prompt or a redirect's command stays. The
value is printed with no line break after it, so a terminal's next prompt is glued to it,
a command typed at it after (``Xk9v…deploy@web-1:~$ exit``): that went out in clear; the
value goes, the prompt and the command stay."""

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


#: the prompt a command was typed at, glued again after the value it printed
PROMPTS = ["$", "deploy@web-1:~$", "[deploy@web-1 ~]$", "root@web:/#", "deploy@mbp app %",
           "\u279c  app git:(main)", "PS C:\\>"]


def test_the_value_before_the_next_prompt_is_redacted() -> None:
    for prompt in PROMPTS:
        text = f"{prompt} vault kv get -field=password secret/x\n{PW}{prompt} exit"
        assert redact(text) == (text.replace(PW, R), 1), prompt
    # that prompt unknown (not on the command's line): the run to a prompt's end goes
    for glued, kept in ((f"{PW}[deploy@web-1 ~]$ exit", f"{R} ~]$ exit"),
                        (f"{PW}deploy@mbp app % ls", f"{R} app % ls"),
                        (f"{PW}$ exit", f"{R}$ exit")):
        text = f"vault read -field=token auth/approle/login\n{glued}"
        assert redact(text) == (f"vault read -field=token auth/approle/login\n{kept}", 1)


def test_words_after_a_run_that_are_no_prompt_stay() -> None:
    for line in ("Error: permission denied # see docs", "No value found at secret/data/x",
                 "$PASSWORD_FROM_ENV$ exit"):
        text = f"$ vault kv get -field=password secret/x\n{line}"
        assert redact(text) == (text, 0), line


def test_the_cli_refuses_it_before_a_prompt(tmp_path: Path) -> None:
    assert_pin_refused(
        tmp_path, f"deploy@web-1:~$ vault kv get -field=password secret/x\n{PW}deploy@web-1:~$ ls",
        PW)
