"""The cheap reading ``waymarks.core.secrets`` does before any rule: which characters it
reads (:func:`visible`), and whether any rule of :mod:`waymarks.core.secret_rules` could
match at all (:func:`might_contain_secret`).

Speed: ``redact`` runs on every rendered item of every model request, and nearly all of
them hold no credential. ``might_contain_secret`` decides most texts with substring
searches behind single-character guards (one expression of all rules, tried at every
position, cost about 200 µs per 200 characters); past it, the rule table's guards and
needles choose the rules a text could trigger.

What must stay true: no false negatives. ``might_contain_secret`` is False only when
every rule's needles (or its hint) are missing, and only ``SHORT_RULES`` match in fewer
than ``_SHORT_RULES_ONLY`` characters: a new rule in the table needs its literals here
too; tests/privacy/test_secrets.py checks every rule's expression against this test
(unit cases and a property test).

Pure: ASCII substring searches and the rules' own expressions, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_clauses import FROM_TO_VALUE, FROM_VALUE
from waymarks.core.secret_logins import might_log_in
from waymarks.core.secret_more import SHORT as MORE_SHORT
from waymarks.core.secret_more import might_hold as might_hold_more
from waymarks.core.secret_prose import _matched_at_needles, might_name_one, might_state_one
from waymarks.core.secret_tokens import (
    DASH_FLAG,
    DISCORD,
    GITHUB,
    GITLAB,
    MAILCHIMP,
    MAILGUN,
    PEM_LINES,
    PGPASS_HINT,
    PRINTED_NEEDLES,
    SECRET_PREFIX,
    alone_pair,
    named_aws_key,
)

#: no rule matches in fewer characters ("://:pw@", "pwd=abcd")
_SHORTEST: Final = 6
#: in fewer characters only the rules in SHORT_RULES match (a test checks every rule's
#: shortest match)
_SHORT_RULES_ONLY: Final = 20
SHORT_RULES: Final = frozenset({"stripe", "slack", "bearer", "basic", "cookie", "url",
                                "url_user", "flag",
                                "assign", "yaml_key", "name_value", "short_flag", "user_flag",
                                "login_flag", "htpasswd", "php_define", "dash_flag", "curl_cookie",
                                "sql_password", "redis_auth", "redis_cli_auth", "rabbitmqctl",
                                "py_auth", "pgbouncer", "redis_acl", "env_list", "env_block",
                                "chpasswd", "oracle_login", "wifi_psk", "lftp_user",
                                "admin_password", "stdin_login", "query_key", "env_export",
                                "config_named",
                                "smb_user", "stdin_fed", "expect_send", "hash_input", "env_line",
                                "add_mask", "printed", "prompt_typed", "passphrase_line", "go_dsn",
                                "setx",
                                "odbc_braced",
                                "xml_value",
                                "xml_pair",
                                "secret_set",
                                "store_pairs",
                                "auth_b64", "pgpass", "prose", "prose_cjk", "prose_bare",
                                "prose_named", "prose_far", "prose_cjk_words", "prose_from",
                                "prose_from_to", "login_pair",
                                "password_set",
                                "kube_secret",
                                "kube_secret_flow", "kube_secret_json", "kube_string_data",
                                "kube_string_data_json"}) | MORE_SHORT


#: the characters that render as nothing: Unicode's Default_Ignorable_Code_Point (15.1:
#: soft hyphen, the combining grapheme joiner, the Arabic letter mark, Hangul fillers,
#: Mongolian and other variation selectors, zero-width space and joiners, directional
#: marks, overrides and isolates, the word joiner, the byte-order mark, tags), and the C0
#: and C1 controls that do not end a line (NUL, BEL, backspace, ESC, DEL, the 8-bit CSI:
#: a line break or a tab still ends a token). One inside a token would hide it from every
#: rule, so the rules read the text without them (before, only the format characters
#: among them were: ``ghp_…\ufe0f…`` or ``AKIA…\u061c…`` was stored, and sent to remote
#: models in clear; then ``ghp_…\x1b…``, whose quoted ``\u001b`` a model reads through)
INVISIBLE: Final = (
    "[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f"
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")
_INVISIBLE: Final = lazy(INVISIBLE)
#: the ASCII ones among them (searched alone in ASCII text: a third of the cost)
_ASCII_INVISIBLE: Final = lazy("[\x00-\x08\x0e-\x1b\x1f\x7f]")


class Kept:
    """Where in a text each character :func:`visible` kept was: ``kept[i]`` is the place
    of the ``i``-th. Only the removed characters are stored (one number each), not a
    number for every character kept: an 8 MB log with one ESC in it (ANSI colours) took
    some 300 MB and five times the CPU to redact."""

    __slots__ = ("_shifts",)

    def __init__(self, removed: list[int]) -> None:
        # the k-th removed character (0-based) stands after ``removed[k] - k`` kept ones
        self._shifts = [at - k for k, at in enumerate(removed)]

    def __getitem__(self, i: int) -> int:
        from bisect import bisect_right  # (not at import: a fresh recall loads no bisect)

        return i + bisect_right(self._shifts, i)


def visible(text: str) -> tuple[str, Kept | None]:
    """``text`` without its invisible characters (format characters and controls that do
    not end a line), and the place in ``text`` of each character kept (``None`` when there
    was nothing to remove: the same text)."""
    if text.isascii():
        if text.isprintable() or _ASCII_INVISIBLE.search(text) is None:
            return text, None
    elif _INVISIBLE.search(text) is None:
        return text, None
    removed = [at for found in _INVISIBLE.finditer(text)
               for at in range(found.start(), found.end())]
    return _INVISIBLE.sub("", text), Kept(removed)


def might_contain_secret(text: str) -> bool:
    """A cheap test with no false negatives: False means no rule can match ``text``.

    Every literal a rule needs is looked for, most behind a single character the literal
    holds: a character search costs a fraction of a substring search, and typical prose
    lacks most of these characters (``_``, ``~``, ``J``, ``K``, ``G``, ``B``, …). Every
    check costs on clean text (all of them run), so a new one needs a guard. Text too
    short for all but a few rules skips the others. Invisible characters (format
    characters, controls that end no line) are not read (:func:`visible`), and are read
    as a space too, as ``find_secrets`` reads them: two AWS keys an ESC parted, no more
    standing alone once it was removed, passed no check, and a provider's payload
    (whose walk asks this first) sent both while ``redact`` took them."""
    shown, where = visible(text)
    return might_hold_visible(shown) or (
        where is not None and might_hold_visible(_INVISIBLE.sub(" ", text)))


def might_hold_visible(text: str) -> bool:
    """:func:`might_contain_secret` of a text :func:`visible` returned as it was (a caller
    that has just checked need not search it for invisible characters again)."""
    if len(text) < _SHORTEST:
        return False
    dash, colon, equals = "-" in text, ":" in text, "=" in text
    if not (colon and equals) and not text.isascii():  # an input method's ``：`` and ``＝``
        colon, equals = colon or "\uff1a" in text, equals or "\uff1d" in text
    if len(text) < _SHORT_RULES_ONLY:
        if ("_" in text and "k_" in text
                and ("k_live_" in text or "k_test_" in text or "k_prod_" in text)) \
                or ("x" in text and ("xox" in text or "xapp-" in text)):
            return True
        return _in_context(text, dash, colon, equals)
    if dash and (
            "sk-" in text or "key-" in text or "KEY-" in text
            or ("x" in text and ("xox" in text or "xapp-" in text))
            or ("gl" in text and GITLAB.search(text) is not None)
            or ("-us" in text and MAILCHIMP.search(text) is not None)
            or MAILGUN.search(text) is not None
            or ("q" in text and "sq0" in text) or "pul-" in text):
        return True
    if "_" in text and (
            ("k_" in text and ("k_live_" in text or "k_test_" in text or "k_prod_" in text))
            or "whsec_" in text or "npm_" in text or "hf_" in text or "shp" in text
            or "gsk_" in text
            or "_v1_" in text or "lin_api_" in text or "sntry" in text
            or ("secret_" in text and SECRET_PREFIX.search(text) is not None)  # (sb_secret_)
            or "ntn_" in text or "glsa_" in text or "glc_" in text
            or "sbp_" in text or "pscale_" in text or "dckr_" in text
            or GITHUB.search(text) is not None):
        return True
    # "eyJ" also stands in a Mapbox secret token ("sk.eyJ") and a Sentry org token
    if ("J" in text and ("eyJ" in text or "LS0tLS1CRUdJTi" in text)) \
            or ("~" in text and "Q~" in text) or ("9" in text and "ya29." in text) \
            or ("B" in text and "-----BEGIN" in text) or ("E" in text and "-----END" in text):
        return True
    if "A" in text and (("I" in text and ("IA" in text or "AIza" in text))
                        or ("C" in text and "ACCA" in text) or (dash and "-Ag" in text)
                        or ("3" in text and "ATATT3" in text) or "EAAA" in text
                        or ":APA91b" in text  # an FCM legacy server key
                        # a private key's DER body (every opening holds an "A")
                        or ("M" in text and ("MII" in text or "MIG" in text or "MHcC" in text
                                             or "MC4C" in text)) or "b3Bl" in text):
        return True
    if ("K" in text and ("SK" in text or "HRKU-" in text or "AGE-SECRET-KEY-1" in text
                         or "PMAK-" in text or "NRAK-" in text)) \
            or ("II-" in text and "NRII-" in text) \
            or ("G" in text and ("SG." in text or "GOCSPX-" in text or "GR1348941" in text)):
        return True
    if ("M" in text or "N" in text or "O" in text) and "." in text \
            and DISCORD.search(text) is not None:
        return True
    if colon and (":AA" in text or ("://" in text and (
            "hook" in text or "Hook" in text or "HOOK" in text or "Webhook/" in text
            or "ifttt" in text or "ncoming" in text or "NCOMING" in text))):
        return True  # a Telegram bot token, a webhook (Slack, Discord, Teams, IFTTT, any)
    if len(text) >= 195 and text.count("\n") >= 2 and PEM_LINES.search(text) is not None:
        return True  # a private key's middle lines, no armour (three of 64 at least)
    if "dp." in text and (".pt." in text or ".st." in text or ".ct." in text
                          or ".sa." in text or ".scim." in text or ".audit." in text):
        return True  # a Doppler token
    if "-field=" in text and "vault" in text:
        return True  # what ``vault kv get -field=password …`` printed on its next line
    if colon and '=="' in text and '"value"' in text:
        return True  # an Azure storage key, ``"value": "…=="`` (az storage account keys)
    size = len(text)  # a Vault token is 94+ characters, a Databricks token 36
    if (size >= 94 and "hv" in text) \
            or (size >= 36 and "dapi" in text):
        return True
    return _in_context(text, dash, colon, equals)


def _in_context(text: str, dash: bool, colon: bool, equals: bool) -> bool:
    """The literals of the rules that match by position: a URL's password, Bearer/Basic,
    an AWS secret key named on its line, a command's password flag (:func:`_password_flag`),
    a .netrc entry, a flag, an assignment (``Authorization: token …`` among them: it holds
    "token" and a separator), base64 under an ``auth`` key, Azure's ``sig=``."""
    if colon and "@" in text and ("://" in text or ":\\/\\/" in text or (
            "(" in text and ("@tcp" in text or "@udp(" in text or "@unix(" in text))):
        return True  # a URL's password, Go's MySQL DSN's (``USER:PASSWORD@tcp(…)``)
    folded = text.casefold()  # names and Bearer/Basic match case-insensitively
    if "bearer" in folded or "basic" in folded or (colon and "cookie" in folded) \
            or ((colon or equals) and "authorization" in folded):
        return True
    if ("/" in text or "+" in text) and len(text) >= 40 and (
            "key" in folded or "secret" in folded or "aws" in folded
            or "credential" in folded) and named_aws_key(text):
        return True  # a random-looking 40-character value named an AWS secret key
    if dash and (" -" in text or "\t-" in text) and _password_flag(text):
        return True
    named_pass = "pass" in folded  # password, passphrase, DB_PASS
    if might_hold_more(text):
        return True  # a shape in a module of its own (a lock's code, …): secret_more
    if might_state_one(text, folded, colon, equals) or might_log_in(text, folded) or (
            " from " in folded and " to" in folded
            and _matched_at_needles((FROM_VALUE, FROM_TO_VALUE), text)):
        return True  # "the staging password is …", "数据库密码是 …", "admin/admin123"
    if colon and text.count(":") >= 4 and PGPASS_HINT.search(text) is not None:
        return True  # a .pgpass line
    if ("|" in text or "<<" in text) \
            and ("vercel" in text or "wrangler" in text or ("docker" in text and "secret" in text)):
        return True  # the secret ``vercel env add`` reads on its standard input
    if ("|" in text and (("sudo" in text and ("S" in text or "--stdin" in text))
                         or "passwd" in text)) or "--with-token" in text \
            or ("<<" in text and "passwd" in text):
        # the password ``echo … | sudo -S CMD`` gives sudo, ``| passwd --stdin USER``,
        # ``passwd USER <<< $'…\n…'``, the token ``gh auth login --with-token`` reads: no name
        return True
    if "send" in text and ("\\" in text or "line(" in text):
        return True  # what Expect types, ``send "…\\r"``, and pexpect's ``sendline('…')``
    if "(" in text and ("'" in text or '"' in text) and (
            "hash" in folded or "bcrypt" in folded or "checkpw" in folded
            or (named_pass and ("password(" in folded or "encoder" in folded))):
        return True  # a password hashed, ``Hash::make('…')``, ``bcrypt('…')``: no name
    if "base64" in text and ("-d" in text or "-D" in text or "--decode" in text):
        return True  # ``echo BASE64 | base64 -d``: a login written down encoded, no name
    if equals and (("export" in text and _EXPORT.search(text) is not None)
                   or "declare -x" in text or "PATH=" in text or "HOME=" in text
                   or "HOSTNAME=" in text):
        return True  # a shell's environment, ``export SESSION_X=…``, ``env``'s dump: no name
    if "_" in text and "rabbitmqctl" in text:
        return True  # ``rabbitmqctl add_user USER PASSWORD``: no separator
    if "/" in text and (("q" in folded and ("sqlplus" in folded or "sqlldr" in folded))
                        or ("@" in text and ("conn" in folded or "jdbc:oracle" in folded
                                             or "sql" in folded))
                        or (("p" in folded and ("exp" in folded or "imp" in folded))
                            or "rman" in folded or "dgmgrl" in folded)):
        # an Oracle login, ``sqlplus USER/PASSWORD@DB``, ``exp USER/PASSWORD file=…``,
        # tkprof's ``explain=USER/PASSWORD``: no name
        return True
    if (equals and ("config:" in text or "railway" in text or "setenv" in text
                    or "env-vars" in text or "appsettings" in text or "env set" in text
                    or ("kubectl" in text and "env" in text) or ("-e" in text and (
                        "docker" in text or "podman" in text or "nerdctl" in text
                        or "kubectl" in text)))) \
            or (colon and "env:set" in text) \
            or ("doppler" in text and "secrets" in text):
        return True  # ``heroku config:set DB=…``, ``docker run -e DB=…``: names that say nothing
    if "vault" in text and "login" in text:
        return True  # the token given to ``vault login``
    if equals and "={" in text and ("pwd" in folded or named_pass):
        return True  # an ODBC string's password in braces, ``PWD={…};``
    if ("plaintext" in folded and "securestring" in folded) or ("set" in folded and (
            "setx" in folded or "setenvironmentvariable" in folded)):
        return True  # PowerShell's ``ConvertTo-SecureString '…' -AsPlainText``, cmd's setx
    if "\n" in text and ("read" in text or "show" in text or "get" in text
                          or "secret" in text or "find-" in text or "auth:" in text
                          or "openssl" in text) \
            and any(command in text for command in PRINTED_NEEDLES):
        # what ``op read op://…``, ``pass show …`` printed on its next line (every command
        # holds one of the words asked first: the twenty cost code 10 us a text)
        return True
    if named_pass and (" is" in folded or " was" in folded) and (
            "phrase" in folded or _spaced_value(text)):
        # "the passphrase is correct horse battery staple", 'the password is "four words
        # here"': its words, no separator
        return True
    if named_pass and (("nmcli" in text or "wpa_passphrase" in text)
                       or (colon and "chpasswd" in text) or "mosquitto_passwd" in text):
        # ``nmcli … password …``, ``wpa_passphrase SSID …``, ``echo 'USER:PASSWORD' |
        # chpasswd``, ``mosquitto_passwd -b FILE USER PASSWORD``: no separator, or no name
        return True
    if (named_pass and ("openssl" in text or "grafana" in text)) or "drush" in text \
            or ("mc" in folded and ("alias" in folded or "host" in folded)) \
            or ("login" in folded and "cargo" in folded) or ("ngrok" in folded):
        # ``openssl passwd -6 PASSWORD``, a password reset's, ``mc alias set A URL KEY
        # SECRET``, ``cargo login TOKEN``, ``ngrok authtoken TOKEN``: no separator
        return True
    if "user" in folded and ((named_pass and "ipmitool" in text) or "net" in folded):
        # ``ipmitool user set password ID PASSWORD``, ``net user NAME PASSWORD /add``: no
        # separator, no flag
        return True
    if named_pass and "password" in text and ("machine" in text or "default" in text):
        return True  # a .netrc entry
    if "config" in text and "set" in text and ("auth" in folded or "_password" in folded):
        return True  # a package manager's ``config set KEY VALUE``, no separator
    if dash and "http-basic" in text:
        return True  # Poetry's ``config http-basic.REPO USER PASSWORD``
    if ("ssm" in text and "SecureString" in text) \
            or ("secret" in text and "set" in text and "gh" in text):
        # ``aws ssm put-parameter … SecureString``, ``gh secret set … -b…`` (its words
        # parted by any spaces or tabs, as the rule reads them: "secret set" alone let
        # ``gh  secret\tset NAME -b VALUE`` by, sent in clear)
        return True
    if "</" in text and (named_pass or "token" in folded or "secret" in folded
                         or "key" in folded or "credential" in folded or "auth" in folded
                         or "pwd" in folded):
        # an XML element named for a credential (``<password>…</password>``, ``<DbPwd>``:
        # with no separator in the text, a pwd one went out in clear)
        return True
    if "identified" in folded or (named_pass and (
            ("'" in text and ("create" in folded or "alter" in folded or "set" in folded))
            or (("create" in folded or "alter" in folded)
                and ("user" in folded or "role" in folded)))):
        # SQL's ``CREATE USER … PASSWORD '…'``, ``IDENTIFIED BY …``; the rule takes a bare
        # word after PASSWORD too ("create user app with password …", as a prompt says it)
        return True
    if ">" in text and ("setuser" in folded or ("user " in text and (
            " on " in text or " off " in text))):
        return True  # Redis's ``ACL SETUSER USER on >PASSWORD``, an ACL file's ``user USER
        # on …``: no separator
    if '"' in text and ('" "' in text or '"\t"' in text):
        return True  # a PgBouncer userlist.txt line, ``"USER" "PASSWORD"``: no separator
    if "(" in text and "," in text and ("define" in folded or "Auth(" in text or (
            "auth" in folded and _auth_key(folded))):
        # a PHP constant, ``define('DB_PASSWORD', '…')``, and Python's ``auth=(USER, …)``,
        # ``HTTPBasicAuth(USER, …)``: no separator before the value
        return True
    if not (colon or equals or (dash and "--" in text)):
        # what holds a name then a space only; with a separator, the words below say it
        # (each of these holds one: read here, every text paid for them)
        return (dash and (named_pass or "token" in folded or "secret" in folded
                          or "key" in folded) and DASH_FLAG.search(text) is not None) \
            or (named_pass and ("requirepass" in folded or "insecure-password" in folded)) \
            or ("auth" in folded and _auth_key(folded)) \
            or ("set" in text and ("configure" in text or "user-secrets" in text
                                   or "config" in text)) \
            or ("k" in folded and "psk" in folded and "nmcli" in text) \
            or might_name_one(text, folded)  # "use token Xk9v… for staging": no separator
    return named_pass \
        or (equals and alone_pair(text)) \
        or ("k" in folded and ("key" in folded or "token" in folded
                               or ((colon or equals) and "psk" in folded))) \
        or (colon and '"' in text and "sensitive" in text) \
        or ("w" in folded and "pwd" in folded) or "secret" in folded \
        or "credential" in folded \
        or (colon and ("stringdata" in folded or "add-mask" in text)) \
        or (colon and "apiVersion" in text and "data:" in text) \
        or (colon and (('"' in text and '"Env"' in text)
                       or ("\n" in text and "nvironment:" in text))) \
        or (equals and ("sig=" in text or "Signature=" in text or "ignature=" in folded
                        or "digest" in folded)) \
        or (colon and ('"sig"' in folded or '"signature"' in folded)) \
        or ("auth" in folded and _auth_key(folded)) \
        or (("pagerduty" in folded or "datadog" in folded) and might_name_one(text, folded))


