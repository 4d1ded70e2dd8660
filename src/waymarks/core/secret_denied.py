"""Deny by default, in general: after a credential's noun, a clause about it and an
assignment, the value is a credential unless it is recognisably not one. Narrow rules (one
shape each) left strangers' sentences in clear: "ldap bind pw in the old ansible inventory
was literally Summer2019", "The temp password we issued was Blue-Kettle-19", "the jenkins
agent secret is 1.4.2", "VPN 口令：海上生明月", "door code 从 1111 改成 5092".

- the noun (:data:`_NOUN`): a password's (password, passwd, passphrase, passcode, pwd,
  pw, and common typos: pasword, passowrd, passwrod, pssword), a secret, a token, creds,
  credentials, a key with a credential's qualifier (api, auth, access, secret, private,
  unseal, license, webhook, deploy, signing, encryption, master, recovery, pre-shared,
  wifi, wpa, psk), a bare "pass" (judged by the value's shape only: "pass" is a verb as
  often); a PIN, and a code of a thing that opens or arms (alarm, door, gate, keypad, safe,
  lock, voicemail, bridge, …; the device's word alone too): digits only, 4 to 12; in
  Chinese 密码, 密碼, 口令, 密钥, 秘钥, PIN 码, 门禁码. A camelCase name's last word counts
  (``storePassword``), a snake_case one's does not (``password_min_length`` is a setting);
- between noun and assignment (:data:`_CLAUSE`): nothing, a parenthesis, or a clause that
  opens with a preposition or pronoun ("for the ops user on the bastion", "we issued",
  "at the lab", "it authenticates with"), up to 12 words, no sentence or clause
  punctuation. A noun followed by another noun ("token TTL", "password length", "secret
  sauce", "key rotation") is about that property, never followed;
- the assignment: is, was, are, became, remains, ``:``, ``=``, ``->``, now, set/changed
  to, "is still/now/literally"; 是, 就是, 为, 改成, 换成, 现在是, ``：``. "was X, now Y"
  and "from X to Y" (从 X 改成 Y) give both values (:data:`THEN`, :data:`FROM`);
- the value: a quoted phrase whole (spaces kept), digits (a PIN, spaced or dashed), or
  the next token, a version- or date-shaped one too ("the grafana admin pw is 3.2.1-final");
  Chinese words after a colon ("VPN 口令：海上生明月"); a login's pair after
  login/creds/credentials/登录/账号 ("vpn creds: jli / ferret.Mango.88"): its second half.

Not a value (kept): a placeholder (``<…>``, ``${…}``, ``$(…)``, ``***``, xxx,
your-password), a reference (in 1Password, the vault, ``secret/…``, an environment
variable's name, a path, a URL), a word of state or property (stale, expired, wrong,
required, long, "16 characters"), an article, pronoun or preposition, a lower-case word the
sentence goes on after (:func:`waymarks.core.secret_deny.password_is_denied`), and anything
after a documented default ("the default login is admin/admin", "默认账号是 admin/admin").
A value right after the noun with no assignment ("pw w9!Tq4Zr", "密码 Epson2021!") is
judged by its shape only (:func:`waymarks.core.secret_values.prose_value_is_secret`), and
code's ``password = password`` keeps its shape rule.

Pure: regular expressions with bounded repeats only (linear on repeated input), no I/O.
"""

from __future__ import annotations

import re
from typing import Final

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_tokens import Rule

_KEY_QUALIFIERS: Final = ("api", "auth", "access", "secret", "private", "unseal", "license",
                          "licence", "webhook", "deploy", "signing", "encryption", "master",
                          "recovery", "pre-shared", "preshared", "shared", "wifi", "wi-fi",
                          "wpa", "wpa2", "psk", "ssid")
_DEVICES: Final = ("alarm", "door", "gate", "keypad", "safe", "lock", "locker", "garage",
                   "voicemail", "bridge", "intercom", "lockbox", "padlock", "entry")
#: a password's nouns (typos included); longer first, so the alternation takes the longest
_PASSWORDS: Final = ("passwords", "password", "passwrod", "passowrd", "pasword", "pssword",
                     "passwd", "passwrd", "paswd", "passphrase", "passcode", "pwd", "pw")
#: where a noun may start: not inside a word or a snake_case name; a camelCase name's word
_START: Final = r"(?:(?<![A-Za-z0-9_])|(?-i:(?<=[a-z])(?=[A-Z])))"
_NOUN: Final = (
    r"(?P<dn>" + _START + r"(?:"
    + "|".join(_PASSWORDS)
    + r"|(?:" + "|".join(_KEY_QUALIFIERS) + r")(?:[ _-]?|[ ]?的[ ]?)keys?"
    + r"|pass|secrets?|tokens?|creds|credentials"
    + r"|(?:pin|" + "|".join(_DEVICES) + r")(?:[ ]?(?:code|pin|passcode|combination"
    r"|combo))?s?)"
    r"(?![A-Za-z0-9_-])"
    r"|密码|密碼|口令|密钥|密鑰|秘钥|秘鑰|PIN[ ]?码|PIN[ ]?碼|门禁码|門禁碼)")
