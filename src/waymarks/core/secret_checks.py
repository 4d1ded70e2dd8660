"""The checks a rule's match passes before it is taken as a credential (:func:`accepts`),
and where a bare value that a glued ``(`` goes on ends (:func:`glued_end`): what the
expressions of :mod:`waymarks.core.secret_rules` cannot say, judged on the match, the
text around it and the value (:mod:`waymarks.core.secret_values` judges a value alone).

What must stay true: a check only ever declines a match (never widens it, never makes
one), so the rules' no-false-negative property holds of their expressions; and what a
check reads around a match stays bounded (a line's head, a comment's start, a text
lowered once), so a long hostile line costs time in proportion to it.

Pure: ASCII regular expressions and stdlib decoding only, no I/O, no state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_admin import admin_value_in_prose, vault_value_end
from waymarks.core.secret_clauses import far_value_is_secret, old_value_is_secret
from waymarks.core.secret_commands import (
    a_setting,
    oracle_tool_login,
    reads_stdin,
    redis_auth_lead,
)
from waymarks.core.secret_environments import generated
from waymarks.core.secret_logins import accepts_login
from waymarks.core.secret_manifest import PEM_ARMOUR_BYTES, base64_bytes, private_pem
from waymarks.core.secret_more import CHECKS as MORE_CHECKS
from waymarks.core.secret_passphrases import passphrase_is_secret
from waymarks.core.secret_printed import typed_at_prompt
from waymarks.core.secret_prompts import at_a_prompt
from waymarks.core.secret_prose import accepts_prose
from waymarks.core.secret_rules import LEAD_IN, NAMED_CONSTANT
from waymarks.core.secret_stdin import prompted
from waymarks.core.secret_tokens import GLUED_RULES, PLACEHOLDER_PREFIX, ascii_lower
from waymarks.core.secret_values import (
    _FIELD_NAMES,
    _NAME_ENDS,
    _PLACEHOLDERS,
    _case_changes,
    _looks_like_secret,
    _random_part,
    cookie_holds_secret,
    is_reference,
    name_like,
    prose_value_is_secret,
    setting_is_secret,
    translated_label,
)

_DIGIT, _LETTER = lazy("[0-9]"), lazy("[A-Za-z]")
#: a capital, a small letter and a digit, in any order (a random base64 line holds them)
_LETTER_MIX: Final = lazy(r"(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])[^0-9]*[0-9]", re.ASCII)


#: a random 40-character base64 value has about 29 distinct characters; below this, a
#: repetitive run (binary dumps, ``/B/B/B…``) rather than a key
_BARE_DISTINCT: Final = 20

#: how much of a base64 PEM block is decoded to read its armour line (the longest,
#: "-----BEGIN ENCRYPTED PRIVATE KEY-----", is 52 characters of base64; an EC key's stands
#: after its curve's parameters, within :data:`PEM_ARMOUR_BYTES`), line breaks included
_PEM_HEAD: Final = 4 * PEM_ARMOUR_BYTES // 3 + 8
#: OpenAI and Anthropic key types after ``sk-``
_KEY_TYPES: Final = ("proj-", "svcacct-", "admin-", "ant-")


#: the rules whose value :func:`accepts` judges by :func:`_looks_like_secret` alone when it
#: is bare or quoted words (no space, no ``@``): a name is never one
_NAMED_VALUES: Final = frozenset({"assign", "flag", "yaml_key", "name_value"})


def accepts(name: str, match: re.Match[str], start: int, end: int) -> bool:
    """Whether ``match`` of rule ``name``, with span ``start:end``, is a credential."""
    value = match.string[start:end]
    if name in _NAMED_VALUES and name_like(value):
        return False  # a name, ``secret=secret=…``: declined as below, before the chain
    if name in GLUED_RULES and start and match.string[start - 1].isalpha() and (
            not value.startswith(GLUED_RULES[name]) or _LETTER_MIX.search(value) is None):
        return False  # glued to a word (``xxxxghp_…``): a distinctive prefix, random
    if name in ("openai", "anthropic"):
        # "sk-some-long-hyphenated-name" is not a key; a digit, mixed case or a key-type
        # prefix says it is (a random key rarely lacks digits, but may)
        body = value[3:]
        return any(c.isdigit() for c in body) or body.startswith(_KEY_TYPES) or (
            not body.islower() and not body.isupper()) or (body.isupper() and "-" not in body)
    if name == "pem_b64":  # the armour line says PRIVATE KEY (not CERTIFICATE, PUBLIC KEY)
        head = value[:_PEM_HEAD].replace("\r", "").replace("\n", "")
        plain = base64_bytes(head[:len(head) // 4 * 4])
        return plain is not None and private_pem(plain)
    if name == "url_signature":  # "Signature=YOUR_SIGNATURE_HERE" is a placeholder, and
        # so is a description with a digit in it, "hmac_sha256_hex_digest_of_request": a
        # signature has a random part (hex, base64), judged as a URL's token user's are
        return _DIGIT.search(value) is not None and _LETTER.search(value) is not None \
            and any(_random_part(part) for part in _USER_PARTS.split(value))
    if name == "pem_middle":  # each full line random, as a key's DER is (a digest's hex
        # not); a body's first line (DER's SEQUENCE, "M…": pem_der reads a private key's
        # opening, a certificate's or public key's stays) or lines before an END line other
        # than a private key's are no middle of a private key
        after = match.string[end:end + 80].lstrip()
        return not value.startswith("M") and all(
            _LETTER_MIX.search(line) is not None for line in value.split()[:-1]) and (
            not after.startswith("-----END") or "PRIV" in after.split("\n", 1)[0])
    if name == "notion" and value.startswith("secret_"):  # (a 43-letter name after
        # ``secret_`` is code's): random, as its base62 is, digits and both cases
        body = value[7:]
        return _DIGIT.search(body) is not None and not body.islower() and not body.isupper()
    if name == "discord":
        return _decodes(value.split(".", 1)[0], str.isdigit)  # base64 of the user id
    if name == "aws_secret_named":
        # random, not a name: many distinct characters, the case changing often
        # ("fjKaiJUINlK73nZfdklJrX+9…" is; "Src/Widgets2/Forms/…" and "/B/B/B/B…" are not)
        letters = [c for c in value if c.isalpha()]
        return len(set(value)) >= _BARE_DISTINCT and \
            4 * _case_changes("".join(letters)) >= len(letters)
    if name == "bearer":
        # "Bearer authentication": a word, not a token
        return len(value) >= 20 or any(c.isdigit() for c in value)
    if name == "auth_token":  # "Authorization: token authentication": a word
        return len(value) >= 20 or any(c.isdigit() for c in value)
    if name == "netrc":  # data, but "password PASSWORD" or "password P" is documentation
        return _looks_like_secret(value, data=True, alone=False)
    if name == "stdin_login" and (not reads_stdin(match) or (
            (line := value.partition(":")[2]) and is_reference(line))):
        # ``echo "deploy:$PW" | sudo -S chpasswd``: a chpasswd line naming its password
        return False
    if name == "prompt_typed":  # a prompt starting its line, a value typed there
        return at_a_prompt(match)
    if name == "webhook_path":  # a path segment after ``hooks/``: random, not a word
        return setting_is_secret(value)
    if name == "passphrase_line":  # words after ``passphrase:``, quoted or to the line's end
        return passphrase_is_secret(match)
    if name == "printed" and not typed_at_prompt(match):  # a sentence naming the command
        return False
    if name == "expect_send" and not prompted(match):  # ``send "exit\r"``: read as random
        return setting_is_secret(value)
    if name == "secret_set" and a_setting(match, end):
        return setting_is_secret(value)
    if name == "htpasswd" and (not _HTPASSWD_BATCH.search(flags := match.group(
            "htpasswd_flags")) or (match.group("htpasswd_file") is None)
            != (_HTPASSWD_NO_FILE.search(flags) is not None)):
        # no -b: the password is asked for, and what ends the line is the user; a file
        # unless -n (``-bc FILE USER`` left its password out: USER is no password)
        return False
    if name == "query_key":  # a URL's key or signature, named by little: reads random
        return setting_is_secret(value)
    if name == "oracle_login" and (standing := oracle_tool_login(match, end)):
        return _looks_like_secret(value, data=standing == "parameter", alone=False)
    if name == "admin_password" and admin_value_in_prose(match, end):
        return _looks_like_secret(value, data=False, alone=False)
    if name in ("short_flag", "user_flag", "login_flag", "smb_user", "stdin_login",
                "config_set", "config_named", "secret_set", "htpasswd", "rabbitmqctl",
                "chpasswd", "oracle_login", "wifi_psk", "lftp_user", "admin_password",
                "expect_send", "hash_input", "add_mask", "vault_field", "printed",
                "secure_string"):
        # "-p****", "-u me:$TOKEN" and "curl -k https://…" (a URL after an option) hold none
        return not is_reference(value) and any(c.isalnum() for c in value) \
            and "://" not in value
    if name in ("cookie", "curl_cookie"):  # "theme=dark; lang=en" holds none; a session ID does
        return cookie_holds_secret(value)
    if name == "pgpass":  # judged as prose would be: "postgres" or "*" is no secret here
        return _a_pgpass_line(match) and _looks_like_secret(value, data=False, alone=False)
    if name == "vault_login":  # "vault login successfully": a word, not a token
        return _LETTER.search(value) is not None and _DIGIT.search(value) is not None
    if name == "b64_login":  # a login, or a value read random (a Secret's, copied)
        return _decodes(value, lambda s: s.isprintable() and (":" in s or setting_is_secret(s)))
    if name in ("basic", "auth_b64"):
        return _decodes(value, lambda s: ":" in s and s.isprintable())  # base64 "user:pass"
    if name in ("url_user", "auth_raw"):  # random, not a name: "deploy-bot-2024" is one
        return any(_random_part(part) for part in _USER_PARTS.split(value))
    if name == "url":  # "USER:PASSWORD@HOST" names the field instead of holding it
        return not is_reference(value) and value.lower() not in _FIELD_NAMES
    if name == "php_define":  # named for a credential: an assignment's; else a setting's
        if NAMED_CONSTANT.fullmatch(match.group("php_name")) is None:
            return setting_is_secret(value)
        return _a_quoted_phrase_secret(value) if _SPACE.search(value) is not None \
            else _looks_like_secret(value, data=True, alone=False)
    if name == "dash_flag":  # a word after "the -token flag" is prose's: judged so, unless
        # quoted (a flag's value then, as after ``--token``)
        quoted = match.lastgroup != name
        return (quoted and _looks_like_secret(value, data=True, alone=False)) or (not quoted \
            and prose_value_is_secret(value, quoted=False, pin=False))
    if name in ("sql_password", "redis_auth", "redis_acl", "haproxy_user"):
        # a literal, a directive's: data
        return _looks_like_secret(value, data=True, alone=False)
    if name == "redis_cli_auth":  # data given to redis-cli; on a bare line, judged as prose
        lead, quoted = redis_auth_lead(match), match.lastgroup != name
        if lead == "client" or (lead == "bare" and quoted):
            return _looks_like_secret(value, data=True, alone=False)
        return lead == "bare" and prose_value_is_secret(value, quoted=False, pin=False)
    if name == "pgbouncer":
        return _a_userlist_secret(match.string, start, value)
    if name == "tf_sensitive":  # marked so by Terraform: any value that holds something
        return any(c.isalnum() for c in value) and not value.startswith(PLACEHOLDER_PREFIX)
    if name in ("tf_default", "xml_value", "xml_pair", "py_auth", "win_env", "setx",
                "odbc_braced"):
        return _a_quoted_phrase_secret(value) if _SPACE.search(value) is not None \
            else _looks_like_secret(value, data=True, alone=False)
    if name in ("prose", "prose_cjk", "prose_bare", "prose_named", "prose_cjk_words"):
        return accepts_prose(match, start, end)
    if name in ("login_pair", "password_set"):
        return accepts_login(match, start, end)
    if name == "prose_far":
        return far_value_is_secret(match, start, end)
    if name in MORE_CHECKS:  # (a shape in a module of its own: secret_more)
        return MORE_CHECKS[name](match, start, end)
    if name in ("prose_from", "prose_from_to"):
        return old_value_is_secret(match, start, end)
    if name == "assign" and "@" in value and _USERINFO.search(
            match.string, max(0, match.start() - 256), match.start()) is not None:
        # "https://x-access-token:ghs_…@github.com/o/r.git": a user named for a token, not
        # an assignment; the URL's rule takes the password and leaves host and path
        return False
    if name == "flag" and value.lower() in _FLAG_NOUNS \
            and _GOES_ON.match(match.string, end) is not None:
        return False  # "pass the --token flag with …": the flag named, not given a value
    if name in ("assign", "flag", "yaml_key", "name_value"):
        if match.string.startswith(PLACEHOLDER_PREFIX, end) and LEAD_IN.fullmatch(value):
            # a credential's own lead-in running into its redaction ("AccountKey=AccountKey=
            # [REDACTED:…]"): what the first pass kept, not a value (redaction stays
            # idempotent). Any other value before a placeholder is still judged: text that
            # merely carries "[REDACTED:" must not switch detection off
            return False
        if name == "assign" and not _a_yaml_value(match):
            return False  # "Credentials:⏎  …": a heading, and what follows it prose
        if name == "assign" and _SPACE.search(value) is not None and _between_strings(match):
            return False  # expect "password:"; send "…": the send's rule reads its value
        quoted = match.lastgroup != name
        if not quoted and _a_call(match.string, value, end):
            return False  # a call, code: ``secret_v1 = SecretV1()``, ``key = Key2.load(p)``
        if _SPACE.search(value) is not None:  # quoted, or a dotenv line's words
            if _a_login_name(match):  # "redis_auth": "Redis auth requires …": a phrase,
                # no passphrase, under a name as often for a description: a word decides
                return any(_looks_like_secret(word.strip(".,;:!?()"), data=False, alone=False)
                           for word in value.split())
            if not quoted and match.groupdict().get("sep") == "=":  # (a flag has none)
                # a dotenv line's words (:func:`_dotenv_end`): a passphrase, or a first
                # word that reads random even as prose's (``password=9DMny3UWo2va key``
                # went in clear once the line's rest was read with it; ``TODO fill me
                # in`` stays)
                return _a_quoted_phrase_secret(value) or _looks_like_secret(
                    value.split(None, 1)[0], data=False, alone=False)
            return _a_quoted_phrase_secret(value)
        if _a_word_named_pass(match) or _a_login_name(match):
            # "first_pass: 'fast'", "pass: done", fetch's "credentials: 'include'",
            # "http_auth: basic": a word stays
            return _looks_like_secret(value, data=False, alone=False)
        # data, not prose: a quoted value, a flag's, or NAME=value with no spaces
        data = quoted or name == "flag" or match.group("sep") == "="
        alone = _LINE_END.match(match.string, end) is not None \
            and _starts_its_line(match.string, match.start())
        return _looks_like_secret(value, data, alone)
    return True


#: the nouns prose names a flag with, after it ("the --token flag", "the --password option")
_FLAG_NOUNS: Final = frozenset({"flag", "flags", "option", "options", "argument", "arguments",
                                "arg", "args", "parameter", "parameters", "param", "params",
                                "switch", "setting", "field", "value", "variable"})
#: prose going on after such a noun, or the text's end: a word, punctuation, a line's end
_GOES_ON: Final = lazy(r"(?:[ \t]+[A-Za-z(]|[.,;:!?)]|[ \t]*(?:\r?\n|\Z))", re.ASCII)


#: PgBouncer's hashed entries (``md5`` and 32 hex digits, a SCRAM secret): they log in
_USERLIST_HASH: Final = lazy(r"md5[0-9a-f]{32}|SCRAM-SHA-256\$\d{1,7}:\S{8,}", re.ASCII)
#: what names PgBouncer's user list, read up to 4 KB before an entry
_USERLIST_NAMES: Final = ("userlist", "pgbouncer", "auth_file")


def _a_userlist_secret(text: str, start: int, value: str) -> bool:
    """Whether a ``"USER" "VALUE"`` line's value is PgBouncer's password: its hash or SCRAM
    secret always; a plain one where the text names the file just before, else only one
    that reads random, as a value in prose must (``"foo" "bar"`` is a list's line)."""
    if _USERLIST_HASH.fullmatch(value) is not None:
        return True
    before = ascii_lower(text[max(0, start - 4096):start])
    if any(name in before for name in _USERLIST_NAMES):
        return _looks_like_secret(value, data=True, alone=False)
    return prose_value_is_secret(value, quoted=False, pin=False)


#: htpasswd's batch flag among its flags (``-b``, ``-bc``, ``-nbB``)
_HTPASSWD_BATCH: Final = lazy(r"-[A-Za-z]*b", re.ASCII)
#: htpasswd's flag to print the entry instead of writing a file (``-nb USER PASSWORD``)
_HTPASSWD_NO_FILE: Final = lazy(r"-[A-Za-z]*n", re.ASCII)
#: a name in code, dotted (``ApiKey2024.load``): before a ``(`` it is called, not a value
_IDENTIFIER: Final = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", re.ASCII)
#: a call's argument list on its line, closed, nothing glued after it (a space, the line's
#: end, or what closes or goes on with code: ``,;:)]}.``, a quote closing the string the
#: code is in, an escaped line break: ``"api_key=get(key_name)"``, JSON's ``load(p)\\n``),
#: or a call or index of its result (``f(x)(y)``, ``n(r)[0]``, ``t(e)?.value``: curried
#: code, minified JavaScript's one-letter names; the first list's words judged as any call's)
_ARGUMENTS: Final = lazy(r"\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)"
                         r"(?![^\s,;:)\]}.\"'`\\(\[?])", re.ASCII)
#: a name switching between letters and digits this often is generated, not written
#: (``Xk9mQ2pL7``; not ``SecretV1``, ``ApiKey2024``, ``Password8Hasher``)
_CODE_SWITCHES_MAX: Final = 2


def _a_call(text: str, value: str, end: int) -> bool:
    """Whether the bare ``value`` ending at ``end`` is a name called in code
    (``SecretV1()``, ``ApiKey2024.load(path)``): a name, its argument list closed after
    it, and no part of either, quoted strings aside, switching between letters and digits
    as a generated password does. ``DB_PASSWORD=Xk9mQ2pL7(vR3)!`` went out whole once read
    as a call, and so did ``password=gR7(kP2mZ9qW4tY)`` (a short head, a random run in
    its parentheses)."""
    if _IDENTIFIER.fullmatch(value) is None \
            or (arguments := _ARGUMENTS.match(text, end)) is None:
        return False
    words = [*value.split("."), *(word.group(1) for word in _ARGUMENT_WORDS.finditer(
        arguments.group()) if word.group(1))]
    return all(sum(a.isdigit() != b.isdigit() for a, b in pairwise(word))
               <= _CODE_SWITCHES_MAX for word in words)


#: the words of an argument list, its quoted strings skipped (``fromhex("00ff11aa")``)
_ARGUMENT_WORDS: Final = lazy(r"\"[^\"]*\"|'[^']*'|([A-Za-z0-9]+)", re.ASCII)
#: what a bare value's ``(`` goes on with, glued to it: a password's rest (``(vR3)!``)
_GLUED: Final = lazy(r"\([^\s\"'`\\,;]*")


def glued_end(name: str, match: re.Match[str], end: int) -> int:
    """Where a bare value of an assignment or a flag ends that a ``(`` went on, glued,
    when no call is made (:func:`_a_call`): ``DB_PASSWORD=Xk9mQ2pL7(vR3)!`` was judged
    and redacted up to its ``(`` only, its rest sent; ``password=gR7(kP2mZ9qW4tY)``, its
    head too short for a password, went whole. The value is judged and redacted whole.
    A dotenv line's value goes on to the line's end over words (:func:`_dotenv_end`)."""
    if name in ("vault_field", "printed"):
        return vault_value_end(match, end)
    start = match.start(match.lastgroup or 0)
    if name == "assign" and match.lastgroup == name and match.group("sep") == "=":
        end = _dotenv_end(match, end)
    if name not in ("assign", "flag") or match.lastgroup != name \
            or not match.string.startswith("(", end) \
            or _a_call(match.string, match.string[start:end], end):
        return end
    glued = _GLUED.match(match.string, end)
    return end if glued is None else glued.end()
#: a heading: one capitalised word (``Credentials:``, ``Password:``), prose's, not a key's
_HEADING: Final = lazy(r"[A-Z][a-z]+")


def _between_strings(match: re.Match[str]) -> bool:
    """Whether an assignment's quoted value (of words) is what lies between two strings:
    its name opens a quoted string (``"password:"``, a prompt Expect waits for), its
    separator holds no quote closing the name, and the quote after it is that string's
    close, so the value read (``; send ``) is code between it and the next string: code
    there starts with an operator (``;``, ``)``, ``+``) or ends before the next string's
    opening quote with a space. Words from a letter to a quote glued to the last one
    (``"password: "correct horse battery staple"``, a label then a passphrase) are the
    phrase quoted, judged as one (it went out in clear)."""
    text, sep = match.string, match.group("sep")
    value = match.group(match.lastgroup or 0)
    if value[:1].isalnum() and not value[-1:].isspace():
        return False
    opening = _name_start(text, match.start()) - 1
    value_at = match.start("sep") + len(sep)
    return opening >= 0 and text[opening] in "\"'" and value_at < len(text) \
        and text[value_at] == text[opening] and not any(q in sep for q in "\"'`")


def _a_yaml_value(match: re.Match[str]) -> bool:
    """Whether an assignment whose value stands on the line after a bare key's ``:``
    (``password:⏎    …``) is that key's YAML value: the key starts its line and is no
    heading (``Credentials:⏎  …`` introduces prose, as ruled), and the value is indented
    past the key and alone on its line (a comment aside). Any other assignment is."""
    text, sep = match.string, match.group("sep")
    if "\n" not in sep or not sep.lstrip(" \t").startswith(":"):
        return True
    key = _name_start(text, match.start())
    if _HEADING.fullmatch(text, key, match.start("sep")) is not None \
            or not _starts_its_line(text, match.start()):
        return False
    key_column = key - (text.rfind("\n", 0, key) + 1)  # past its indent and a list's "- "
    value_at = match.start("sep") + len(sep)
    value_column = value_at - (text.rfind("\n", 0, value_at) + 1)
    return value_column > key_column and _LINE_END.match(text, match.end()) is not None


#: the rest of a dotenv line after its value's first word: words of letters to its end
_DOTENV_WORDS: Final = lazy(r"(?:[ \t]+[A-Za-z]+){1,64}(?=[ \t]*(?:\r?\n|\Z))", re.ASCII)


def _dotenv_end(match: re.Match[str], end: int) -> int:
    """Where the unquoted value of a ``NAME=value`` line ends when words follow it to the
    line's end (``DB_PASSWORD=correct horse battery staple``): a .env reader takes the
    line's rest as the value, so the passphrase goes whole, where its first word alone
    went. A command after an environment prefix (``PGPASSWORD=… psql -h db``: a flag, a
    path), a comment, and a value in a sentence (the name not starting its line) end it
    where they did; so does a command of words after a generated value, the command's
    environment (``DB_PASSWORD=Xk9vT2pQ7mLwR4sZ rails s``: a token is whole in itself, and
    ``rails s`` was redacted with it), while a passphrase's words after a word of one
    (``SMTP_PASS=Tr0ub4dor horse staple``) go with it."""
    rest = _DOTENV_WORDS.match(match.string, end)
    if rest is None or not _starts_its_line(match.string, match.start()) \
            or generated("", match.string[match.start(match.lastgroup or 0):end]):
        return end
    return rest.end()


#: a space in a quoted value: a phrase, not a word
_SPACE: Final = lazy(r"\s")
#: a template or placeholder inside a phrase (``"{{ vault.pw }}"``, ``"<your key here>"``)
_TEMPLATE: Final = lazy(r"\{\{|\$\{|\$\(|%\(|<[^<>]*>")
#: a template's expression whole, spaced as its engines write it (Helm, Jinja, Actions)
_HELD_TEMPLATE: Final = lazy(r"\{\{[ \t-][^{}]*[ \t-]\}\}")


def _a_quoted_phrase_secret(value: str) -> bool:
    """A quoted value with spaces after a credential's name (``password = "correct horse
    battery staple"``) is its value whole: a passphrase cannot be told from prose, so only
    what plainly names no secret stays: no word of letters or digits (a separator,
    ``token = ", ".join(…)``; one such word is judged as a value is), a reference or
    template (``"${DB_PASSWORD}"``, ``"{{ secrets.deploy }}"``, ``"<your key here>"``), a
    placeholder (``"TODO: fill me in"``), a mask, or a label ending in a credential's name
    (``"Access token"``)."""
    if _HELD_TEMPLATE.search(value) is not None:
        # before a lone word's judgement: ``"{{ .Values.db.password }}"``, a Helm chart's
        # value (a container's env, beside ``- name: DB_PASSWORD``), was one word of
        # letters and symbols, so redacted
        return False
    if translated_label(value):  # ``"Mot de passe"``: an i18n file's label, as "Password"
        return False
    words = [w for w in value.split() if any(c.isalnum() for c in w)]
    if len(words) < 2:  # one word among symbols (``"hunter2 !!"``) is judged as a word
        return bool(words) and _looks_like_secret(words[0], data=True, alone=False)
    if is_reference(words[0]) or _TEMPLATE.search(value) is not None \
            or words[0].lower().strip(".:!?,;-") in _PLACEHOLDERS:
        return False
    return not words[-1].lower().strip(".:!?").endswith(_NAME_ENDS)


def _name_start(text: str, at: int) -> int:
    """Where the name holding position ``at`` starts (``DB_PASS``, ``my.api_key``)."""
    while at and (text[at - 1].isalnum() or text[at - 1] in "_.-"):
        at -= 1
    return at


def _starts_its_line(text: str, at: int) -> bool:
    """Whether the name ending at ``at``… starts its line (after spaces, a list's ``-``,
    ``*`` or ``+``, a diff's ``+`` or ``-``, a quotation's ``>``, ``export``): a key-value
    line (``  DB_PASSWORD: postgres``, ``+POSTGRES_PASSWORD: postgres`` in a diff, which
    went out in clear), not prose (``rotate the token: done``)."""
    at = _name_start(text, at)
    # the line's start is looked for this far back only: with a comment after each value
    # (``token: abcd #…``) every name on a long line read back to its start, a square of
    # the line (0.4 MB: 4 s); a longer head is no indent, list mark or ``export`` anyway
    line = text.rfind("\n", max(0, at - _LINE_HEAD_MAX), at)
    if line == -1 and at > _LINE_HEAD_MAX:
        return False
    return text[line + 1:at].strip() in ("", "-", "*", "+", ">", "export")


#: how far before a name its line's start is looked for (an indent, a list's mark)
_LINE_HEAD_MAX: Final = 256


def _a_word_named_pass(match: re.Match[str]) -> bool:
    """Whether the assignment's name ends in "pass" and is not an upper-case variable:
    ``pass``, ``dbPass``, ``first_pass`` may hold a word that is no password (a test
    result, a mode); ``DB_PASS``, ``SMTP_PASS`` hold the password whatever it is."""
    head = match.group(0)[:5].lower()
    if not head.startswith("pass") or head[4:] in ("w", "p"):  # password, passphrase
        return False
    text, at = match.string, match.start()
    name = text[_name_start(text, at):at + 4]
    return not (name.isupper() and len(name) > len("pass"))


def _a_login_name(match: re.Match[str]) -> bool:
    """Whether the assignment's name is for what a login is given rather than a secret
    itself (``DB_CREDENTIALS``, ``REGISTRY_AUTH``): its value may as well be a word that
    says how (``credentials: 'include'``, ``proxy_auth: ntlm``), so one goes only when
    it looks like a secret without its place saying so."""
    head = match.group(0)[:4].lower()
    return head == "auth" or head == "cred"


#: a .pgpass line's host that is plainly one: any (``*``), an address, a dotted name or
#: ``localhost`` (``user`` or ``cache`` is as likely a cache key's namespace)
_PGPASS_HOST: Final = lazy(r"\*|\[|localhost:|[\w-]*\.", re.ASCII | re.IGNORECASE)


def _a_pgpass_line(match: re.Match[str]) -> bool:
    """Whether a ``pgpass`` match is a .pgpass line rather than a cache key of five fields
    (``user:12345:session:cart:a8f3…`` in a sentence): its host is plainly one, it starts
    its line (a file's content; a list's item or a quotation's line too, whose password
    went out in clear), or the text says pgpass."""
    text, at = match.string, match.start()
    return _PGPASS_HOST.match(text, at) is not None \
        or _starts_its_line(text, at) or _says_pgpass(text)


@lru_cache(maxsize=4)
def _says_pgpass(text: str) -> bool:
    """Whether ``text`` names pgpass, in any case: asked once per text (a string's hash is
    kept by the string), not once per cache key in it (a sentence of them lowered the
    whole text for each, a square of it)."""
    return "pgpass" in ascii_lower(text)


def _decodes(text: str, check: Callable[[str], bool]) -> bool:
    """Whether ``text`` is base64 of ASCII that passes ``check``."""
    plain = base64_bytes(text + "=" * (-len(text) % 4))
    if not plain:
        return False
    try:
        return check(plain.decode("ascii"))
    except UnicodeDecodeError:  # not ASCII
        return False


_USER_PARTS: Final = lazy(r"[_.~+/=-]")
#: the scheme and user of a URL's authority, up to a position (``https://x-access-``)
_USERINFO: Final = lazy(r":(?://|\\/\\/)[^\s:/@?#\[\]\"'<>]*\Z", re.ASCII)
#: what may follow a value alone on its line: spaces and a comment, whose start is enough
#: (read to the end of its line for each value on it, ``token: abcd #token: abcd #…`` cost
#: a square of the line, 0.4 MB 4 s; read only so far, 256, a value before a longer
#: comment, ``POSTGRES_PASSWORD: postgres  # …``, was no longer alone, and went out)
_LINE_END: Final = lazy(r"[ \t]*(?:#|\r?\n|\Z)")
