"""The credential shapes ``waymarks.core.secrets`` recognises: the rules (their checks
after a match: :mod:`waymarks.core.secret_checks`).

Each rule names a *kind* (the ``<kind>`` of ``[REDACTED:<kind>]``) and matches the span
to replace. Two families:

- tokens: a credential recognisable on its own by a vendor prefix or a fixed structure,
  and an AWS secret access key near a key ID or named on its line
  (:mod:`waymarks.core.secret_tokens`, which describes them);
- wrappers: a value that is a credential because of where it stands: the token after
  ``Bearer`` (on the same line, or alone on the next: ``Authorization: Bearer⏎TOKEN``)
  or ``Basic`` or ``Authorization: token``, base64 ``user:password`` under an ``auth`` key
  (Docker's config.json, .npmrc's ``_auth``), the password of a URL
  (``postgres://admin:pw@host``) or of a .netrc entry (``machine H login U password P``),
  a password glued to a MySQL client's ``-p``, after curl's ``-u USER:`` or smbclient's
  ``-U USER%``, after the password flag of a registry login, ``sshpass``, redis-cli,
  openssl, zip, 7-Zip or an OpenLDAP client (:mod:`waymarks.core.secret_commands`), the value of
  a ``password=``/``api_key:``/``DB_PASS=``/``"secret": "…"`` assignment or a
  ``--token VALUE`` flag, and a value stated after a credential's noun in a sentence
  ("the staging db password is Tr0ub4dor&3", "数据库密码是 Passw0rd123";
  :mod:`waymarks.core.secret_prose`, judged by :mod:`waymarks.core.secret_values`, where
  the assignments' values are judged too), and the base64 ``data:`` of a Kubernetes
  Secret manifest (:mod:`waymarks.core.secret_manifest`).
- invisible format characters are not read (:func:`waymarks.core.secret_pretest.visible`):
  ``find_secrets`` runs the rules on the text without them and maps the spans back.

Speed: a text first passes the pre-test of :mod:`waymarks.core.secret_pretest`. Past it,
rules are grouped by a *guard* character every match holds, and each runs only when one
of its *needles* (the literals it cannot match without) is in the text: a text pays for
the rules it could trigger, not for all 58. Rules whose needle is a common word (``key``,
``token``, ``bearer``) are *anchored*: their expression is tried only where the needle
stands.

What must stay true:

- no false negatives: a rule's expression never matches a text lacking its guard, all
  its needles or its hint, and ``might_contain_secret`` is False only when every rule's
  needles are missing; only ``SHORT_RULES`` match in fewer than 20 characters. A new
  rule needs its needles here and in the pre-test (:mod:`waymarks.core.secret_pretest`);
  tests/privacy/test_secrets.py checks all of this against every rule's expression
  (unit cases and a property test).
- a replacement never creates a new match: every span ends where its shape ends (fixed
  lengths are followed by a non-token character, open-ended runs are greedy), so
  redaction is idempotent.
- checks after a match only ever decline (``accepts``, :mod:`waymarks.core.secret_checks`).

Pure: ASCII regular expressions and stdlib decoding only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_admin import ADMIN_RULES
from waymarks.core.secret_clauses import FAR_COLON, FROM_TO_VALUE, FROM_VALUE
from waymarks.core.secret_commands import _QUOTED_OR_BARE, COMMAND_RULES
from waymarks.core.secret_connections import CONNECTION_RULES
from waymarks.core.secret_environments import ENVIRONMENT_RULES
from waymarks.core.secret_logins import LOGIN_PAIR, PASSWORD_SET
from waymarks.core.secret_manifest import (
    KUBE_SECRET,
    KUBE_SECRET_CUT,
    KUBE_SECRET_FLOW,
    KUBE_SECRET_JSON,
    KUBE_STRING_DATA,
    KUBE_STRING_DATA_JSON,
)
from waymarks.core.secret_markup import markup_rules
from waymarks.core.secret_more import RULES as MORE_RULES
from waymarks.core.secret_passphrases import PASSPHRASE_LINE
from waymarks.core.secret_printed import PRINTED
from waymarks.core.secret_prompts import PROMPT_TYPED
from waymarks.core.secret_prose import (
    PROSE,
    PROSE_BARE,
    PROSE_CJK,
    PROSE_CJK_WORDS,
    PROSE_NAMED,
)
from waymarks.core.secret_stdin import STDIN_RULES
from waymarks.core.secret_tokens import (
    DASH_FLAG_PATTERN,
    GAP,
    PGPASS_HINT,
    TOKENS,
    WIDE,
    Rule,
)
from waymarks.core.secret_webhooks import WEBHOOK_PATH, ZAPIER_HOOK
from waymarks.core.secret_windows import windows_rules

#: the value of an assignment or flag: quoted, or bare (not ending in a colon: ``if
#: password == expected:`` ends a statement there). A quoted value runs to its closing
#: quote on the same line, spaces and escapes included (``"correct horse battery
#: staple"``, ``"abc\"Xy9…"``); JSON holding JSON escapes its quotes (``\"…\"``), and its
#: value's own quotes and backslashes twice. A value starts with no space after its quote
#: (a quote followed by a space closes something else: ``grep 'token: ' src/``, Markdown's
#: ``GITHUB_TOKEN=` in the env``), and a single-quoted one does not run past a JSON
#: string's end (``", "`` or ``": "``: in JSON text a ``'`` and another further on are two
#: strings' letters). A backticked value is one word (with spaces it is code: a shell's
#: ``$(…)``, Markdown's code span). Unclosed on its line, a quoted value is what follows
#: the quote up to a space, a quote or a backslash.
#: ideographs, kana, hangul and the punctuation of Chinese and Japanese text: they end an
#: unquoted value as ``,`` or ``;`` does (``token：Xq9v…，别外传``), words, never part of one
#: (with ``：`` a separator, "token：请向管理员申请访问权限", ask the admin for it, was a
#: value of six characters and the note was refused); full-width letters and digits
#: (``Ｐａｓｓ１２３４``, an input method left in that mode) are a value's still
_CJK_WORDS: Final = (r"\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff"
                     r"\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f\uff5b-\uff9f")
#: a credential name *ends* with one of these (``DB_PASSWORD``, ``PGPASSWORD``,
#: ``clientSecret``, ``x-api-key``); ``key`` only after one of ``_KEY_PREFIXES``
_KEY_PREFIXES: Final = ("api", "access", "secret", "private", "signing", "encryption",
                        "master", "account", "auth",
                        # what the key signs or opens (``SESSION_KEY``, a CI's ``DEPLOY_KEY``,
                        # Laravel's ``APP_KEY``): their values went out in clear
                        "session", "deploy", "jwt", "app", "client", "license", "licence",
                        "hmac", "webhook", "service", "storage", "csrf",
                        # Azure API Management's ``Ocp-Apim-Subscription-Key`` header
                        "subscription")
#: a bare value does not run on through another credential's name and separator: in
#: ``token:token:…`` (a hostile or a broken line) each name's value ran 4,096 characters
#: through all the others, judged again for each, 14 s a MB; it stops there, and the
#: next name's value is judged on its own
_NO_NAME_BEFORE: Final = "".join(
    f"(?<!{name}[:=])" for name in (
        "token", "secret", "password", "passwort", "passwd", "passphrase", "pwd", "psk",
        "credentials", "credential", "[^a-z0-9]pass", "[a-z0-9][_.-]auth",
        *(f"{prefix}{joint}key" for prefix in _KEY_PREFIXES for joint in ("", "_", "-", "."))))
#: an assignment's bare value that is the next credential's name glued to its separator
#: (``secret=secret=…``): the value stops before that separator (:data:`_NO_NAME_BEFORE`)
#: and, words ending in a name, ``accepts`` declines it; refused by the expression, it
#: costs no judgment (100 KB of glued ``secret=`` judged 14,285 such values: 0.65 s)
_NAME_NEXT: Final = (r"(?![A-Za-z]++(?:[._-][A-Za-z]++)*+(?:" + "|".join(
    f"(?<={name})" for name in (
        "token", "secret", "passwort", "password", "passwd", "passphrase", "pwd", "psk",
        "credential", "credentials"))
    # (a key's names tried only after ``key``: each lookbehind costs every value's start)
    + r"|(?<=key)(?:" + "|".join(f"(?<={prefix}{joint}key)" for prefix in _KEY_PREFIXES
                                 for joint in ("", "_", "-", ".")) + "))[:=])")
_VALUE: Final = (
    r"(?!(?i:bearer|basic)[ \t])"
    r"(?:\"(?P<{name}_dq>(?:[^\s\"\\]|\\[^\n])(?:[^\"\\\n]|\\[^\n]){{0,4095}})\""
    r"|'(?P<{name}_sq>(?:[^\s'\\]|\\[^\n])"
    r"(?:[^'\\\n\"]|\"(?![ \t]*[,:}}\]])|\\[^\n]){{0,4095}})'"
    r"|`(?P<{name}_bq>[^\s`\\]{{1,4096}})`"
    r"|\\\"(?P<{name}_eq>(?:[^\"\\\n]|\\{{4}}|\\{{3}}\"|\\\\[^\\\"\n]){{1,4096}})\\\""
    r"|\\?[\"'](?P<{name}_q>[^\s\"'`\\" + WIDE + r"]{{4,4096}})"
    r"|(?P<{name}>(?:[^\s\"'`\\,;(){{}}\[\]<>:=" + WIDE + _CJK_WORDS + r"]|[:=]"
    + _NO_NAME_BEFORE + r"){{3,4095}}"
    r"(?:[^\s\"'`\\,;(){{}}\[\]<>:=" + WIDE + _CJK_WORDS + r"]|=" + _NO_NAME_BEFORE + ")"
    # a head of 1-3 before a glued ``(``: a call's name, or a password going on
    # (``PASSWORD=Xk9(mQ2pL7vR3)``, ``PASSWORD=a(Xk9mQ2pL7vR3)`` went out whole, too short
    # to be a value at all); :func:`glued_end` and :func:`_a_call` tell them apart
    r"|[^\s\"'`\\,;(){{}}\[\]<>:" + WIDE + _CJK_WORDS + r"]{{1,3}}(?=\()))"
)
#: ``：`` and ``＝`` are what a Chinese or Japanese input method writes (``token：…``)
_SEPARATOR: Final = (r"\\?(?:[\"'`](?:[ \t]*\r?\n)?)?" + GAP  # (after a quoted key, the
                     + "*(?::=|=>|==|!=|=|:|\uff1a|\uff1d)")  # value's line may hold it)
#: what may follow a credential's name before its separator: the environment, access,
#: rotation or version it is for (``SESSION_SECRET_PROD``, ``GITHUB_TOKEN_RO``,
#: ``API_KEY_V2``), and Rails' ``SECRET_KEY_BASE``; the value went out in clear, the name
#: not ending in the credential's word (``TOKEN_TTL``, ``PASSWORD_FILE`` still do not).
#: Two of them (``API_KEY_PROD_V2``, ``SECRET_KEY_BASE_PROD``), and in camel case
#: (``apiKeyProd``, ``sessionSecretV2``): with one only, after ``_``, ``.`` or ``-``,
#: these still went out in clear; so did three or more (``DB_PASSWORD_PROD_ADMIN_V2``) and a
#: year or a date as the version (``GITHUB_TOKEN_2024``): up to four, a version of 8 digits
_QUALIFIER_WORD: Final = (r"(?:base|prod|production|dev|development|staging|stage|test"
                          r"|live|sandbox|ro|rw|admin|old|new|primary|secondary|current"
                          r"|prev|previous|next|backup|v?[0-9]{1,8})")
_QUALIFIER: Final = (r"(?:[_.-]" + _QUALIFIER_WORD + r"(?![A-Za-z0-9])"
                     r"|(?-i:(?<=[a-z0-9])(?=[A-Z]))" + _QUALIFIER_WORD
                     + r"(?-i:(?![a-z0-9]))){0,4}")
_NAME: Final = (  # "key" then a separator ahead, then a prefix behind: prose fails fast
    "(?:(?:key(?=" + _QUALIFIER + _SEPARATOR + ")(?:"
    + "|".join(f"(?<={p}key)|(?<={p}[_.-]key)" for p in _KEY_PREFIXES) + ")"
    r"|secret|token|passwor[dt]|passwd|passphrase|pwd"
    # a pre-shared key, a Wi-Fi network's passphrase (wpa_supplicant's ``psk="…"``)
    r"|psk"
    # what a login is given, named for it (``DB_CREDENTIALS=admin:…``, a CI's
    # ``REGISTRY_AUTH=…``): their values went out in clear. ``auth`` ends a name only
    # after a word and ``_``, ``.`` or ``-`` (``auth: oauth2``, ``OAuth``, ``author`` name
    # a scheme or a person)
    r"|credentials?|(?<=[a-z0-9][_.-])auth"
    # "pass" ends a name after a non-letter or in camel case (DB_PASS, SMTP_PASS, dbPass,
    # rclone's "pass ="), never inside a word (bypass, compass) or before more of one;
    # and sshpass's ``SSHPASS`` (what ``sshpass -e`` reads: it went out in clear)
    "|pass(?=" + _QUALIFIER + _SEPARATOR + r")(?:(?<![A-Za-z0-9]pass)"
    r"|(?<=(?-i:[a-z0-9]Pass))|(?<=(?<![A-Za-z0-9])sshpass)))" + _QUALIFIER + ")"
)
#: a flag's key named for what it opens, as the Azure CLI's ``--account-key``, ``--secret-key``,
#: ``--app-key`` and ``--master-key`` are (these went out in clear; ``--signing-key`` names a
#: public key's ID, ``--private-key`` a file, so neither is one)
_FLAG: Final = (r"--(?<![\w-]--)(?:[\w-]*[_-])?"  # "--" first: a literal the search skips to
                r"(?:password|passwd|passphrase|token|secret|(?:api|account|access|secret|master"
                r"|app|client|storage|encryption|license|licence|subscription|session|webhook"
                r"|hmac|jwt)[_-]?key)")
#: what parts a flag from its value when a program's arguments are a list: the next item
#: of a JSON or Python list (docker inspect's ``"Args": ["--password", "…"]``, Kubernetes'
#: ``args: ["--db-password", "…"]``, ``subprocess.run([…, "--password", "…"])``), quoted,
#: or of an indented YAML list (``  - --password⏎  - …``, a Markdown list's top level
#: being prose's): these went out in clear
_NEXT_ARGUMENT: Final = (r"(?:(?<=[\w-])[\"'][ \t]{0,64},\s{0,64}(?=[\"'])"
                         r"|[ \t]*\r?\n[ \t]+-[ \t]+)")
#: what every such flag starts with (the rule's hint: a search led by its dash, cheaper than
#: trying the flag at each "key" or "token" of a text)
_DASH_HEAD: Final = lazy(r"-(?i:store|key|src|dest|pass|token|secret|api)", re.ASCII)
#: a variable's name for a credential, as an assignment's is (:data:`_NAME`), read inside
#: its quotes: no separator follows it there
_TF_SECRET_NAME: Final = (r"passwor[dt]|passwd|passphrase|pwd|psk|secret|token|credentials?"
                          r"|(?<![a-z])pass|(?<=[a-z0-9][_-])auth|(?:"
                          + "|".join(_KEY_PREFIXES) + r")[_-]?key")


#: a constant's name for a credential (``php_define``'s, judged after a match: read in
#: the expression, every ``define(`` of a text tried each name at each of its letters)
NAMED_CONSTANT: Final = lazy(r"[\w.-]*?(?:" + _TF_SECRET_NAME + r")" + _QUALIFIER,
                             re.ASCII | re.IGNORECASE)
#: a scalar member of a JSON object, and its comma (a string, a number, ``true``, a flat
#: list: ``"type": "string"``, Terraform's output's others)
_TF_MEMBER: Final = (r"\s*\"[\w-]{1,64}\"\s*:\s*(?:\"(?:[^\"\\\n]|\\[^\n]){0,4096}\""
                     r"|[\w.+-]{1,64}|\[[^\[\]{}]{0,1024}\])\s*,")


#: a configuration command's flags, each with its argument (``--profile ci``)
#: one parameter of an HTTP Digest header, ``name="value"`` (its quotes escaped in JSON)
#: or ``name=token``
_DIGEST_PARAM: Final = (r"[A-Za-z][\w-]{0,31}[ \t]*=[ \t]*(?:\\?\"(?:[^\"\\\n]|\\[^\"\n])"
                        r"{0,1024}+\\?\"|[^\s,\\\"]{1,1024}+)")
_CONFIG_FLAGS: Final = r"(?:[ \t]+--?[\w-]{1,64}(?:[ \t]+[^\s'\"-][^\s]{0,253})?){0,8}?"
#: what follows a header's name before its separator: its quote, and in a HAR file (a
#: browser's export: ``{"name": "Authorization", "value": "…"}``) the comma and ``"value"``
_HAR_VALUE: Final = r"\\?[\"']?(?:\s*,\s*\\?[\"']value\\?[\"']?)?"
_WRAPPERS: Final = (
    Rule("bearer", "bearer", lazy(
        r"\b(?:[Bb]earer|BEARER)(?:" + GAP + "+|" + GAP + r"*\r?\n" + GAP
        + r"*(?=[A-Za-z0-9._~+/=-]{8,}" + GAP + r"*(?:\r?\n|\Z)))"
        r"(?P<bearer>[A-Za-z0-9._~+/=-]{8,})", re.ASCII),
        ("bearer",), folded=True, anchored=True, wrapper=True),
    Rule("basic", "basic-auth", lazy(
        r"\b(?:[Bb]asic|BASIC)" + GAP + r"+(?P<basic>[A-Za-z0-9+/]{8,}={0,2})", re.ASCII),
        ("basic",), folded=True, anchored=True, wrapper=True),
    # the same base64 "user:password" under an ``auth`` key: Docker's config.json
    # (``"auth": "…"``), .npmrc's ``_auth=…``; ``accepts`` decodes it as Basic's
    Rule("auth_b64", "basic-auth", lazy(
        r"(?<![A-Za-z0-9])auth\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
        r"(?P<auth_b64>[A-Za-z0-9+/]{8,}={0,2})", re.ASCII | re.IGNORECASE),
        ("auth",), folded=True, anchored=True, wrapper=True),
    # a .netrc entry's password: ``machine HOST`` (or ``default``), its ``login``,
    # ``account`` or ``port``, then ``password VALUE``, on one line or several; a host
    # named like a keyword is prose ("the machine login password is …")
    Rule("netrc", "secret", lazy(
        r"(?<![\w.-])(?:machine[ \t\r\n]+(?!(?:login|password|account|port)\b)\S+|default)"
        r"(?:[ \t\r\n]+(?:login|account|port)[ \t\r\n]+\S+){1,3}[ \t\r\n]+password[ \t\r\n]+"
        r"(?:'(?P<netrc_q>[^'\n]{1,4096})'|\"(?P<netrc_d>[^\"\n]{1,4096})\""
        r"|(?P<netrc>[^\s\"'`]{1,4096}))", re.ASCII),
        ("machine", "default"), anchored=True, wrapper=True),
    # the password runs to the last "@" of the authority: pasted unencoded, it may hold
    # "@" or "#"; JSON may escape the slashes (":\/\/")
    # GitHub's older scheme (``Authorization: token <40 hex>``), in a header or JSON
    Rule("auth_token", "auth-token", lazy(
        r"(?i:authorization)" + _HAR_VALUE + GAP + "*[:=]" + GAP + r"*\\?[\"']?(?:[Tt]oken|TOKEN)"
        + GAP + r"+(?P<auth_token>[A-Za-z0-9._~+/=-]{8,})", re.ASCII),
        ("authorization",), folded=True, anchored=True, wrapper=True),
    # the key itself as the header, no scheme (``Authorization: KEY``, as some APIs take
    # it), or after a scheme of its own (Elasticsearch's ``ApiKey``, Okta's ``SSWS``, a
    # ``Key``: these went out in clear): judged random, so a word or a phrase stays
    Rule("auth_raw", "auth-token", lazy(
        r"(?i:authorization)" + _HAR_VALUE + GAP + "*[:=]" + GAP + r"*\\?[\"']?"
        r"(?:[A-Za-z][A-Za-z0-9-]{1,31}" + GAP + r"+)?"
        # an account before the key (Azure Storage's ``SharedKey ACCOUNT:SIGNATURE``): the
        # account stays, the signature goes (it went out whole, the colon ending the run)
        r"(?:[A-Za-z0-9_-]{1,64}:)?"
        r"(?P<auth_raw>[A-Za-z0-9._~+/=-]{16,4096})(?![^\s\"',;\\])", re.ASCII),
        ("authorization",), folded=True, anchored=True, wrapper=True),
    # HTTP Digest's response (``Authorization: Digest username=…, nonce=…, response="<hex>"``,
    # RFC 7616): a hash of the password with the nonce, which lets anyone test guesses of
    # the password offline and replay the request while the nonce lasts, so a credential;
    # the other parameters (user, realm, nonce, URI) stay. Each parameter before it read
    # once, at most 16, quoted (a HAR file's JSON escapes the quotes) or bare
    Rule("digest_auth", "secret", lazy(
        r"(?<![\w-])(?i:digest)[ \t]+(?:(?!(?i:response)[ \t]*=)" + _DIGEST_PARAM
        + r"[ \t]*,[ \t]*){0,16}+(?i:response)[ \t]*=[ \t]*(?P<digest_q>\\?\")?"
        r"(?P<digest_auth>[0-9a-fA-F]{32}(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{96})?)(?![0-9a-fA-F])"
        r"(?(digest_q)\\?\")", re.ASCII),
        ("digest",), folded=True, anchored=True, wrapper=True, guard="="),
    # a Cookie or Set-Cookie header's value (``Copy as cURL``, a HAR file's ``"name":
    # "Cookie", "value": …``) to its line's end or closing quote, when a cookie looks secret
    Rule("cookie", "cookie", lazy(
        r"(?:(?<![\w-])|(?<=(?<![\w-])set-))cookie" + _HAR_VALUE
        + GAP + "*:" + GAP
        # all of it, no tail left, to the next header's name on its line: each header's
        # value read through every header after it took minutes on one long log line
        + r"*\\?[\"']?(?P<cookie>[^\s\"'\\;=]{1,256}="
        r"(?:[^\n\"'\\cs]|c(?!ookie\\?[\"']?[ \t]*:)|s(?!et-cookie\\?[\"']?[ \t]*:))+)",
        re.ASCII | re.IGNORECASE), ("cookie",), folded=True, anchored=True, wrapper=True,
        guard=":"),
    # the token ``vault login`` is given (a legacy ``s.…`` service token has no prefix of
    # its own; ``-method=…`` logins and ``$VAULT_TOKEN`` hold none)
    Rule("vault_login", "vault-token", lazy(
        r"(?<![\w.-])vault(?:\.exe)?[ \t]+login(?:[ \t]+-[^\s]+)*[ \t]+"
        r"(?P<vault_login>[A-Za-z0-9][^\s\"'`=;|&<>()]{7,4095})", re.ASCII),
        ("vault",), anchored=True, wrapper=True),
    # a .pgpass line's password (``host:port:database:user:password``, ``*`` for any): a host,
    # database and user with a letter each, a port of 4-5 digits (``user:42:…`` is a key)
    Rule("pgpass", "secret", lazy(
        r"(?<!\S)(?:\*|\[[0-9A-Fa-f:.]+\]|[\w.-]*[A-Za-z.][\w.-]*):(?:[0-9]{4,5}|\*)"
        r"(?::(?:\*|[^\s:]*[A-Za-z_][^\s:]*)){2}:(?P<pgpass>(?:\\.|[^\s:\\]){1,4096})(?!\S)",
        re.ASCII),
        (":",), wrapper=True, guard=":", hint=PGPASS_HINT),
    *COMMAND_RULES,  # a password a command line gives: secret_commands
    *ADMIN_RULES,  # a password an administrator's command takes as an argument: secret_admin
    PRINTED,  # what a command printed on the line after it: secret_printed
    *CONNECTION_RULES,  # Go's MySQL DSN, ``USER:PASSWORD@tcp(…)``: secret_connections
    *STDIN_RULES,  # the lines a group, a format's arguments or ``yes`` feed one: secret_stdin
    # a credential a tool's configuration command keeps, named for one, its value after a
    # space (``aws configure set aws_session_token …``, ``dotnet user-secrets set "ApiKey"
    # "…"``, WP-CLI's ``wp config set DB_PASSWORD …``), and Poetry's ``config
    # http-basic.REPO USER PASSWORD``: these went out in clear
    Rule("config_named", "secret", lazy(
        r"(?<![\w.-])(?:(?:aws(?:\.exe)?[ \t]+configure|dotnet(?:\.exe)?[ \t]+user-secrets"
        r"|wp(?:\.phar)?[ \t]+config)"
        + _CONFIG_FLAGS + r"[ \t]+set" + _CONFIG_FLAGS + r"[ \t]+(?P<config_named_k>['\"]?)"
        r"[\w.:-]*?(?:" + _TF_SECRET_NAME + r")" + _QUALIFIER + r"(?P=config_named_k)"
        r"|poetry(?:\.exe)?[ \t]+config[ \t]+http-basic\.[\w.-]{1,253}[ \t]+[^\s'\"]{1,253})"
        r"[ \t]+" + _QUOTED_OR_BARE.format(name="config_named", least=1),
        re.ASCII | re.IGNORECASE),
        ("configure", "user-secrets", "http-basic", "wp config", "wp.phar config"), wrapper=True,
        guard=" "),
    Rule("url", "url-password", lazy(
        r":(?://|\\/\\/)[^\s:/@?#\[\]\"'<>]*:(?P<url>[^\s/?\[\]\"'<>]+)(?=@)",
        re.ASCII), ("://", ":\\/\\/"), anchored=True, wrapper=True, guard=":"),
    # a token as a URL's user, no password (``https://TOKEN@github.com/o/r.git``, which Git
    # and GitHub accept): judged random (``git@``, ``deploy-bot-2024@`` stay), part by
    # part, so a dotted one goes (``https://tok.en9Xq…@``, which went out whole) and a
    # person's ``jane.doe@`` stays
    Rule("url_user", "url-token", lazy(
        r":(?://|\\/\\/)(?P<url_user>[A-Za-z0-9_.-]{16,256})(?=@)", re.ASCII),
        ("://", ":\\/\\/"), anchored=True, wrapper=True, guard=":"),
    # a URL's query parameter named for a key or a signature, ``?key=…``, ``&sig=…``,
    # ``?signature=…`` (an API's key, a presigned link's signature short of the SAS rule's
    # 30 characters), judged as a setting's value is, since the name says little
    # (``?key=uploads/a.png``, ``&sig=abc`` stay): these went out in clear
    Rule("query_key", "secret", lazy(
        r"(?<=[?&;])(?i:key|sig|signature)=(?P<query_key>[A-Za-z0-9%+/_.~-]{8,512})"
        r"(?=[&#\s\"'<>)\]`,]|\Z)", re.ASCII),
        ("key=", "sig=", "signature="), folded=True, wrapper=True, guard="="),
    # and such a parameter as a HAR file lists a request's, ``"queryString": [{"name":
    # "key", "value": "…"}]`` (pretty-printed too), which went out in clear
    Rule("query_key", "secret", lazy(
        r"\"name\"\s{0,64}:\s{0,64}\"(?i:key|sig|signature)\"\s{0,64},\s{0,64}\"value\"\s{0,64}:"
        r"\s{0,64}\"(?P<query_key>[A-Za-z0-9%+/_.~=-]{8,512})\"", re.ASCII),
        ('"key"', '"sig"', '"signature"'), folded=True, wrapper=True, guard=":"),
    # a value whose name stands beside it as data, not as its key: a container's
    # environment (``- name: DB_PASSWORD⏎  value: "…"``, Kubernetes' and ECS's, in YAML,
    # flow style or JSON, pretty-printed too: ``"name": "API_TOKEN",⏎ "value": "…"``),
    # where the name of every other rule is a word, ``value``; a comment after the name,
    # blank or comment lines before ``value:`` and a block scalar's value (``value: >-⏎
    # …``) went out in clear
    Rule("name_value", "secret", lazy(
        r"name[\"']?[ \t]*:[ \t]*[\"']?[\w.-]*?(?:" + _TF_SECRET_NAME + r")" + _QUALIFIER
        + r"[\"']?[ \t]*(?:,[ \t]*(?:\r?\n[ \t]*)?|(?:(?<=[ \t\"'])#[^\n]{0,256})?"
        r"(?:\r?\n[ \t]*(?:#[^\n]{0,256}(?=\n))?){1,4}(?:-[ \t]+)?)[\"']?value[\"']?[ \t]*"
        r"(?P<sep>:)[ \t]*(?:[|>][1-9+-]{0,2}[ \t]*\r?\n[ \t]*)?"
        + _VALUE.format(name="name_value"),
        re.ASCII | re.IGNORECASE),
        ("name",), folded=True, anchored=True, wrapper=True, guard=":"),
    *ENVIRONMENT_RULES,  # a container's environment as a tool prints it: secret_environments
    # XML: an element or a key/value pair named for a credential (secret_markup)
    *markup_rules(_TF_SECRET_NAME, _QUALIFIER),
    # PowerShell's and cmd's: a secure string's text, a variable set by name (secret_windows)
    *windows_rules(_TF_SECRET_NAME, _QUALIFIER),
    # a YAML complex key named for a credential and its value on the next line (``?
    # password⏎: …``, as a YAML writer emits a key it will not write plain): judged as an
    # assignment's value
    Rule("yaml_key", "secret", lazy(
        r"(?m:^)[ \t]*(?:-[ \t]+)?\?[ \t]+[\"']?[\w.-]*?(?:" + _TF_SECRET_NAME + r")"
        + _QUALIFIER + r"[\"']?[ \t]*\r?\n[ \t]*(?P<sep>:)[ \t]+"
        + _VALUE.format(name="yaml_key"), re.ASCII | re.IGNORECASE),
        ("?",), wrapper=True, guard=":"),
    # the default of a Terraform variable named for a credential (``variable "db_password"
    # { default = "…" }``): its assignment is ``default``, a word naming none, so it went
    # out in clear; the block may hold other arguments and one level of nested blocks
    Rule("tf_default", "secret", lazy(
        r"variable[ \t]+\"[\w-]*?(?:" + _TF_SECRET_NAME + r")" + _QUALIFIER
        + r"\"[ \t]*\{(?:[^{}]|\{[^{}]{0,1024}\}){0,2048}?(?<![\w-])default[ \t]*=[ \t]*"
        r"\"(?P<tf_default>(?:[^\"\\\n]|\\[^\n]){1,4096})\"", re.ASCII | re.IGNORECASE),
        ("variable",), folded=True, anchored=True, wrapper=True, guard="="),
    # a PHP constant (``define('DB_PASSWORD', '…');``, wp-config.php's password, keys and
    # salts): its name is a string argument, so no assignment's; named for a credential,
    # judged as an assignment's quoted value, else as a config var's (``accepts``)
    Rule("php_define", "secret", lazy(
        r"(?<![\w$>:])define[ \t]*\([ \t]*(?P<php_quote>['\"])(?P<php_name>[\w.-]{1,128})"
        r"(?P=php_quote)[ \t]*,[ \t]*"
        r"(?:'(?P<php_define_q>(?:[^'\\\n]|\\[^\n]){1,4096})'"
        r"|\"(?P<php_define>(?:[^\"\\\n]|\\[^\n]){1,4096})\")[ \t]*\)",
        re.ASCII | re.IGNORECASE), ("define",), folded=True, anchored=True, wrapper=True,
        guard=","),
    # a password in SQL: PostgreSQL's ``CREATE|ALTER USER|ROLE … [ENCRYPTED] PASSWORD '…'``,
    # MySQL's and Oracle's ``IDENTIFIED [WITH plugin] BY '…'`` (Oracle's unquoted too, a
    # GRANT's), MySQL's ``SET PASSWORD [FOR u] = '…'``: these went out in clear (SQL
    # Server's ``PASSWORD = '…'`` is an assignment)
    Rule("sql_password", "secret", lazy(
        r"(?<![\w$])(?:(?:create|alter)[ \t]+(?:user|role)(?![\w$])[^;\n]{0,256}?[ \t]"
        r"(?:(?:un)?encrypted[ \t]+)?password[ \t]+|(?:(?:create|alter)[ \t]+user|grant)"
        r"(?![\w$])[^;\n]{0,256}?[ \t]identified[ \t]+(?:with[ \t]+\w{1,64}[ \t]+)?by[ \t]+"
        r"|set password(?:[ \t]+for[ \t]+[^=;\n]{1,256}?)?[ \t]*=[ \t]*"
        r"(?:password[ \t]*\([ \t]*)?)"
        r"(?:'(?P<sql_password>(?:[^'\\\n]|''|\\[^\n]){1,4096})'"
        r"|(?!values(?![\w$]))(?P<sql_password_b>[A-Za-z][\w$#]{3,127}(?![\w$#'])))",
        re.ASCII | re.IGNORECASE), ("create", "alter", "grant", "set password"), folded=True,
        anchored=True, wrapper=True, guard=" "),
    # Redis's password as its configuration takes it, a name then a space: redis.conf's
    # ``requirepass …``/``masterauth …`` starting a line, ``redis-server --requirepass
    # …``, ``CONFIG SET requirepass …`` (these went out in clear; prose naming the
    # directive, and redis.conf's commented sample, are none of these); the flag's value
    # may be the next item of an argument list as the flag rule's is (docker inspect's
    # ``"Cmd": ["redis-server", "--requirepass", "…"]``, a YAML list's ``- …``)
    Rule("redis_auth", "secret", lazy(
        r"(?:(?:(?m:^)[ \t]*|(?i:config)[ \t]+(?i:set)[ \t]+)(?:requirepass|masterauth)[ \t]+"
        r"|--(?:requirepass|masterauth)(?:[ \t]+|" + _NEXT_ARGUMENT + "))"
        + _VALUE.format(name="redis_auth"), re.ASCII), ("requirepass", "masterauth"),
        wrapper=True),
    # a password Redis's ``ACL SETUSER USER … >PASSWORD …`` adds to a user (its other
    # rules, ``on``, ``~keys``, ``+@all``, and ``nopass`` stay), each rule read once; and
    # an ACL file's line, ``user USER on|off … >PASSWORD`` (users.acl, ACL LIST's reply
    # quoted): its ``#<sha256>`` logs no one in and stays
    Rule("redis_acl", "secret", lazy(
        r"(?:(?i:setuser)[ \t]+[^\s>]{1,128}|(?<![^\s\"])user[ ]+[^\s>]{1,128}[ ]+o(?:n|ff)"
        r"(?![^ \t]))(?:[ \t]+[^\s>][^\s]{0,256}+){0,32}?[ \t]+>"
        r"(?P<redis_acl>[^\s\"'`;|&]{1,4096})", re.ASCII),
        ("setuser", "user"), folded=True, anchored=True, wrapper=True, guard=">"),
    # HAProxy's ``userlist`` password kept in clear, ``user NAME insecure-password …`` (its
    # hashed ``password $6$…`` logs no one in): a keyword then a space, it went out in clear
    Rule("haproxy_user", "secret", lazy(
        r"(?<![\w.-])user[ \t]+[^\s]{1,128}[ \t]+insecure-password[ \t]+"
        + _QUOTED_OR_BARE.format(name="haproxy_user", least=1), re.ASCII),
        ("insecure-password",), wrapper=True, guard=" "),
    # the password of an HTTP client's pair in Python: requests' and httpx's ``auth=(USER,
    # PASSWORD)`` (``basic_auth=``, ``http_auth=``: Elasticsearch's), ``HTTPBasicAuth(USER,
    # PASSWORD)`` (``HTTPDigestAuth``, ``HTTPProxyAuth``, aiohttp's ``BasicAuth``): its
    # name is no assignment's, and it went out in clear (``session.auth = (…)`` too).
    # String literals only: a variable or a call is code
    Rule("py_auth", "secret", lazy(
        r"(?:(?<![A-Za-z0-9])(?i:auth)[ \t]*=[ \t]*\(|(?:(?<=Basic)|(?<=Digest)|(?<=Proxy))"
        r"Auth\()\s{0,64}(?:'[^'\\\n]{0,256}'|\"[^\"\\\n]{0,256}\")\s{0,64},\s{0,64}"
        r"(?:'(?P<py_auth>[^'\\\n]{1,4096})'|\"(?P<py_auth_d>[^\"\\\n]{1,4096})\")"
        r"\s{0,64}[,)]", re.ASCII),
        ("auth",), folded=True, anchored=True, wrapper=True, guard="("),
    # the password a hashing or checking call is given as a string literal: Laravel's
    # ``Hash::make('…')`` and ``bcrypt('…')`` (in tinker, a seeder), PHP's
    # ``password_hash('…', …)``, Django's ``make_password``/``set_password``, Werkzeug's
    # ``generate_password_hash``, bcrypt's ``hashpw(b'…', …)``/``hash('…', 10)``, Ruby's
    # ``BCrypt::Password.create``, Spring's ``passwordEncoder.encode("…")``, Go's
    # ``GenerateFromPassword([]byte("…"), …)``, .NET's ``BCrypt.HashPassword``: a variable
    # (``Hash::make($request->password)``) is code, and stays
    Rule("hash_input", "secret", lazy(
        r"(?:(?<![\w$])(?:Hash::make|bcrypt(?:\.(?:hash(?:Sync)?|hashpw|checkpw|compare(?:Sync)?))?"
        r"|(?:hashpw|checkpw)|password_(?:hash|verify)|(?:make|check|set)_password"
        r"|(?:generate|check)_password_hash|BCrypt::Password\.create"
        r"|BCrypt\.(?:HashPassword|EnhancedHashPassword|Verify)|GenerateFromPassword)"
        r"|(?<=[Pp]assword)Encoder(?:\(\))?\.(?:encode|matches))"
        r"[ \t]*\([ \t]*(?:\[\]byte\([ \t]*)?[bB]?"
        r"(?:'(?P<hash_input_q>(?:[^'\\\n]|\\[^\n]){1,4096})'"
        r"|\"(?P<hash_input>(?:[^\"\\\n]|\\[^\n]){1,4096})\")", re.ASCII),
        ("hash", "bcrypt", "checkpw", "password", "encoder"), folded=True, wrapper=True,
        guard="("),
    # a PgBouncer userlist.txt entry, ``"USER" "PASSWORD"`` alone on its line (the
    # password in clear, or its MD5 or SCRAM secret, each of which logs in): judged by
    # ``accepts``, since two quoted words are common (a plain word only where the file is
    # named)
    Rule("pgbouncer", "secret", lazy(
        r"(?m:^)[ \t]*\"[\w.@-]{1,63}\"[ \t]\"(?P<pgbouncer>[^\"\s][^\"\n]{0,4095})\"[ \t]*$",
        re.ASCII), ("\" \"", "\"\t\""), wrapper=True, guard="\""),
    # a value Terraform marks sensitive (``terraform output -json``: ``"sensitive": true``
    # beside its ``"value"``, in either order among the object's scalar members): its
    # output's name is an object's key there, and the value went out in clear
    Rule("tf_sensitive", "secret", lazy(
        r"\"sensitive\"\s*:\s*true\s*,(?:" + _TF_MEMBER + r"){0,4}\s*\"value\"\s*:\s*"
        r"\"(?P<tf_sensitive>(?:[^\"\\\n]|\\[^\n]){1,4096})\""
        r"|\"value\"\s*:\s*\"(?P<tf_sensitive_v>(?:[^\"\\\n]|\\[^\n]){1,4096})\"\s*,"
        r"(?:" + _TF_MEMBER + r"){0,4}\s*\"sensitive\"\s*:\s*true(?![\w-])", re.ASCII),
        ("sensitive",), wrapper=True, guard=":"),
    # what a GitHub Actions step masks in its log, ``echo "::add-mask::VALUE"``: a secret by
    # the step's own word, and a CI log pasted with the command echoed (``run: echo
    # "::add-mask::…"``, a debug log) sent it in clear; a reference stays. The value ends
    # before another ``::add-mask::`` (each read to 4 KB, 100 KB of refused ``::add-mask::$``
    # glued cost 270 ms)
    Rule("add_mask", "secret", lazy(r"::add-mask::(?P<add_mask>(?:[^\s\"'`\\:]|:(?!:add-mask::))"
                                    r"{1,4096}+)", re.ASCII),
         ("::add-mask::",), anchored=True, wrapper=True, guard=":"),
    KUBE_SECRET, KUBE_SECRET_FLOW, KUBE_SECRET_JSON,  # a Secret's base64 data: secret_manifest
    KUBE_SECRET_CUT,  # and its head, cut before its kind
    KUBE_STRING_DATA, KUBE_STRING_DATA_JSON,  # and its plain stringData
    Rule("flag", "secret", lazy(_FLAG + "(?:" + GAP + "+|" + _NEXT_ARGUMENT + ")"
                                + _VALUE.format(name="flag"), re.ASCII | re.IGNORECASE),
         ("--",), anchored=True, wrapper=True, guard="-",
         hint=lazy(_FLAG, re.ASCII | re.IGNORECASE)),  # skips "---" rules and tables
    # (a JSON value, an attribute's quoted one, ``password=⏎"…"``, and a YAML key's may
    # stand on the line after its key)
    Rule("dash_flag", "secret", lazy(DASH_FLAG_PATTERN + _VALUE.format(name="dash_flag"),
                                     re.ASCII | re.IGNORECASE),
         ("pass", "token", "secret", "key"), folded=True, anchored=True, wrapper=True,
         hint=_DASH_HEAD),
    ZAPIER_HOOK, WEBHOOK_PATH,  # a webhook's secret in its URL's path: secret_webhooks
    PROMPT_TYPED,  # typed at a program's prompt: waymarks.core.secret_prompts
    PASSPHRASE_LINE,  # a passphrase's words after its label: secret_passphrases
    Rule("assign", "secret", lazy(
        _NAME + "(?P<sep>" + _SEPARATOR + r"(?:(?:(?<=[\"']:)|(?<=[\"'\t ]=>)|(?<=[A-Za-z0-9_]=))"
        r"(?:[ \t]*\r?\n){1,2}[ \t]*(?=\\?[\"'])"
        # a YAML key's value on the next line, indented (``password:⏎    …``): not a
        # comment, block scalar, anchor, alias, tag, flow collection or list item
        # (checks.a_yaml_value reads the indent, the line's end and the key)
        r"|(?<=[A-Za-z0-9_]:)[ \t]*\r?\n[ \t]+(?![#|>&*!%@{\[]|-[ \t])|"
        + GAP + "*))" + _NAME_NEXT + _VALUE.format(name="assign"),
        re.ASCII | re.IGNORECASE),
        ("key", "secret", "token", "pass", "pwd", "psk", "credential", "auth"), folded=True,
        anchored=True,
        wrapper=True),
    PROSE, PROSE_CJK,  # a credential stated in a sentence: waymarks.core.secret_prose
    PROSE_CJK_WORDS,  # (in Chinese characters)
    PROSE_BARE,  # (its noun, then its value: no verb)
    PROSE_NAMED,  # (a password's, a PIN's or a Chinese noun, then its value: no verb)
    FAR_COLON,  # (its noun, a clause about it, then a colon: secret_clauses)
    FROM_VALUE, FROM_TO_VALUE,  # (a password changed from one value to another)
    LOGIN_PAIR, PASSWORD_SET,  # "admin/admin123", "set the password to …": secret_logins
    *MORE_RULES,  # the shapes each in a module of its own (a lock's code …): secret_more
)
RULES: Final = (*TOKENS, *_WRAPPERS)
#: a value that is itself a name and separator (or a flag): the lead-in of a credential
LEAD_IN: Final = lazy(r"[\w.-]*" + _NAME + _SEPARATOR + "|" + _FLAG,
                      re.ASCII | re.IGNORECASE)
#: (guard, ((rank, rule), …)): rules grouped by guard, a rule's rank its place in RULES
#: (the lower rank names the kind where spans overlap)
BY_GUARD: Final = tuple(
    (guard, tuple((rank, rule) for rank, rule in enumerate(RULES) if rule.guard == guard))
    for guard in dict.fromkeys(rule.guard for rule in RULES))
