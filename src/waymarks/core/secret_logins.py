"""A login written as its user and password side by side, and a password set or used in a
sentence whose noun comes after it or after a verb of its own: "login with admin /
admin123", "admin/admin123", "credentials are admin:admin123", "creds: bob / hunter22",
"set the admin password to trustno1", "I set the password to hunter2", "use hunter2 as
the password". Each went to a remote model in clear: the prose rule
(:mod:`waymarks.core.secret_prose`) wants the noun before a verb (``is``, ``=``, ``->``).

- ``login_pair``: a user then ``/`` or ``:`` then its password, where the user is an
  account every system ships (``admin``, ``root``, ``sa``, ``postgres``, …) or follows a
  login's word (login, log in, sign in, creds, credentials, account, username, 账号,
  用户名). The password must read as one: a weak one (letters and digits both, or 6+
  digits: ``admin123``), what prose's test takes (``Tr0ub4dor&3``), or a default
  (``admin``, ``toor``: :data:`waymarks.core.secret_prose.DEFAULT_PASSWORDS`) where it
  ends its clause. An owner and group (``chown root:root``, ``--chown=``, ``--user``), a
  placeholder (``admin:password``), a path (``admin/settings``, ``admin/users``), a role list
  (``admin / viewer``), an image (``postgres:16-alpine``) or a version stay; so does a
  pair inside a longer path or URL (a ``/`` or ``.`` glued before it, a ``/`` after it).
- ``password_set``: after set, change, reset or update and up to four words, a
  password's noun then ``to`` and the value; or ``use`` the value ``as`` the password
  (the noun ending its clause: "use 1Password as the password manager" names a tool).
  The value is judged as after "the password is" (a word such as "expire" stays).

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_prose import (
    CJK_STOPS,
    DEFAULT_PASSWORDS,
    _matched_at_needles,
    clause_ends,
    joined_password,
    pass_names_a_password,
    stated_password,
)
from waymarks.core.secret_tokens import Rule

#: accounts systems ship with, whose name alone says the pair is a login
_USERS: Final = ("admin", "administrator", "root", "sa", "postgres", "guest", "pi",
                 "ubuntu", "elastic", "oracle", "system", "ftp", "tomcat",
                 "manager", "operator", "superuser", "mysql", "rabbitmq", "grafana",
                 "jenkins", "vagrant", "ec2-user", "kibana")
#: Chinese verbs of logging in ("登录 airflow / …": went out in clear)
_CJK_LOGINS: Final = ("\u767b\u5f55", "\u767b\u5165", "\u767b\u9646", "\u767b\u9678")
#: a login's words, then (optionally) "with", "as", "is", "are" or a separator
_CONTEXT: Final = (r"(?:log ?in|sign ?in|creds|credentials|account|username|user"
                   r"|\u8d26\u53f7|\u5e10\u53f7|\u7528\u6237\u540d|" + "|".join(_CJK_LOGINS)
                   + r")(?![A-Za-z])"
                   r"(?:[ \t]*(?:with|as|is|are|=|:|\uff1a)(?![A-Za-z]))?[ \t]*")
#: an ``@`` then a database's or host's name ending at a gap or the end (``@orcl``,
#: ``@//db:1521/svc``): not the rest of a password (``Root@Stage9!``, ``Admin@456``, whose
#: head alone went as the password, judged too short to be one)
_AT_NAME: Final = r"@[A-Za-z/][\w./:-]*(?=[,;)]?(?:[^!-~]|\Z))"
#: a password's characters: no space, quote, backtick, ``/`` or ``\\`` (a string's escaped
#: line break, cloud-init's ``ubuntu:RANDOM\\n``); 4 to 64, then punctuation and a gap, or
#: an ``@`` before a database's or host's name (Oracle's ``system/PASSWORD@db``)
_PASSWORD: Final = (r"(?P<login_pw>[!#-&(-.0-\[\]-_a-~]{4,64}?)"
                    r"(?=[.,;:)!?`'\"]*(?:[^!-~]|\Z)|" + _AT_NAME + ")")

LOGIN_PAIR: Final = Rule("login_pair", "secret", lazy(
    r"(?<![\w./:@-])(?:(?:" + "|".join(_USERS) + r")(?![\w@-])"
    r"|(?<![A-Za-z])" + _CONTEXT + r"[A-Za-z][\w.@-]{0,31}(?<![.-]))"
    r"(?:[ \t]*/[ \t]*|:)(?!//)" + _PASSWORD
    # "try logging into the vpn with mkim and Autumn!Leaf4": a login's verb, then "with" the
    # user "and" the password (judged strong: "sign in with Google and Okta" stays)
    + r"|(?<![A-Za-z])(?:log(?:ging)?|sign(?:ing)?)[ \t]?in(?:to)?(?:[ \t][\w.@-]{1,64}){0,4}?"
    r"[ \t]with[ \t](?:user(?:name)?[ \t])?[A-Za-z][\w.@-]{0,31}[ \t]and[ \t]"
    r"(?P<login_and>[!#-&(-.0-\[\]-_a-~]{6,64}?)(?=[.,;:)!?`'\"]*(?:[^!-~]|\Z))"
    # "user probe, pass Pr0be$77x": a user's word and name, then a password's, a bare
    # "pass" among them, and its value (judged strong): it went out in clear
    r"|(?<![A-Za-z])(?:user(?:name)?|login)[ \t]*[:=]?[ \t]*[A-Za-z][\w.@-]{0,31}[ \t]*[,;]"
    r"[ \t]*(?:pass(?:word)?|passwd|pwd|pw)[ \t]*[:=]?[ \t]*"
    r"(?P<login_user_pass>[!#-&(-.0-\[\]-_a-~]{6,64}?)(?=[.,;:)!?`'\"]*(?:[^!-~]|\Z))",
    re.ASCII | re.IGNORECASE),
    (*_USERS, "log", "sign", "cred", "account", "user",
     "\u8d26\u53f7", "\u5e10\u53f7", "\u7528\u6237\u540d", *_CJK_LOGINS),
    folded=True, anchored=True, wrapper=True)

_NOUN: Final = r"(?:pass(?:word|wd|phrase|code)?|pwd|pw)s?"
#: what it was changed from, up to three words ("changed the admin password from the
#: default to Xq9#mLp2Tz": the rule wanted "to" right after the noun)
_FROM: Final = r"(?: from(?: [^\s]{1,64}){1,3}?)?"
_VALUE: Final = (r"[\"'`]?(?P<set_pw>[!#-&(-\[\]-_a-~]{4,64}?)[\"'`]?"
                 r"(?=[.,;:)!?]*(?:\s|\Z|" + CJK_STOPS + "))")
#: where :data:`PASSWORD_SET`'s noun stands in its match (the last one, the set's or use's)
_NOUN_AT: Final = lazy(r"(?<![A-Za-z])" + _NOUN + r"(?![A-Za-z])", re.ASCII | re.IGNORECASE)
PASSWORD_SET: Final = Rule("password_set", "secret", lazy(
    r"(?<![A-Za-z])(?:(?:set|sets|setting|change|changed|changes|changing|reset|resets"
    r"|update|updated|updates)(?: [\w'-]{1,32}){0,4}? "
    # (or a variable named for it: "set REDIS_PASSWORD to …")
    r"(?:[A-Za-z0-9]{1,32}_){0,3}" + _NOUN + _FROM + r" to[ \t]+" + _VALUE
    + r"|use[ \t]+[\"'`]?(?P<use_pw>[!#-&(-\[\]-_a-~]{4,64}?)[\"'`]?[ \t]+as[ \t]+"
    r"(?:(?:the|a|an|my|your|our|its|their)[ \t]+)?(?:[\w-]{1,32}[ \t]+)?" + _NOUN
    + r"(?=[)\]'\"`]*(?:[.,;!?]|[ \t]*(?:\r?\n|\Z)|" + CJK_STOPS + "))"
    # "grafana admin/admin was changed, it's now …": what a login's password became
    r"|(?:changed|reset|rotated|updated)(?: [\w'/-]{1,32}){0,4}?[,;]?[ \t]+(?:and[ \t]+)?"
    r"(?:now[ \t]+)?(?:it's|it[ \t]+is)"
    r"[ \t]+(?:now[ \t]+)?(?P<now_pw>[!#-&(-\[\]-_a-~]{6,64}?)(?=[.,;:)!?]*(?:\s|\Z)))",
    re.ASCII | re.IGNORECASE),
    ("set", "chang", "reset", "updat", "use", "rotat"), folded=True, anchored=True,
    wrapper=True)
#: what says the thing changed was a login's (its password's noun, a login's word, a
#: shipped account), read from 64 characters before the verb to the value
_LOGIN_BEFORE: Final = lazy(r"(?<![A-Za-z])(?:pass|pwd|pw(?![A-Za-z])|creds?(?![A-Za-z])"
                            r"|credentials|log ?in|sign ?in|account|admin|root)",
                            re.ASCII | re.IGNORECASE)


def accepts_login(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the value ``LOGIN_PAIR`` or ``PASSWORD_SET`` matched is a password."""
    from waymarks.core.secret_values import prose_value_is_secret  # (as secret_prose's)

    value = match.string[start:end]
    if match.lastgroup == "now_pw":  # (a strong value, no number: "it's now 20261207")
        return not value.isdigit() and _LOGIN_BEFORE.search(
            match.string, max(0, match.start() - 64), start) is not None \
            and (prose_value_is_secret(value, quoted=False, pin=False)
                 or joined_password(match.string, value, end))
    if match.lastgroup in ("login_and", "login_user_pass"):
        return prose_value_is_secret(value, quoted=False, pin=False) \
            or joined_password(match.string, value, end)
    if match.lastgroup == "login_pw":
        if value.lower() in _FIELD_NAMES or _owner_before(match.string, match.start()):
            return False  # a placeholder (``admin:password``), an owner (``chown root:root``)
        head = match.string[match.start():start]
        if _BARE_HEAD.fullmatch(head) is not None and not _bare_pair_password(head, value):
            return False  # "admin/users2024", "root/node18", "postgres:postgres"
        # (mid-sentence, a weak one wants two digits: ``admin/admin123``, not the
        # ``admin/settings2`` page)
        return ((sum(map(str.isdigit, value)) >= 2 or clause_ends(match.string, end)) \
            and stated_password(match.string, value, end)) \
            or prose_value_is_secret(value, quoted=False, pin=False)
    nouns = list(_NOUN_AT.finditer(match.group(0)))
    if nouns and not pass_names_a_password(match.string, match.start() + nouns[-1].start()):
        return False  # "use mem2reg as the pass", "set the ski pass to season2024"
    # (the value used "as the password" is followed by its noun, not its clause's end)
    at = end if match.lastgroup == "set_pw" else len(match.string)
    if stated_password(match.string, value, at) or prose_value_is_secret(
            value, quoted=False, pin=False):
        return True
    # set to a value of parts, digits or capitals after a password's own noun: denied by
    # default, as after "the password is" ("set SMTP_PASSWORD to walnut-meadow-71"); a
    # plain lower-case word may be a verb ("set the password to expire")
    if match.lastgroup != "set_pw" or (value.isalpha() and value.islower()) \
            or not nouns or not nouns[-1][0].lower().startswith(_OWN_NOUNS):
        return False
    from waymarks.core.secret_deny import password_is_denied

    return bool(password_is_denied(match.string, value, end, quoted=False))