#: the noun of a login's pair
_LOGIN: Final = (r"(?P<dn>(?<![A-Za-z0-9_])(?:login|creds|credentials|account)(?![A-Za-z0-9_-])"
                 r"|登录|登錄|账号|帳號|帐号)")
_OPENERS: Final = ("for", "of", "on", "at", "in", "to", "with", "that", "which", "who",
                   "we", "you", "i", "they", "it", "he", "she", "my", "our", "your", "their")
_WORD: Final = r"[^\s.,;!?:=()]{1,40}(?:\.[^\s.,;!?:=()]{1,40}){0,3}"
_CLAUSE: Final = (r"(?:[ \t]*\([^()\n]{0,120}\))?"
                  r"(?:[ \t]+(?:" + "|".join(_OPENERS) + r")(?:[ \t]+" + _WORD
                  + r"){0,12}?(?:[ \t]*\([^()\n]{0,120}\))?)?")
#: a Chinese clause: 的, or words before a colon ("数据库密码看起来像版本号：2.7.15")
_CJK_CLAUSE: Final = r"(?:[ \t]*的|[\u3400-\u9fff]{1,12}?(?=[ \t]*[:：]))?"
_EN_ASSIGN: Final = (r"(?:[ \t]*(?::|=|->|\u2192)[ \t]*(?:(?:was|is|now)[ \t]+)?"
                     r"|[ \t]+(?:is|was|are|were|became|becomes|remains|stays)(?![\w-])"
                     r"(?:[ \t]+(?:still|now|just|literally|simply|actually|really"
                     r"|(?:set|changed) to)(?![\w-]))?[ \t]*:?[ \t]*"
                     # the value named as a word or string ("is literally the word 'Password1'")
                     r"(?:the[ \t]+(?:word|string|phrase)[ \t]+)?"
                     r"|[ \t]+(?:now|(?:(?:was|is|got|has[ \t]+been)[ \t]+)?(?:set|changed"
                     r"|reset|updated|rotated)[ \t]+to)[ \t]+)")
_CJK_ASSIGN: Final = (r"[ \t\u3000]*(?:现在是|現在是|就是|是|为|為|改成了?|换成了?|換成了?"
                      r"|改为|改為|设为|設為|设成|設成|[:：=＝])[ \t\u3000]*")
_BARE: Final = r"[ \t]+"
#: the value: a quoted phrase (its quotes outside the span, as the other rules keep them),
#: digits spaced or dashed, or a token (its last character no clause punctuation); ends
#: before a space, a parenthesis, CJK text or the text's end. :data:`_OPEN` goes before the
#: group, :data:`_VALUE` is the group's body, :data:`_CLOSE` after it
_OPEN: Final = "['\"`\u201c\u2018]?"
_VALUE: Final = (r"(?:(?<=')[^'\n]{3,80}(?=')|(?<=\")[^\"\n]{3,80}(?=\")|(?<=`)[^`\n]{3,80}(?=`)"
                 r"|(?<=\u201c)[^\u201d\n]{3,80}(?=\u201d)|(?<=\u2018)[^\u2019\n]{3,80}(?=\u2019)"
                 r"|[0-9]{1,8}(?:[ -][0-9]{1,8}){1,5}(?=[.,;:!?)]*(?:[\s(]|[^\x00-\x7f]|\Z))"
                 r"|[!#-&*-~]{2,127}[!#-&*+\-/-9<-~](?=[.,;:]*(?:[\s(]|[^\x00-\x7f]|\Z)))")
_CLOSE: Final = "['\"`\u201d\u2019]?"
_CJK_VALUE: Final = r"[\u3400-\u9fff]{3,24}(?=[，。；！？、\s]|\Z)"
_PREFIX: Final = (_NOUN + r"(?:" + _CLAUSE + _EN_ASSIGN + "|" + _CJK_CLAUSE + _CJK_ASSIGN
                  + "|" + _BARE + ")")
_FLAGS: Final = re.ASCII | re.IGNORECASE
_NEEDLES: Final = ("pas", "pss", "pw", "secret", "token", "cred", "key", "pin", *_DEVICES,
                   *_KEY_QUALIFIERS, "密码", "密碼", "口令", "密钥", "密鑰", "秘钥", "秘鑰",
                   "门禁码", "門禁碼")

DENIED: Final = Rule("denied", "secret", lazy(
    _PREFIX + _OPEN + r"(?P<denied>" + _VALUE + ")", _FLAGS),
    _NEEDLES, folded=True, anchored=True, wrapper=True)