def _spaced_value(text: str) -> bool:
    """Whether the passphrase rule's expression matches at a ``pass`` in ``text`` (its
    module, and the value judge it imports, are loaded only for such a text)."""
    from waymarks.core.secret_passphrases import PASSPHRASE_LINE

    return _matched_at_needles((PASSPHRASE_LINE,), text)


#: a shell's ``export NAME=VALUE`` (``export default …`` and ``export const`` are code)
_EXPORT: Final = lazy(r"(?<![\w.-])export[ \t]+[A-Za-z_]\w*=", re.ASCII)


def _password_flag(text: str) -> bool:
    """A command whose password follows a flag (every such rule holds ``[ \\t]-``):
    MySQL's ``-pPASSWORD``, curl's ``-u USER:PASSWORD``, smbclient's ``-U USER%PASSWORD``,
    the flags of ``_LOGIN_FLAGS`` (sqlcmd's ``-P``, mongosh's ``-p`` among them)."""
    flag_p, flag_big_p, curl = "-p" in text, "-P" in text, "curl" in text
    return (flag_p and ("mysql" in text or "mariadb" in text or "login" in text
                        or "sshpass" in text or "7z" in text)) \
        or ((curl or "client" in text) and ("-u" in text or "-U" in text)) \
        or (("-a" in text or "--auth" in text)
            and ("http" in text or "xh" in text or "jenkins-cli" in text)) \
        or (curl and ("-b" in text or "--cookie" in text)) \
        or ("openssl" in text and (flag_p or "-k" in text or "-K" in text)) \
        or (("-a" in text or "--pass" in text) and "redis-cli" in text) \
        or (flag_big_p and ("zip" in text or "sqlcmd" in text or "bcp" in text
                            or "ipmitool" in text or "mosquitto_" in text)) \
        or (flag_p and "influx" in text) \
        or ("ldap" in text and "-w" in text) \
        or ((flag_big_p or "-N" in text) and "ssh-keygen" in text) \
        or ("," in text and ("lftp" in text or "open -u" in text)) \
        or (flag_p and ("mongo" in text or "rabbitmqadmin" in text)) or "htpasswd" in text \
        or (flag_p and ("twine" in text or "poetry" in text)) \
        or ("-t" in text and "doctl" in text)


def _auth_key(folded: str) -> bool:
    """Whether "auth" stands before what may lead to its separator (``"auth": "…"``,
    ``_auth=…``), the only places ``auth_b64`` matches; ``Author:`` is no such key."""
    at = folded.find("auth")
    while at != -1:
        if folded[at + 4:at + 5] in _AUTH_NEXT or folded.startswith(_AUTH2, at + 4):
            return True
        at = folded.find("auth", at + 4)
    return False


#: what may follow "auth" in an ``auth_b64`` match
_AUTH_NEXT: Final = frozenset("\\\"' \t\r\n:=,")  # (a name ends its line or item)
#: Redis's ``MIGRATE … AUTH2 USER PASSWORD``: "auth", a "2", then a space
_AUTH2: Final = ("2 ", "2\t")