#: a password's own nouns (a bare "pass" is as often a ticket's)
_OWN_NOUNS: Final = ("password", "passwd", "passphrase", "passcode", "pwd", "pw")


#: a pair's head with no login's word before it: a shipped account, then ``/`` or ``:``
_BARE_HEAD: Final = lazy(r"(?:" + "|".join(_USERS) + r")[ \t]*[/:][ \t]*",
                         re.ASCII | re.IGNORECASE)
#: a pre-release's tag: a version then alpha, beta, rc, … (``pg15beta2``, ``16rc1``,
#: ``3.13.0a4``): prose's test read its switches of letters and digits as a password's
_PRERELEASE: Final = lazy(r"[a-z]{0,12}[0-9]+(?:\.[0-9]+)*[-.]?"
                          r"(?:alpha|beta|rc|dev|pre|preview|post|a|b)[0-9]*(?:[-.][a-z0-9]+)?")
#: groups a file's owner is written with (``root:wheel``, ``root:admin``, ``www-data``)
_GROUPS: Final = frozenset({*_USERS, "wheel", "staff", "docker", "users", "adm", "sudo",
                            "www-data", "nogroup", "nobody", "daemon", "admin"})
#: what a weak password's letters are, in a pair no login's word introduces (after
#: :data:`_LEET` undoes a digit or symbol for a letter): the account's own name, a default
#: password (:data:`DEFAULT_PASSWORDS`), a password's noun, a keyboard's row, a season
_WEAK_STEMS: Final = ("pass", "pwd", "pw", "qwe", "asd", "zxc", "abc", "test", "welcome",
                      "changeme", "secret", "hello", "hunter", "summer", "winter", "spring",
                      "autumn", "letmein", "admin", "master", "login")