#: the second value of "was X, now Y", "from X to Y", "从 X 改成 Y"
THEN: Final = Rule("denied_then", "secret", lazy(
    _NOUN + r"(?:" + _CLAUSE + r"(?:" + _EN_ASSIGN + r"|[ \t]+from[ \t]+)|"
    + _CJK_CLAUSE + r"(?:" + _CJK_ASSIGN + r"|[ \t]*从[ \t]*))" + _OPEN
    + r"(?P<first>" + _VALUE + r")" + _CLOSE
    + r"(?:[ \t]*,?[ \t]*(?:and[ \t]+)?now[ \t]+|[ \t]+to[ \t]+"
    r"|[ \t]*(?:改成|换成|換成|改为|改為)了?[ \t]*)" + _OPEN + r"(?P<denied_then>" + _VALUE + ")",
    _FLAGS),
    _NEEDLES, folded=True, anchored=True, wrapper=True)
#: the first value of "from X to Y" (从 X 改成 Y)
FROM: Final = Rule("denied_from", "secret", lazy(
    _NOUN + r"(?:" + _CLAUSE + r"[ \t]+from[ \t]+|" + _CJK_CLAUSE + r"[ \t]*从[ \t]*)"
    + _OPEN + r"(?P<denied_from>" + _VALUE + r")" + _CLOSE
    + r"(?=[ \t]+to[ \t]+|[ \t]*(?:改成|换成|換成|改为|改為))",
    _FLAGS), _NEEDLES, folded=True, anchored=True, wrapper=True)
#: Chinese words after a colon ("VPN 口令：海上生明月")
CJK_WORDS: Final = Rule("denied_cjk", "secret", lazy(
    _NOUN + r"[^\s，。；！？,;!?\n]{0,12}?[ \t]*[:：][ \t\u3000]*(?P<denied_cjk>"
    + _CJK_VALUE + ")", _FLAGS), _NEEDLES, folded=True, anchored=True, wrapper=True)
#: a login's pair: its second half
PAIR: Final = Rule("denied_pair", "secret", lazy(
    _LOGIN + r"(?:" + _CLAUSE + _EN_ASSIGN + "|" + _CJK_ASSIGN + "|" + _BARE + r")"
    r"[^\s/]{1,64}[ \t]*/[ \t]*" + _OPEN + r"(?P<denied_pair>" + _VALUE + ")", _FLAGS),
    ("login", "cred", "account", "登录", "登錄", "账号", "帳號", "帐号"), folded=True,
    anchored=True, wrapper=True)

RULES: Final = (DENIED, THEN, FROM, CJK_WORDS, PAIR)
NAMES: Final = frozenset(rule.name for rule in RULES)


def might_hold(text: str, folded: str) -> bool:
    """The pre-test's part: each rule's expression where one of its needles stands
    (``folded`` is ``text`` ASCII-lower-cased: the same places)."""
    for rule in RULES:
        for needle in rule.needles:
            at = folded.find(needle)
            while at != -1:
                if rule.regex.match(text, at) is not None:
                    return True
                at = folded.find(needle, at + 1)
    return False


#: a documented default before the noun ("the default login is admin/admin", "Default admin
#: password for the dev stack", "默认账号是 admin/admin"): an example, kept
_DEFAULT: Final = lazy(r"(?:\bdefault|默认|默認)[^.;!?\n。；]{0,24}\Z", re.IGNORECASE)
#: a code's or PIN's noun: its value is digits only
_DIGITS_NOUN: Final = lazy(r"(?:pin|门禁|門禁|" + "|".join(_DEVICES) + r")", re.IGNORECASE)
_CODE_DIGITS: Final = (4, 12)
#: Chinese characters of a sentence's grammar, never in a password of Chinese words after
#: a colon ("密码：请联系管理员", "口令：见 wiki"), and Chinese words of a state or property
_CJK_GRAMMAR: Final = frozenset("的了吗呢吧在请要见与和或及由从向把被用会能"
                                "可应该需无没参看找问已未")
_CJK_STATES: Final = ("必填", "错误", "錯誤", "过期", "過期", "加密", "为空", "為空", "相同",
                      "一样", "一樣", "正确", "正確", "无效", "無效", "隐藏", "隱藏", "同上")
#: nouns whose value is judged by its shape: a bare "pass" (a verb as often), a token, a
#: secret or a key (after "is", as often a description: "the token is Bearer+JWT")
_SHAPED: Final = lazy(r"(?:pass|secret|token|[a-z-]+[ _-]?(?:的[ ]?)?key)s?\Z", re.IGNORECASE)
#: a word pointing elsewhere ("pw: see 1Password", "token: ask Marco")
_POINTING: Final = frozenset({"see", "ask", "check", "refer", "use", "get", "read", "find",
                              "look", "via", "per"})
