"""A private key pasted in part: the tail of its block (the BEGIN line in another
message, or cut off) whose last base64 line is short, as a key's length leaves it
(``…\\nAb12==\\n-----END RSA PRIVATE KEY-----``): the whole run went out in clear, since
only lines of 16 characters or more were read before the END line. And its base64 body
alone, no armour at all (an environment variable's value, a vault's field, the block
pasted without its BEGIN and END lines), which opens as a private key's DER does: it went
out in clear; a public key's or a certificate's body stays."""

from __future__ import annotations

import base64
import random

import pytest

from waymarks.core.secrets import find_secrets, redact


def key_lines(size: int) -> list[str]:
    """A fake key body of ``size`` bytes (seeded), in 64-character lines."""
    body = base64.b64encode(random.Random(size).randbytes(size)).decode()
    return [body[i:i + 64] for i in range(0, len(body), 64)]


@pytest.mark.parametrize("size", [337, 340, 350, 1190])  # last lines of 4, 8, 20, 52
def test_a_tail_ending_in_a_short_line_goes_whole(size: int) -> None:
    lines = key_lines(size)
    text = ("the rest of the key:\n" + "\n".join(lines[2:])
            + "\n-----END RSA PRIVATE KEY-----\nthat is all")
    assert redact(text) == ("the rest of the key:\n[REDACTED:private-key]\nthat is all", 1)


def test_a_short_line_after_a_certificate_stays() -> None:
    lines = key_lines(337)
    text = "\n".join(lines[2:]) + "\n-----END CERTIFICATE-----"
    assert find_secrets(text) == []


#: the DER openings of private keys (then random bytes): PKCS#8 and PKCS#1 RSA, DSA, EC
#: (SEC1 P-256 and P-384, PKCS#8), Ed25519, X25519
PRIVATE_DER = ["308204bd020100300d06092a864886f70d0101010500048204a7", "308204a40201000282010100",
               "308201bb02010002818100", "30770201010420", "3081a40201010430",
               "308187020100301306072a8648ce3d020106082a8648ce3d030107",
               "302e020100300506032b657004220420", "302e020100300506032b656e04220420"]
#: a public key's (SubjectPublicKeyInfo, RSA) and a certificate's
PUBLIC_DER = ["30820122300d06092a864886f70d01010105000382010f003082010a0282010100",
              "3082037730820260a003020102020900"]


def body(der_hex: str) -> str:
    """A fake block body: ``der_hex`` then 140 seeded random bytes, in 64-character lines."""
    encoded = base64.b64encode(bytes.fromhex(der_hex)
                               + random.Random(der_hex).randbytes(140)).decode()
    return "\n".join(encoded[i:i + 64] for i in range(0, len(encoded), 64))


@pytest.mark.parametrize("der_hex", PRIVATE_DER)
def test_a_private_key_body_alone_goes_whole(der_hex: str) -> None:
    text = f"key for staging:\n{body(der_hex)}\nthat is it"
    assert redact(text) == ("key for staging:\n[REDACTED:private-key]\nthat is it", 1)


def test_an_openssh_key_body_alone_goes() -> None:
    encoded = base64.b64encode(b"openssh-key-v1\0" + random.Random(5).randbytes(100)).decode()
    assert redact(f"SSH_KEY_BODY {encoded}") == ("SSH_KEY_BODY [REDACTED:private-key]", 1)


@pytest.mark.parametrize("der_hex", PUBLIC_DER)
def test_a_public_key_or_certificate_body_stays(der_hex: str) -> None:
    text = f"key for staging:\n{body(der_hex)}\nthat is it"
    assert redact(text) == (text, 0)


def test_a_prefix_named_in_prose_stays() -> None:
    text = "PKCS#1 keys start with MIIEpAIBAAKCAQEA, public ones with MIIBIjAN"
    assert redact(text) == (text, 0)


def test_middle_lines_alone_go() -> None:
    # a key's lines cut at both ends (no armour, no DER opening), or before an END line
    # cut mid-word: they went out in clear
    lines = key_lines(1190)
    middle = "\n".join(lines[3:9])
    assert redact(f"rest of the key:\n{middle}\nthanks") == \
        ("rest of the key:\n[REDACTED:private-key]\nthanks", 1)
    tail = "\n".join(lines[12:])
    assert redact(f"{tail}\n-----END RSA PRIV") == ("[REDACTED:private-key]\n-----END RSA PRIV", 1)


def test_lines_that_are_no_key_s_middle_stay() -> None:
    digests = "\n".join(f"{n:064x}" for n in range(10**40, 10**40 + 4))  # hex: a digest's
    two = "\n".join(key_lines(1190)[3:5])  # two lines only
    words = "\n".join(["A" * 64] * 3)  # no digit, no small letter
    for text in (digests, f"{two}\nok", words):
        assert redact(text) == (text, 0), text
