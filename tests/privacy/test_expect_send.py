"""The password an Expect script types at a prompt: ``expect "password:"; send
"PW\\r"`` (``expect -c '…'``, a script's lines, an ``expect { … }`` block, ``send --``,
``send {…}``) and pexpect's ``child.sendline('PW')`` after ``child.expect('Password:')``
went out in clear. After a prompt for a password, passphrase, PIN or token the value goes
as a flag's does; a ``send`` with no such prompt before it only when it reads as random.
What is typed after the password (``sudo -i``, ``exit``), ``yes`` at a host-key prompt and
a variable stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4n"

#: each holds PW once, the typed password: what stays is the text with PW redacted
TYPED = [
    f"expect -c 'send \"{PW}\\r\"'",
    f'spawn sudo -k true\nexpect "*assword*"\nsend -- "{PW}\\r"\nexpect eof',
    'expect {\n  "(yes/no)?" { send "yes\\r"; exp_continue }\n'
    f'  "password:" {{ send "{PW}\\r" }}\n}}',
    f'expect "Enter PIN:"\nsend "{PW}\\n"',
    f'expect "passphrase"\nsend {{{PW}\\r}}',
    f"child = pexpect.spawn('ssh deploy@web')\nchild.expect('Password:')\nchild.sendline('{PW}')",
    f'expect "password:"\nsend "{PW}\\r"\nexpect "$ "\nsend "sudo -i\\r"\nsend "exit\\r"',
]

UNCHANGED = [
    'send "yes\\r"',
    'expect "(yes/no)?"\nsend "yes\\r"\nexpect "$ "\nsend "uptime\\r"',
    'expect "*assword*"\nsend "$env(SSH_PW)\\r"',
    "child.expect('Password:')\nchild.sendline(os.environ['SSH_PW'])",
    "child.sendline('ls -la')",
    "We send the report every Monday\\n",
]


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"login: expect -c 'send \"{PW}\\r\"'", PW)


def test_a_weak_password_goes_after_its_prompt_only() -> None:
    # judged as a flag's value after a password prompt; as random without one
    script = 'expect "password:"\nsend "hunter22\\r"'
    assert redact(script) == ('expect "password:"\nsend "[REDACTED:secret]\\r"', 1)
    assert redact('send "hunter22\\r"') == ('send "hunter22\\r"', 0)


test_the_typed_password_is_redacted, test_other_input_and_a_variable_stay = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in TYPED], UNCHANGED)


def test_the_code_between_a_prompt_and_its_send_is_no_value() -> None:
    # the assignment rule read `"password:"; send "` as a name and the quoted value
    # `; send `: the output was `expect "password:"[REDACTED:secret]"[REDACTED:secret]\r"`
    for prompt in ("password:", "Password: ", "db_password:"):
        script = f'expect "{prompt}"; send "{PW}\\r"; interact'
        assert redact(script) == (script.replace(PW, "[REDACTED:secret]"), 1), prompt
    # a value quoted after a quoted name and separator still goes
    assert redact(f'"password="{PW}"') == ('"password="[REDACTED:secret]"', 1)


def test_a_label_then_a_quoted_passphrase_is_no_code_between_strings(tmp_path: Path) -> None:
    # `"password: "correct horse battery staple"`: a label in quotes, then the phrase up to
    # a quote glued to its last word; read as the code between a prompt and its send, it
    # went out in clear (memory add kept it, plan --provider openai showed it)
    phrase = "correct horse battery staple"
    for text in (f'"password: "{phrase}"', f"label 'Passphrase: '{phrase}' in the form",
                 f'The wiki admin form: "password: "{phrase}"'):
        assert redact(text) == (text.replace(phrase, "[REDACTED:secret]"), 1), text
    assert_pin_refused(tmp_path, f'The wiki admin form: "password: "{phrase}"', phrase)
    # code between the strings still is none: an operator first, or a space before the
    # next string's opening quote
    for script in (f'expect "password: "; send "{PW}\\r"',
                   f"child.expect('Password:'); child.sendline('{PW}')"):
        assert redact(script) == (script.replace(PW, "[REDACTED:secret]"), 1), script