_LEET: Final = str.maketrans("013457@$", "oieastas")


def _bare_pair_password(head: str, value: str) -> bool:
    """Whether ``value``, after a shipped account and ``/`` or ``:`` with no login's word
    before them (``head``), reads as that account's password and not as a path's segment,
    an image's tag or a group: "admin/admin123", "pi:raspberry", "root/123456",
    "admin/hunter22", "tomcat/s3cret" go; "admin/users2024", "root/node18",
    "guest/room101", "ubuntu:focal20240123" (another word and a number: a page, a tag)
    and "postgres:postgres", "root:wheel" (a colon before an account or a group: a file's
    owner; "admin:admin" goes, admin owns no files) stay."""
    lowered = value.lower()
    user = head.rstrip(" \t/:").lower()
    if head.rstrip(" \t").endswith(":") and lowered in _GROUPS \
            and (user, lowered) != ("admin", "admin"):
        return False
    if head.rstrip(" \t").endswith(":") and _PRERELEASE.fullmatch(lowered) is not None:
        return False  # "postgres:pg15beta2": an image's pre-release tag
    from waymarks.core.secret_values import prose_value_is_secret

    if prose_value_is_secret(value, quoted=False, pin=False) or lowered in DEFAULT_PASSWORDS:
        return True
    if value.isdigit():
        return len(value) >= 6
    if value[0].isdigit() and value[-1].isalpha():
        return True  # "1234abcd": no page or tag is numbered before its word
    letters = lowered.rstrip("0123456789!#$%&*?.").translate(_LEET)
    return letters == user or letters in DEFAULT_PASSWORDS \
        or any(letters.startswith(stem) for stem in _WEAK_STEMS)