_QUOTES: Final = "'\"`\u201c\u2018"


def denied_is_secret(match: re.Match[str], start: int, end: int) -> bool:
    """Whether the value a rule of this module matched (``start:end``) is a credential:
    anything but what this module's docstring lists as harmless."""
    from waymarks.core.secret_deny import password_is_denied
    from waymarks.core.secret_prose import _ALGORITHM, joined_password
    from waymarks.core.secret_values import _VERSION_OR_DATE, prose_value_is_secret

    text = match.string
    noun_start, noun_end = match.span("dn")
    if _DEFAULT.search(text, max(0, noun_start - 32), noun_start) is not None:
        return False
    value = text[start:end]
    if match.lastgroup == "denied_cjk":
        return not (_CJK_GRAMMAR.intersection(value) or any(s in value for s in _CJK_STATES))
    quoted = start > 0 and text[start - 1] in _QUOTES
    bare = value
    if _DIGITS_NOUN.match(text, noun_start, noun_end) is not None:
        digits = bare.replace(" ", "").replace("-", "")
        return digits.isdigit() and _CODE_DIGITS[0] <= len(digits) <= _CODE_DIGITS[1]
    if match.lastgroup in ("denied_then", "denied_from") and _kind_changed(match, start, end):
        return False
    gap = text[noun_end:start]
    if gap.strip() in (":", "=") and not text[text.rfind("\n", 0, noun_start) + 1:
                                               noun_start].strip(" \t-#'\"*"):
        return False  # a key: value line ("password: …"), the configuration rules' to judge
    if _VERSION_OR_DATE.fullmatch(bare) is not None and gap.strip() \
            and sum(c.isdigit() for c in bare) >= 3:
        return True  # "the jenkins agent secret is 1.4.2": right after the assignment
    if _SHAPED.match(text, noun_start, noun_end) is not None:
        return False  # (the prose rule judges a token's, secret's or key's value)
    if not gap.strip() and match.lastgroup == "denied":
        return prose_value_is_secret(bare, quoted=False, pin=False) \
            or joined_password(text, bare, end) or _mixed_at_clause_end(text, bare, end)
    if _ALGORITHM.fullmatch(bare.lower()) is not None or bare.lower() in _POINTING \
            or (not any(c.islower() for c in bare) and "-" in bare
                and any(part.isalpha() for part in bare.split("-"))):
        return False  # "3600s", "AES-256-GCM", "pw: see 1Password"
    verdict = password_is_denied(text, value, end, quoted=quoted)
    if verdict is None:  # code's ``password = raw``: judged by its shape
        return prose_value_is_secret(bare, quoted=quoted, pin=False)
    return verdict


#: the second value of "from X to Y", after the first (:data:`FROM`)
_TO: Final = lazy(_CLOSE + r"(?:[ \t]+to[ \t]+|[ \t]*(?:改成|换成|換成|改为|改為)了?[ \t]*)" + _OPEN
                  + r"(" + _VALUE + ")",
                  re.ASCII | re.IGNORECASE)
_ACRONYM: Final = lazy(r"[A-Z]{2,5}[0-9]{0,4}|[a-z]+", re.ASCII)


def _kind_changed(match: re.Match[str], start: int, end: int) -> bool:
    """Whether "from X to Y" (or "was X, now Y") tells a change of kind, not of value: either
    side an algorithm's or format's name ("the deploy key from RSA to ed25519"), an
    acronym or a lower-case word ("from file to vault")."""
    from waymarks.core.secret_prose import _ALGORITHM

    text = match.string
    if match.lastgroup == "denied_then":
        sides = [match.group("first"), text[start:end]]
    else:
        after = _TO.match(text, end)
        sides = [text[start:end], after.group(1) if after is not None else ""]
    return any(_ALGORITHM.fullmatch(side.lower()) is not None
               or _ACRONYM.fullmatch(side) is not None for side in sides)


#: a value right after the noun, no assignment, that ends its clause: this long at least
_MIXED_MIN: Final = 6
_CLAUSE_END: Final = lazy(r"[ \t]*(?:[.,;!?)]|\r?\n|\Z|[^\x00-\x7f])")


def _mixed_at_clause_end(text: str, value: str, end: int) -> bool:
    """Whether ``value``, right after a credential's noun with no verb ("旧密码 Lao-mima-01
    已经停用"), holds letters and digits both, 6+ characters, and ends its clause: a
    value named, not a word of the sentence. A version or date stays."""
    from waymarks.core.secret_values import _VERSION_OR_DATE, is_reference

    return len(value) >= _MIXED_MIN and any(c.isdigit() for c in value) \
        and any(c.isalpha() for c in value) and _CLAUSE_END.match(text, end) is not None \
        and _VERSION_OR_DATE.fullmatch(value) is None and not is_reference(value)
