"""A credential stated in a sentence: its value after a credential's noun and ``is``,
``was``, ``are``, ``should be``, ``used to be``, ``became``, ``'s``, ``set to``,
``changed to``, ``was reset to``, an arrow (``->``, ``=>``, ``→``), a spaced ``=``,
``=``/``:`` after some nouns, or
``是``/``为``/``改成了``/``设置为``/``更新为`` ("remember: the staging db password is
Tr0ub4dor&3", "my pw: Tr0ub4dor&3", "the API key for prod is a8f3kd93jf02kd",
"记住：数据库密码是 Passw0rd123", "the PIN is 4821", "root password = toor",
"password -> hunter2", "密码设置为 hunter22"). After a password's noun a weak or
default password goes too (:func:`stated_password`: "The password is
hunter2.", "the router's admin password is admin").

The ``prose`` rule of :mod:`waymarks.core.secret_rules` (whose docstring states what every
rule must keep true). The nouns: password, pass, passphrase, passcode, passwd, pwd, pw, secret,
token, a key named for a credential (API, access, secret, private, license, signing,
encryption, master, deploy), ``PIN`` in capitals (a lower-case "pin" is Waymarks' own), and
密码/密碼, 口令, 密钥/密鑰, 秘钥, 金鑰, 令牌; up to three words after "for", "of" or "on"
may stand between the noun and its verb ("the password for the admin account is …").
Whether the value is a credential is judged by
:func:`waymarks.core.secret_values.prose_value_is_secret`: most of what follows such a
noun in prose is not one. A name glued to its separator (``password: …``, ``API_KEY=…``)
is the assignment rule's; this one adds the spaced nouns (``api key: …``), ``pw`` and the
Chinese ones to it.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule, ascii_lower

#: key nouns that name a credential ("the key is to…" names none)
_KEY_QUALIFIERS: Final = ("api", "access", "secret", "private", "license", "licence",
                          "signing", "encryption", "master", "deploy",
                          # a service's, by its name or its kind (PagerDuty's integration and
                          # routing keys, Datadog's API and application keys): judged random
                          "pagerduty", "datadog", "integration", "routing", "application")
#: what a code opens or guards, whose code is a PIN's digits ("the gate code is 4417"; not
#: an error's, exit's, zip's or area's code)
_LOCK_QUALIFIERS: Final = ("alarm", "door", "gate", "safe", "lock", "keypad", "entry",
                           "garage", "panel", "locker", "building", "access", "unlock",
                           "disarm", "security")
_CJK_NOUNS: Final = ("密码", "密碼", "口令", "密钥", "密鑰", "秘钥", "秘鑰", "金鑰", "令牌")
_ENGLISH: Final = (
    r"(?:(?<![A-Za-z])pass(?:word|wd|phrase|code)?|(?<![A-Za-z0-9])pwd?"
    r"|(?<![A-Za-z])secret(?:[ _-]?key)?|(?<![A-Za-z])token"
    r"|(?-i:(?<![A-Za-z])(?P<prose_pin>PIN)(?: ?(?i:code|number))?)"
    r"|key(?:" + "|".join(f"(?<=(?<![A-Za-z]){q}[ _-]key)|(?<=(?<![A-Za-z]){q}key)"
                          for q in _KEY_QUALIFIERS) + r")"
    # a lock's code, judged as a PIN ("the gate code for the loading dock is 558213")
    r"|code(?:" + "|".join(f"(?<=(?<![A-Za-z]){q} code)" for q in _LOCK_QUALIFIERS)
    + r")(?P<prose_lock>))s?"
)
#: "for the admin account", "of prod", "on staging", "for the ios release build": up
#: to five words (three left "the signing password for the ios release build is …")
_QUALIFIER: Final = r" (?:for|of|on)(?: [\w.@-]{1,64}){1,5}?"
_QUALIFIED: Final = "(?:" + _QUALIFIER + ")?"
#: "to", or "from" what it was (up to three words) then "to": "… changed from hunter21 to
#: …", "was changed from the old one to …" (the rules wanted "to" right after the verb)
_FROM_TO: Final = r"(?: from(?: [^\s]{1,64}){1,3}?)? to"
_ENGLISH_VERB: Final = (
    r"(?: (?:is|was|are|were|will be|has been|remains|became|becomes|should be|must be|would be"
    r"|used to be)"
    r"(?:[ \t]*:[ \t]*(?:\r?\n[ \t]*)?|[ \t]+)"  # "is:" may end its line
    # "the password's hunter2", "db password set to …", "password -> …", "pw = …"
    r"|'s[ \t]+|(?: (?:was|is|has been|got))? (?:set|changed|reset|updated|rotated)" + _FROM_TO
    + r"[ \t]+"
    r"|[ \t]*(?:->|=>|\u2192)[ \t]*|[ \t]+=[ \t]+)"
    r"(?:(?:now|still|just|currently|literally|simply|always|(?:set|changed|reset|updated|rotated)"
    + _FROM_TO + r"|actually) ){0,2}"
    # "the password is literally the word 'Sunflower7'": the value named as a word or string
    r"(?:(?:the|a|an) (?:word|string|phrase|text) )?")
#: nouns an assignment's name does not cover (``api key: …``, ``pw = …``, ``PIN: …``): a
#: name glued to ``:`` or ``=`` is the assignment rule's, with its own checks
_SEPARATED: Final = (
    r"(?:(?<![A-Za-z0-9])pw|(?-i:(?<![A-Za-z])(?P<prose_pin2>PIN))|key(?:"
    + "|".join(f"(?<=(?<![A-Za-z]){q} key)" for q in _KEY_QUALIFIERS)
    + r"))[ \t]*[:=][ \t]*")
#: between a Chinese noun and its verb: up to two adverbs or aspect words ("密码已经轮换为
#: …", "密码现在是 …"), after the change told first when "now" follows ("改过密码了，现在是
#: …", "密码改了，目前是 …"): each went out in clear
_CJK_ADVERB: Final = (r"(?:现在|現在|目前|统一|統一|一律|已经|已經|已|刚刚|剛剛|刚|剛|又|均|就|都"
                      r"|也|还|還|仍然|仍)")
_CJK_GAP: Final = (r"[ \t\u3000]*(?:(?:(?:改|换|換|重置|更新|修改|更改|轮换|輪換)(?:过|過)?)?"
                   r"了?[,，][ \t\u3000]*(?=现在|現在|目前))?" + _CJK_ADVERB + "{0,2}")
_CJK_VERB: Final = (_CJK_GAP +
                    r"(?:是[ \t\u3000]*[:：]?|为|為"
                    # "密码设置为 …", "密码更新为 …", "密码重置成了 …": a verb of setting
                    r"|(?:设|設|设置|設置|改|更新|修改|更改|重置|变|變|轮换|輪換)(?:为|為|成)了?"
                    r"|[:：=＝])"
                    r"[ \t\u3000]*[“「『‘]?")
#: the value: quoted or backticked, else ASCII up to a space, a quote or other text, and
#: without a sentence's closing punctuation
_VALUE: Final = (
    r"(?:\"(?P<prose_dq>[^\s\"]{4,256})\"|'(?P<prose_sq>[^\s']{4,256})'"
    r"|`(?P<prose_bq>[^\s`]{4,256})`"
    # (ending within 256 characters: a run of them, minified code, is not tried step by step)
    r"|(?=[!-~]{4,256}(?:[^!-~]|\Z))(?P<prose>[!#-&(-_a-~]{4,256}?)(?=[.,;:)]*(?:[^!-~]|\Z"
    # or a note in brackets glued to it, in Chinese or in words ("新密码:X(注意大小写)",
    # "… is X(case matters)": the value ran into the bracket, read as a call, in clear)
    r"|\((?=[^!-~]|[A-Za-z]{1,32} ))))")

PROSE: Final = Rule("prose", "secret", lazy(
    "(?:" + _ENGLISH + "(?:" + _QUALIFIED + _ENGLISH_VERB
    # a colon after a qualified noun ("the passphrase for the nightly backups: …", "auth token
    # for the pager bridge: 4c7e…"); a noun glued to its colon is the assignment rule's
    + "|" + _QUALIFIER + r"[ \t]*:(?P<prose_colon>)[ \t]*)|" + _SEPARATED + ")" + _VALUE,
    re.ASCII | re.IGNORECASE), ("pass", "pw", "secret", "token", "key", "pin", "code"),
    folded=True, anchored=True, wrapper=True)
#: the first characters of the Chinese nouns (the pre-test looks for one)
_CJK_HINT: Final = lazy("[" + "".join(dict.fromkeys(noun[0] for noun in _CJK_NOUNS)) + "]")
#: the Chinese nouns, a rule apart: in ASCII text (most) looking for its needles costs
#: next to nothing (``str.find`` of a wider needle returns at once)
#: the Chinese verbs after an English noun or a variable named for one ("把 REDIS_PASSWORD
#: 设成 …", "机房门禁 PIN 是 739146"): each went out in clear; not a bare separator, which the
#: English rules read after those nouns
_CJK_WORD_VERB: Final = (_CJK_GAP +
                         r"(?:是[ \t\u3000]*[:：]?|为|為"
                         r"|(?:设|設|设置|設置|改|更新|修改|更改|重置|变|變|轮换|輪換)(?:为|為|成)了?)"
                         r"[ \t\u3000]*[“「『‘]?")
#: before a Chinese verb, a bare key's, secret's or token's English noun, or one glued to
#: its qualifier in camel case or by ``_`` ("机器人的 key 是 …", "短信平台 AppSecret 为 …",
#: "app_secret 为 …"): in Chinese, no idiom's "key" ("the key is to …") stands there; each
#: went out in clear (the value is judged as after a token's noun)
_CJK_NAMED: Final = (r"(?:(?<![A-Za-z])(?i:secret|key|token)|(?<=[a-z])(?:Secret|Key|Token)"
                     r"|(?<=[A-Za-z]_)(?i:secret|key|token))s?")
PROSE_CJK: Final = Rule("prose_cjk", "secret", lazy(
    "(?:(?:" + "|".join(_CJK_NOUNS) + ")" + _CJK_VERB
    + "|(?:(?i:" + _ENGLISH + ")|" + _CJK_NAMED + ")" + _CJK_WORD_VERB + ")" + _VALUE,
    re.ASCII),
    (*_CJK_NOUNS, "pass", "pw", "secret", "token", "key", "pin", "code"), folded=True,
    anchored=True, wrapper=True)
#: a password written in Chinese characters after a Chinese password's noun and its verb
#: ("解压密码是 芝麻开花2031", "口令：绿色-海豚-周五-17"): the rules read an ASCII value, and
#: each went out in clear. Chinese words then digits (a symbol between or after them), or
#: parts joined by ``-`` or ``_`` (three or more, two in Chinese), then the clause's
#: end; digits before a unit ("16位"), a step ("第3步") or words alone (必填) stay
_CJK_WORD: Final = r"[\u4e00-\u9fff]"
_PASSWORD_CJK: Final = ("密码", "密碼", "口令")
PROSE_CJK_WORDS: Final = Rule("prose_cjk_words", "secret", lazy(
    "(?:" + "|".join(_PASSWORD_CJK) + ")" + _CJK_VERB
    + r"(?P<prose_cjk_words>" + _CJK_WORD + r"{2,16}[-_.@#!$%&*]?[0-9]{2,8}[!@#$%&*]?"
    r"|(?=[^\s]{0,80}?" + _CJK_WORD + r")[\u4e00-\u9fff0-9A-Za-z]{1,12}+"
    r"(?:[-_][\u4e00-\u9fff0-9A-Za-z]{1,12}+){2,7}+)"
    r"(?=[\s。，；！？、）),.;!?”」』’]|\Z)", re.ASCII),
    _PASSWORD_CJK, anchored=True, wrapper=True)
#: the first characters of the Chinese verbs above (an English noun's rule looks for one)
_CJK_VERB_HINT: Final = lazy("[是为為设設改更修重变變]")


#: a credential's noun then its value, no verb nor separator between ("use token Xk9v… for
#: staging", "the CI token Xk9v… expires Friday", Twilio's "auth token 3f9a…",
#: ``VERCEL_TOKEN Xk9v…``): it went out in clear. Only a value that reads as random goes
#: (:func:`waymarks.core.secret_values.setting_is_secret`): after a bare noun most words
#: are prose ("token usage", "password reset", "token 4096"); the value is a token's run
#: (a letter or digit, then 11-255 of ``[\w+/=~-]``), then a space, punctuation or the end
_BARE_NOUN: Final = (
    # (a service's name alone, a colon after it or none: "pagerduty: y_Nb…", "Datadog 1b2c…")
    r"(?:(?<![A-Za-z])(?:pagerduty|datadog)(?=:?[ \t])(?::(?=[ \t]))?"
    r"|(?<![A-Za-z])(?:token|passwor[dt]|passwd|passphrase|secret)"
    r"|key(?:" + "|".join(f"(?<=(?<![A-Za-z]){q}[ _-]key)|(?<=(?<![A-Za-z]){q}key)"
                          for q in _KEY_QUALIFIERS) + r"))s?")
PROSE_BARE: Final = Rule("prose_bare", "secret", lazy(
    # (a symbol inside it too: "secret key St0rE$ecret2031x" went out in clear)
    _BARE_NOUN + r"[ \t]+(?P<prose_bare>[A-Za-z0-9][\w+/=~!#$%^&*@-]{11,255}+)"
    r"(?=[.,;:)]*(?:\s|\Z))",
    re.ASCII | re.IGNORECASE),
    ("token", "pass", "secret", "key", "pagerduty", "datadog"), folded=True, anchored=True,
    wrapper=True)


#: a password's noun then its value with no verb, glued to its separator or to none
#: ("passwd hunter2", "password hunter2x9", ``pw=hunter2``, ``pw:hunter2``) and a Chinese
#: noun then a space ("密钥 8f3kQ2mLx9Vb", "口令 hunter2"): each went out in clear (the
#: prose rule wants a verb, the bare noun's a 12-character run). Judged by
#: :func:`accepts_prose`: a password's value letters and digits both (not a hash's or
#: protocol's name, ``argon2id``, ``sha256``), 6+ digits, or read as one in prose; a key's
#: or secret's read as random. (Not a PIN with no verb, "Bank PIN 4321": the project's
#: own flows keep one marked local-only, and a credential's refusal would refuse it)
PROSE_NAMED: Final = Rule("prose_named", "secret", lazy(
    r"(?:(?:(?<![A-Za-z])(?:passwor[dt]|passwd|passcode)|(?<![A-Za-z0-9])pwd?)"
    r"(?:[ \t]+|[ \t]*[:=][ \t]*)"
    r"(?P<prose_pw>[A-Za-z0-9!#$%&*+?@^~_-]{6,64})(?=[.,;:)!?]*(?:\s|\Z))"
    # backticked or double-quoted ("user `ops`, password `W3b-C0ns0le!`"): judged as data
    r"|(?:(?<![A-Za-z])(?:passwor[dt]|passphrase|passcode)|(?<![A-Za-z0-9])pwd?)[ \t]+"
    r"(?:`(?P<prose_pw_bq>[^\s`]{4,128})`|\"(?P<prose_pw_dq>[^\s\"]{4,128})\")"
    r"|(?P<prose_cjk_noun>" + "|".join(_CJK_NOUNS) + r")[ \t\u3000]+"
    r"(?P<prose_cjk_bare>[!#-&(-~]{4,128}?)(?=[.,;:)。，；]*(?:[^!-~]|\Z)))",
    re.ASCII | re.IGNORECASE),
    ("pass", "pw", *_CJK_NOUNS), folded=True, anchored=True, wrapper=True)
#: hashes', ciphers' and protocols' names a password's noun stands before ("password
#: argon2id hashing", "passwords sha256"): letters then digits, as a weak password is
_ALGORITHM: Final = lazy(r"(?:sha|md|aes|rsa|hs|rs|es|ps|ed|x|utf|ipv|http|oauth|base|argon"
                         r"|pbkdf|crc|blake|des|rc|tls|ssl|ntlm|scrypt|bcrypt|yescrypt)"
                         r"[0-9]+[a-z]{0,3}|[0-9]+(?:fa|bit|bits|ms|s|h|d)"
                         # (a column's character set: "the password utf8mb4 column")
                         r"|utf8mb[34]|latin[0-9]+|ascii[0-9]*|cp[0-9]+|ucs[0-9]+|win[0-9]+"
                         r"|iso[0-9]+(?:[a-z0-9]*)", re.ASCII)
#: what runs the ``passwd`` command, whose argument is a user's name ("sudo passwd
#: alice2", "run passwd deploy1"), not a password
_COMMAND_BEFORE: Final = lazy(r"(?:\b(?:sudo|doas|run|ran|runs|running|execute)|[`$#]) ?\Z",
                              re.ASCII | re.IGNORECASE)


def _weak_password(value: str) -> bool:
    """Whether the value after a password's noun, with no verb, is a password: letters and
    digits both, or digits alone, 6 or more (``hunter2``, ``482193``); not an algorithm's
    name (:data:`_ALGORITHM`)."""
    if not value.isalnum() or not value.isascii():
        return False
    if value.isdigit():
        return True
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value) \
        and _ALGORITHM.fullmatch(value.lower()) is None


#: what every match of ``PROSE_BARE`` holds after its noun: a gap, then a token's run of 12
#: (searched once, from the gap's class, before its needles are tried one by one: 100 KB
#: of glued ``secret_``, no gap, cost 14,285 tries of the expression, ~50 ms)
_BARE_RUN: Final = lazy(r"[ \t][A-Za-z0-9][\w+/=~!#$%^&*@-]{11}", re.ASCII)


def might_name_one(text: str, folded: str) -> bool:
    """The pre-test's part for ``PROSE_BARE`` and ``PROSE_NAMED`` in a text with no
    separator: whether an expression of theirs matches at one of its needles
    (:func:`might_state_one`'s way), each tried only where its literals stand."""
    if ("token" in folded or "pass" in folded or "secret" in folded or "key" in folded
            or "pagerduty" in folded or "datadog" in folded) \
            and _BARE_RUN.search(text) is not None and _matched_at_needles((PROSE_BARE,), text):
        return True
    return ("pass" in folded or "pw" in folded
            or (not text.isascii() and _CJK_HINT.search(text) is not None)) \
        and _matched_at_needles((PROSE_NAMED,), text)


def _matched_at_needles(rules: list[Rule] | tuple[Rule, ...], text: str) -> bool:
    """Whether one of ``rules``' expressions matches ``text`` where one of its needles
    stands (one call for them all: a call per rule cost clean claims ~0.4 us a text)."""
    lowered = ascii_lower(text) if rules else text  # the rules' positions: ``text``'s
    for rule in rules:
        for needle in rule.needles:
            at = lowered.find(needle)
            while at != -1:
                if rule.regex.match(text, at) is not None:
                    return True
                at = lowered.find(needle, at + 1)
    return False


def accepts_prose(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the value ``PROSE``, ``PROSE_CJK`` or ``PROSE_BARE`` matched is a credential."""
    # (the value's rules, imported once a shape matched: a text the pre-tests pass, every
    # prompt's hook's, loads none of them, ~1.2M instructions)
    from waymarks.core.secret_values import prose_value_is_secret, setting_is_secret

    if match.lastgroup == "prose_bare":
        return setting_is_secret(match.string[start:end])
    if match.lastgroup == "prose_cjk_words":  # (joined: two parts in Chinese characters)
        parts = _JOINED_PARTS.split(match.string[start:end])
        return len(parts) == 1 or sum(any("\u4e00" <= c <= "\u9fff" for c in part)
                                      for part in parts) >= 2
    value = match.string[start:end]
    if match.lastgroup == "prose_pw":
        if match.group(0)[:6].lower() == "passwd" and _COMMAND_BEFORE.search(
                match.string, max(0, match.start() - 12), match.start()) is not None:
            return False  # (the passwd command's argument: a user's name)
        if _ALGORITHM.fullmatch(value.lower()) is not None:
            return False  # (a hash's, protocol's or character set's name)
        return _weak_password(value) or joined_password(match.string, value, end) \
            or prose_value_is_secret(value, quoted=False, pin=False)
    if match.lastgroup in ("prose_pw_bq", "prose_pw_dq"):  # (a word alone names a field)
        return not value.isalpha() and prose_value_is_secret(value, quoted=True, pin=False)
    if match.lastgroup == "prose_cjk_bare":
        password = match.group("prose_cjk_noun") in _PASSWORD_NOUNS
        if len(value) < _WEAK_MIN:  # "管理员密码 7391，别外传": a PIN's digits, ending a clause
            return password and value.isdigit() and clause_ends(match.string, end)
        return (password and _weak_password(value)) or joined_password(
            match.string, value, end) or prose_value_is_secret(
            value, quoted=False, pin=False, password=password)
    found = match.groupdict()
    if match.lastgroup == "prose" and not pass_names_a_password(match.string, match.start()):
        return False  # "The boarding pass is BA2490.", "The LLVM pass is mem2reg."
    if found.get("prose_colon") is not None and _INSTRUCTION.search(
            match.string, max(0, match.start() - 64), match.start()) is not None:
        return False  # "Reset the password for the admin account: …": a step's heading
    noun = match.string[match.start():match.start() + 2]  # (the expressions start at it)
    password = noun.lower() in _PASSWORD_NOUNS
    pin = found.get("prose_pin") is not None or found.get("prose_pin2") is not None \
        or found.get("prose_lock") is not None
    if password and not pin and match.lastgroup in _DENIED_GROUPS \
            and pass_names_a_password(match.string, match.start(), owned=False) \
            and _POSSESSIVE.search(match.string, match.start(), start) is None:
        from waymarks.core.secret_deny import password_is_denied

        if _ALGORITHM.fullmatch(value.strip("\"'`").lower()) is not None:
            return False  # "the password is utf8mb4 encoded": a character set's name
        denied = password_is_denied(match.string, value, end,
                                    quoted=match.lastgroup not in ("prose", "prose_cjk"))
        if denied is not None:
            return denied
    if password and match.lastgroup in ("prose", "prose_cjk") and not pin \
            and stated_password(match.string, value, end):
        return True
    if noun in _CJK_KEY_NOUNS and match.lastgroup == "prose" \
            and joined_password(match.string, value, end):
        return True  # "密钥是 Tun-Key-Beijing-07": a Chinese key's noun names a secret
    if match.lastgroup == "prose" and _ALGORITHM.fullmatch(value.lower()) is not None:
        return False  # "the password is utf8mb4 encoded": a character set's name
    return prose_value_is_secret(value, quoted=match.lastgroup != "prose", pin=pin,
                                 password=password)


#: a clause that starts with a verb of setting or asking before a qualified noun and its
#: colon: the heading of a step ("Reset the password for the admin account: …"), which a
#: program's prompt rule (:mod:`waymarks.core.secret_prompts`) leaves alone too
_INSTRUCTION: Final = lazy(r"(?:\A|[.;!?\n][ \t]*)(?:reset|change|rotate|set|update|enter|type)"
                           r"[ \t][^.;!?\n]*\Z", re.ASCII | re.IGNORECASE)


#: the words before a bare "pass" that make it a password's noun ("db pass is s3cr3t!",
#: "my pass is hunter2"); after any other word it is a ticket, a permit or a compiler's or
#: reviewer's round ("bus pass", "boarding pass", "day pass", "LLVM pass", "first pass")
_PASS_OWNERS: Final = frozenset({
    "db", "database", "admin", "root", "user", "wifi", "wi-fi", "vpn", "ssh", "ftp", "sftp",
    "sql", "mysql", "postgres", "pg", "redis", "login", "account", "email", "mail", "server",
    "router", "sudo", "api", "app", "my", "your", "our", "his", "her", "their", "staging",
    "prod", "production", "dev"})
#: a bare "pass" (no -word, -wd, -phrase, -code after it) and the word before it, if any
_BARE_PASS: Final = lazy(r"(?:([\w-]+)[ \t]+)?pass(?![A-Za-z0-9])\Z", re.ASCII | re.IGNORECASE)


#: a password's "'s" before the value: a possessive as often as "is" ("a password's noun"),
#: so the value is judged by its shape
_POSSESSIVE: Final = lazy(r"'s[ \t]+['\"`]?\Z")
#: the groups of a value after a password's noun and an assignment, denied by default
_DENIED_GROUPS: Final = frozenset({"prose", "prose_cjk", "prose_dq", "prose_sq", "prose_bq"})


def pass_names_a_password(text: str, at: int, *, owned: bool = True) -> bool:
    """Whether the noun starting at ``at`` names a password: any of its nouns but a bare
    "pass" does; a bare "pass" does starting its text or clause, or after one of
    :data:`_PASS_OWNERS` (``owned`` false: a bare "pass" never does, the noun a value after
    which is denied by default being an explicit one)."""
    if text[at:at + 4].lower() != "pass" or text[at + 4:at + 5].isalnum():
        return True
    if not owned:
        return False  # (a bare "pass": not denied by default)
    bare = _BARE_PASS.search(text, max(0, at - 40), at + 4)
    return bare is None or bare.group(1) is None or bare.group(1).lower() in _PASS_OWNERS


#: passwords set by default or chosen first (vendors' defaults, the most common lists'
#: head): words a sentence leaves alone elsewhere, so one counts only after a password's
#: noun and where it ends its clause ("the router's admin password is admin", "root
#: password = toor"; not "the password is admin only"). Not the noun's own words
#: (``password``, ``pass``, ``passwd``): code's ``self.password = password`` was redacted
DEFAULT_PASSWORDS: Final = frozenset({
    "admin", "administrator", "root", "toor", "letmein", "qwerty", "qwertyuiop", "guest",
    "passw0rd", "p@ssw0rd", "p@ssword", "iloveyou", "monkey", "dragon",
    "trustno1", "postgres", "mysql", "oracle", "raspberry", "changeit", "sunshine",
    "princess", "football", "baseball", "superman", "abc123", "1234", "12345", "123456",
    "1111", "0000", "tomcat", "ubnt", "cisco", "alpine", "vagrant",
    "openelec", "calvin"})
#: Chinese punctuation that ends a clause (。，；！？、）: "root/toor。", "pi:raspberry，默认的")
CJK_STOPS: Final = "[\u3002\uff0c\uff1b\uff01\uff1f\u3001\uff09]"
#: what ends a clause after a value: punctuation (then anything), or the line's end
_CLAUSE_END: Final = lazy(r"[)\]'\"`]*(?:[.,;!?]|[ \t]*(?:\r?\n|\Z)|" + CJK_STOPS + ")")
#: the digits of a passcode ("the passcode is 9931"): as many as a PIN's
_PASSCODE: Final = lazy(r"pass ?code", re.IGNORECASE)


def stated_password(text: str, value: str, end: int) -> bool:
    """Whether ``value``, stated after a password's noun (``text[:end]`` ends with it), is
    the password though prose's test (:func:`prose_value_is_secret`) reads it as a word: a
    weak one, letters and digits both or digits alone (``hunter2``, ``qwe123``; not an
    algorithm's name, :data:`_ALGORITHM`), or one of :data:`DEFAULT_PASSWORDS` where it
    ends its clause; a passcode's 4 digits too."""
    stripped = value.strip("\"'`")
    if (_weak_password(stripped) and len(stripped) >= _WEAK_MIN) \
            or joined_password(text, stripped, end):
        return True
    ends = clause_ends(text, end)
    if stripped.isdigit() and len(stripped) >= _PIN_MIN and ends \
            and _PASSCODE.search(text, max(0, end - 64), end) is not None:
        return True
    return ends and stripped.lower() in DEFAULT_PASSWORDS


#: words or runs of letters and digits joined by hyphens or underscores (``Kq4-Wd8-Mz2``,
#: ``Ora_Prod_07``, ``Temp-7731-Now``): prose's test reads them as hyphenated words
_JOINED: Final = lazy(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)+", re.ASCII)
_JOINED_PARTS: Final = lazy(r"[-_]")


def joined_password(text: str, value: str, end: int) -> bool:
    """Whether ``value``, after a password's noun and ending its clause at ``end``, is a
    password of parts joined by ``-`` or ``_``: 6+ characters, capitals, small letters
    and digits all, every part holding a capital or a digit and none an algorithm's or
    format's name (:data:`_ALGORITHM`). "Kq4-Wd8-Mz2", "Ora_Prod_07", "Lobby-Screen-12"
    go; "Base64-encoded", "OAuth2-Compatible", "SHA-256", ``DB_PASSWORD_2``, "read-only",
    "red-fox-42", "Python3-compatible" stay (each went out in clear before, as these
    still do)."""
    if len(value) < _WEAK_MIN or _JOINED.fullmatch(value) is None \
            or not any(c.isdigit() for c in value) or value.lower() == value \
            or value.upper() == value:
        return False
    parts = _JOINED_PARTS.split(value)
    return all(part.lower() != part or any(c.isdigit() for c in part) for part in parts) \
        and not any(_ALGORITHM.fullmatch(part.lower()) for part in parts) \
        and clause_ends(text, end)


def clause_ends(text: str, at: int) -> bool:
    """Whether a clause of ``text`` ends at ``at`` (:data:`_CLAUSE_END`)."""
    return _CLAUSE_END.match(text, at) is not None


#: a weak password is this long at least (``qwe123``; ``abc12``, ``v1.2``, ``2fa`` stay)
_WEAK_MIN: Final = 6
_PIN_MIN: Final = 4


#: how a password's noun starts (pass…, pw, pwd; 密码/密碼, 口令): a quoted word after it
#: is a password; after a token's, a key's or a secret's it names one ("the token is
#: "include"", "the signing key is "primary"")
_PASSWORD_NOUNS: Final = frozenset({"pa", "pw", "密码", "密碼", "口令"})
#: the Chinese nouns of a secret key (not 令牌, a token): a joined value after one goes
_CJK_KEY_NOUNS: Final = frozenset({"密钥", "密鑰", "秘钥", "秘鑰", "金鑰"})


def might_state_one(text: str, folded: str, colon: bool, equals: bool) -> bool:
    """The pre-test's part for ``PROSE`` and ``PROSE_CJK``: whether an expression of theirs
    matches ``text`` (``folded`` its case-folded form) at one of its needles. Literals
    first: no noun, or no verb nor separator, and none can; an expression is tried only
    where a noun stands, so text that merely names a token or a password ("Rotate the API
    token every 90 days.") does not pay for every other rule."""
    rules = [PROSE_CJK, PROSE_CJK_WORDS] if not text.isascii() and (
        _CJK_HINT.search(text) is not None or (
            ("pass" in folded or "pw" in folded or "secret" in folded or "token" in folded
             or "key" in folded or "PIN" in text or "code" in folded)
            and _CJK_VERB_HINT.search(text) is not None)) else []
    if ("pass" in folded or "pw" in folded or "secret" in folded or "token" in folded
            or "key" in folded or "PIN" in text or "code" in folded) \
            and (colon or equals or " is" in folded or " was" in folded or " are" in folded
                 or " were" in folded or " be" in folded or " remains" in folded
                 or " to " in folded or "'s" in folded or "->" in text or "\u2192" in text):
        rules.append(PROSE)
    return _matched_at_needles(rules, text)