#: what gives a file or a process its owner and group, ``USER:GROUP``, before the pair on
#: its line (``chown -R postgres:postgres .``, ``COPY --chown=root:root``, ``--user``)
_OWNER: Final = lazy(r"(?:chown|chgrp|--user|(?-i:USER))\b[^\n]*\Z",
                     re.ASCII | re.IGNORECASE)


def _owner_before(text: str, at: int) -> bool:
    """Whether :data:`_OWNER` stands before ``at`` on its line, 64 characters back
    (literals first: a run of pairs searched it for each)."""
    before = text[max(0, at - 64):at]
    folded = before.lower()
    return ("own" in folded or "grp" in folded or "user" in folded) \
        and _OWNER.search(before) is not None


#: a field's name where a pair's password would stand: the pair is a placeholder
_FIELD_NAMES: Final = frozenset({"password", "passwd", "pass", "pwd", "secret", "token"})


#: the characters every login pair holds between its user and its password
_PAIR_HINT: Final = lazy(r"[A-Za-z0-9][ \t]*[/:][ \t]*[!#-&(-.0-~]", re.ASCII)


def might_log_in(text: str, folded: str) -> bool:
    """The pre-test's part for both rules: their literals, then their expressions where
    those stand (:func:`waymarks.core.secret_prose.might_state_one`'s way)."""
    rules: list[Rule] = []
    if (("/" in text or ":" in text) and _PAIR_HINT.search(text) is not None) \
            or (" with " in text and " and " in text and ("log" in folded or "sign" in folded)) \
            or (("user" in folded or "login" in folded) and ("," in text or ";" in text)
                and ("pass" in folded or "pw" in folded)):
        rules.append(LOGIN_PAIR)
    if " to " in folded or " as " in folded or "it" in folded:
        rules.append(PASSWORD_SET)
    return bool(rules) and _matched_at_needles(rules, text)
