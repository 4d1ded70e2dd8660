"""What counts as a credential's value where only its place says it is one: after a
credential's name in an assignment or flag (``password: postgres``, ``--token …``; judged
by :func:`_looks_like_secret`), or after a credential's noun in a sentence ("the staging
password is Tr0ub4dor&3"; judged more strictly by :func:`prose_value_is_secret`, since
prose says "the password is stored in Vault"). Used by :mod:`waymarks.core.secret_checks`.

Pure: ASCII regular expressions only, no I/O, no state.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import pairwise
from typing import Final

from waymarks.core.lazy_re import lazy

#: a phrase starting so stands for a value to come, not one
_PLACEHOLDERS: Final = frozenset({"todo", "fixme", "tbd", "xxx", "placeholder", "changeme",
                                  "example", "none", "null", "redacted", "n/a"})

#: assignment values that are types, literals or words standing for "no value"
_NOT_SECRETS: Final = frozenset({
    "null", "none", "nil", "true", "false", "undefined", "str", "string", "bytes", "int",
    "number", "bool", "boolean", "any", "unknown", "optional", "secretstr", "redacted",
    "required", "example", "changeme", "your_password", "your-password", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
    "float64", "base64", "sha1", "sha256", "sha512", "md5", "utf8", "utf-8", "ascii",
})
#: values that refer to a secret held elsewhere (variables, templates, code, YAML tags),
#: and the next flag of a command line (``--token --verbose``)
_REFERENCE_PREFIXES: Final = (
    "$", "%", "{", "<", "[", "!", "--", "os.environ", "os.getenv", "process.env", "env.",
    "getenv", "self.", "this.", "config.", "settings.", "secrets.", "vars.", "input(",
)
#: a path: absolute, from home or here, or relative and ending in a file's extension
#: (``uploads/2024/avatar_7.png``, a bucket's object key; ``certs/client.key``)
_PATH: Final = lazy(r"(?:/|\./|\.\./|~/|[A-Za-z]:[\\/])[\w./~\\-]*"
                    r"|[\w.-]+(?:[\\/][\w.-]+)+\.[A-Za-z][A-Za-z0-9]{0,4}", re.ASCII)
_VERSION_OR_DATE: Final = lazy(r"[vV]?[0-9]+(?:[.:/-][0-9]+)+(?:[-+.][0-9A-Za-z.]+)?",
                                     re.ASCII)
_WORDS: Final = lazy(r"[A-Za-z]+(?:[._:-][A-Za-z]+)*", re.ASCII)
#: dotted or snake_case code: ``s3_client.token``, ``utf8_codec`` (each part a word)
_CODE_NAME: Final = lazy(r"[A-Za-z][a-z]*[0-9]{0,2}(?:[._][A-Za-z][a-z]*[0-9]{0,2})+",
                               re.ASCII)
#: names in code joined by ``||``, ``&&`` or ``??`` (minified JavaScript's
#: ``withCredentials:i.credentials||S.credentials``): an expression, not a value
_CODE_FALLBACKS: Final = lazy(r"[A-Za-z_$]+(?:\.[A-Za-z_$]+)*"
                              r"(?:(?:\|\||&&|\?\?)[A-Za-z_$]+(?:\.[A-Za-z_$]+)*)+", re.ASCII)
#: how a name for a credential ends: a value ending so is a variable, not a secret (and
#: what a login is given, named so: ``self.auth: MultiDomainBasicAuth``, a type in camel
#: case, read as random letters once ``auth`` named a credential)
_NAME_ENDS: Final = ("key", "secret", "token", "password", "passwort", "passwd",
                     "passphrase", "pwd", "pass", "auth", "credential", "credentials")
#: mixed-class values shorter than this are too weak a signal ("ab12")
_MIXED_MIN: Final = 6
_RANDOM_LETTERS_MIN: Final = 16


#: a credential's name (password, token, secret, key) as interfaces translate it: an
#: i18n file's value under such a key is its label (``"password": "Mot de passe"``), as
#: ``"Password"`` or ``"Access token"`` is in English
_TRANSLATED_NAMES: Final = frozenset({
    # password
    "mot de passe", "passwort", "kennwort", "contraseña", "contrasena", "clave de acceso",
    "senha", "palavra-passe", "wachtwoord", "hasło", "haslo", "пароль", "parola", "parolă",
    "lösenord", "losenord", "adgangskode", "passord", "salasana", "heslo", "jelszó", "şifre",
    "sifre", "mật khẩu", "kata sandi", "kata laluan", "lozinka", "geslo", "slaptažodis",
    "parool", "κωδικός", "סיסמה", "كلمة المرور", "パスワード", "비밀번호", "รหัสผ่าน",
    "पासवर्ड", "পাসওয়ার্ড", "கடவுச்சொல்",
    # token, secret, key
    "jeton", "geheimnis", "secreto", "segredo", "segreto", "geheim", "clé", "cle",
    "schlüssel", "clave", "chave", "chiave", "sleutel", "klucz", "ключ", "nyckel", "nøgle",
    "avain", "klíč", "kulcs", "anahtar", "токен", "секрет",
})
#: what parts a label's words (its punctuation: ``Mot de passe oublié ?``)
_LABEL_MARKS: Final = str.maketrans(dict.fromkeys(".:!?¿¡,;…()«»“”\"'", " "))
#: the marks a script's letters take (a vowel sign, a virama): no letters alone for
#: ``str.isalpha`` (nonspacing and spacing combining marks)
_LETTER_MARKS: Final = ("Mn", "Mc")
#: a label is this many words at most
_LABEL_WORDS_MAX: Final = 8


def translated_label(value: str) -> bool:
    """Whether ``value`` is an interface's label naming a credential in another language
    (``Mot de passe``, ``Contraseña``, ``Mot de passe oublié ?``, ``Clé API``): a few
    words of letters alone (a hyphen may join them), one of them, or a run of them, a
    credential's name as :data:`_TRANSLATED_NAMES` holds it. A password with a digit or
    symbol beside such a word (``Passwort123!``) is none."""
    words = value.translate(_LABEL_MARKS).lower().split()
    if not words or len(words) > _LABEL_WORDS_MAX or not all(map(_letters, words)):
        return False
    # each run of its words looked up (each of the names looked for in the phrase, built
    # for each, cost 100 KB of ``Password: `` 127 ms of its 320)
    return _names_one(words) or (any("-" in word for word in words) and _names_one(
        " ".join(words).replace("-", " ").split()))  # ``API-Schlüssel``: joined to another


#: the most words a name of :data:`_TRANSLATED_NAMES` has
_NAME_WORDS_MAX: Final = max(len(name.split()) for name in _TRANSLATED_NAMES)


def _names_one(words: list[str]) -> bool:
    """Whether a run of ``words`` is one of :data:`_TRANSLATED_NAMES`."""
    return any(" ".join(words[at:at + size]) in _TRANSLATED_NAMES
               for size in range(1, _NAME_WORDS_MAX + 1) for at in range(len(words) - size + 1))


def _letters(word: str) -> bool:
    """Whether ``word`` is letters alone, a hyphen joining them, and the marks its
    script's letters take (Thai's vowels, Devanagari's: ``รหัสผ่าน``, ``पासवर्ड``)."""
    return all(c.isalpha() or c == "-" or unicodedata.category(c) in _LETTER_MARKS
               for c in word) and any(c.isalpha() for c in word)


def is_reference(value: str) -> bool:
    """Whether a value only says where a credential is kept (``$PW``, ``os.environ[...]``,
    ``secrets.X``) or masks one (``****``, ``xxxx``): nothing to redact."""
    folded = value.lower()
    return folded.startswith(_REFERENCE_PREFIXES) or folded.strip("*x.•#_-") == ""


#: a URL's or DSN's password that names the field instead of holding it (``USER:PASSWORD@``)
#: (in the languages a template is written in too: "mysql://用户名:密码@主机:端口/库名" is a
#: format, the password's noun where the password goes, and went out redacted)
_FIELD_NAMES: Final = frozenset({"password", "passwd", "pass", "pwd", "secret", "token",
                                 "密码", "密碼", "口令", "密钥", "密鑰", "パスワード", "비밀번호",
                                 "passwort", "kennwort", "contraseña", "senha", "пароль",
                                 "mot_de_passe", "motdepasse", "wachtwoord", "parola",
                                 "hasło", "lösenord", "salasana", "heslo", "jelszó"})


def _looks_like_secret(value: str, data: bool, alone: bool) -> bool:
    """The value of a credential-named assignment is a secret unless it is evidently not.

    Not secrets: types and literals (``str``, ``None``, ``Token``), references
    (``$TOKEN``, ``os.environ…``, ``{{ … }}``, ``<your-key>``), masks (``****``), paths,
    URLs, versions and dates, code names (``vault.token``, ``s3_client``, ``api_key``)
    and prose (``password: see the vault``). Secrets: 6+ digits; 6+ characters mixing
    letters, digits or symbols; 16+ random-looking letters (case changing at least every
    third letter); and a single word where it is data, not prose: quoted, after ``=``
    with no spaces, after a flag, or ``alone`` as the value of a key-value line
    (``password: postgres``)."""
    if name_like(value):
        return False
    if len(value) < 4 or value.lower() in _NOT_SECRETS or is_reference(value) \
            or ((not value.isascii() or value.replace("-", "").isalpha())
                and translated_label(value)):
        return False
    if "://" in value or (_PATH.fullmatch(value) and not _random_segment(value)):
        return False
    if value.isdigit():
        return len(value) >= _MIXED_MIN
    if _VERSION_OR_DATE.fullmatch(value) or _CODE_NAME.fullmatch(value) \
            or _CODE_FALLBACKS.fullmatch(value):
        return False
    if not _WORDS.fullmatch(value):
        return len(value) >= _MIXED_MIN
    if not value.isalpha() or value.lower().endswith(_NAME_ENDS):
        return False  # a dotted or snake_case name, or a variable named for a credential
    if len(value) >= _RANDOM_LETTERS_MIN and _case_changes(value) * 3 >= len(value):
        return True
    # alone on its line, one case: "postgres"; not "Token" (a type), "getToken" (code)
    return data or (alone and (value.islower() or value.isupper()))


def name_like(value: str) -> bool:
    """Whether ``value`` is words of ASCII letters joined by ``.``, ``_``, ``:`` or ``-``,
    more than one or ending as a credential's name does (``api_key``, ``secret``): what
    :func:`_looks_like_secret` declines whatever its place, told first and cheaply (a
    text of glued ``secret=`` judged 14,285 values ``secret``, the label test each time)."""
    return value.isascii() and _WORDS.fullmatch(value) is not None and (
        not value.isalpha() or value.lower().endswith(_NAME_ENDS))


def _random_segment(path: str) -> bool:
    """A path segment mixing upper case, lower case and digits: base64 that starts with /."""
    return any(len(part) >= 8 and not part.isalpha() and not part.islower()
               and not part.isupper() for part in re.split(r"[/\\]", path))


def _case_changes(word: str) -> int:
    return sum(a.isupper() != b.isupper() for a, b in pairwise(word))



#: an e-mail address, or an environment variable's name (``SECRET_KEY``): where a
#: credential is sent or kept, not one
_ADDRESS_OR_VARIABLE: Final = lazy(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", re.ASCII)
#: what splits a value stated in prose into parts judged one by one (``256-bit``,
#: ``JWT-based``, ``read/write``, ``vault:kv``); any other symbol makes it a secret
_PART_SEPARATORS: Final = lazy(r"[-_./:]")
#: a call or subscript in code (``pw = urllib.parse.unquote(pw)``, Python's ``token is
#: weak_ref()``, ``assert token is tokens[0]``, ``pw = sys.argv[1]``, ``list[str]``)
_CALL: Final = lazy(r"[A-Za-z_][\w.]*[(\[]", re.ASCII)
_SYMBOL: Final = lazy(r"[^A-Za-z0-9_./:-]")
#: what joins the words of a value (``Bearer+JWT``): any run of other characters
_JOINS: Final = lazy(r"[^A-Za-z0-9]+", re.ASCII)
#: a plain word: lower case, capitalised or CamelCase with two lower-case letters or more
#: a hump (``read``, ``Bearer``, ``HttpOnly``), or capitals (``JWT``); not ``Pa``, ``mQpLr``
_PLAIN_WORD: Final = lazy(r"[A-Z]?[a-z]{2,}(?:[A-Z][a-z]{2,})*|[A-Z]{2,}", re.ASCII)
#: a parameter in code or a URL, ``name=value`` (``min_length=12``, ``kid=2024-01``)
_PARAMETER: Final = lazy(r"[A-Za-z_][A-Za-z0-9_-]*=([^=]*)", re.ASCII)
#: a letters-and-digits part with a capital and this many digits reads as a password
#: (``Password123``, ``Summer2024``), shorter (``OAuth2``, ``IPv6``, ``Base64``) as a name
_CAPITALISED_DIGITS_MIN: Final = 2
_CAPITALISED_LENGTH_MIN: Final = 8
#: digits after ``PIN``: 4 to 12
_PIN_DIGITS: Final = range(4, 13)


def prose_value_is_secret(value: str, *, quoted: bool, pin: bool,
                          password: bool = True) -> bool:
    """Whether ``value``, stated after a credential's noun in a sentence ("the staging db
    password is Tr0ub4dor&3", "数据库密码是 Passw0rd123"), is the credential.

    Prose says much else there ("the password is stored in Vault", "the token is valid for
    1 hour", "the key is 256-bit", "the secret is in the SECRET_KEY env var"), so a word
    counts only when it cannot be one of those: a quoted or backticked value is judged as
    an assignment's data (``the password is "hunter2"``), except that a plain word quoted
    after a noun other than a ``password``'s is a name ("the token is "include"", "the
    signing key is "primary"": a lexer's token, a key's label); after ``PIN`` only 4 to 12
    digits count; otherwise 6 or more characters that are not a reference or placeholder
    (``${DB_PASSWORD}``, ``<password>``, ``****``, ``changeme``), a path, URL, e-mail
    address, version, date, code name, call or subscript (``unquote(pw)``,
    ``tokens[0]``) or variable name
    (``SECRET_KEY``), and that hold

    - 6 or more digits only (``123456``);
    - a symbol other than ``-_./:`` (``Tr0ub4dor&3``, ``P@ssw0rd!``), unless the symbols
      only join plain words (``Bearer+JWT``, ``user:read+repo:write``,
      ``@company/auth-token``) or the value is a parameter (``min_length=12``,
      ``kid=2024-01``: judged by what follows its ``=``);
    - a part (between those separators) switching between letters and digits three
      times or more (``s3cr3t``, ``a8f3kd93jf02kd``), twice with mixed case (``Passw0rd``),
      or once with a capital, 2+ digits and 8+ characters (``Password123``); or
    - a part of 16+ random-looking letters (the case changing at least every third).

    Words (``hashed``, ``valid``), hyphenated words (``read-only``, ``correct-horse-…``),
    a word and a number (``argon2``, ``sha256``, ``HS256``, ``OAuth2``, ``3600s``,
    ``256-bit``) stay, and so do single-case words with one or two switches (``hunter2``,
    ``argon2id``, ``abc123xyz``) here: after a password's noun the prose rule takes a weak
    or default one itself (:func:`waymarks.core.secret_prose.stated_password`), after a
    token's, key's or secret's it stays, as the price of leaving everyday sentences about
    software alone."""
    if pin:
        return value.isdigit() and len(value) in _PIN_DIGITS
    if quoted:
        return _looks_like_secret(value, data=True, alone=False) and (
            password or not value.isalpha() or _random_part(value))
    if len(value) < _MIXED_MIN:
        return False
    if value.isalpha():  # most of what prose says there: a word ("hashed", "valid")
        return _random_part(value)
    lowered = value.lower()
    if lowered in _NOT_SECRETS or lowered in _PLACEHOLDERS \
            or is_reference(value) or "://" in value \
            or _ADDRESS_OR_VARIABLE.fullmatch(value) is not None or _CALL.match(value) \
            or (_PATH.fullmatch(value) is not None and not _random_segment(value)) \
            or _VERSION_OR_DATE.fullmatch(value) or _CODE_NAME.fullmatch(value):
        return False
    if value.isdigit():
        return True
    if (parameter := _PARAMETER.fullmatch(value)) is not None:
        return prose_value_is_secret(parameter[1], quoted=False, pin=False)
    if _SYMBOL.search(value) is not None:
        return not _joined_words(value)
    return any(_random_part(part) for part in _PART_SEPARATORS.split(value))


#: a config var's value this long mixing capitals, small letters and digits reads as random
#: (an AWS secret key's ``wJalrXUtnFEMI/K7MDENG/…``, whose parts prose's test reads alone)
_SETTING_RANDOM_MIN: Final = 20


#: a UUID (RFC 9562's text form, either case): an ID a setting names (a tenant, a project,
#: a request), not a credential, when its name says nothing of one
_UUID: Final = lazy(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
                    re.ASCII)


def setting_is_secret(value: str) -> bool:
    """Whether the value of a platform's config var whose name says nothing of a
    credential (``heroku config:set DB=…``) is one. The name gives no evidence, so only
    what reads as random counts, as after a noun in prose (:func:`prose_value_is_secret`:
    hex, base64, ``P@ssw0rd!``), or a long value mixing capitals, small letters and digits;
    a setting does not, though an assignment's test takes it for a secret: a number
    (``MAX_UPLOAD_SIZE=10485760``), a zone, a version, an address, a region, an image,
    a date, an ID (``go1.21.5``, ``us-central1``, a UUID: its hex parts read as random, and
    989 of 1,000 random ones went, the one a test held aside), flags or words with spaces
    (``JAVA_OPTS="-Xmx300m -Xss512k"``). Nor does a weak password under a neutral name
    (``DB=hunter22``: a word and a number, as ``node22`` or ``worker2`` are): without the
    name's evidence, only what reads as random counts; a credential's name
    (``DB_PASSWORD=hunter22``) or a secret store's command (``fly secrets set``) takes
    either."""
    if value.isdigit() or any(c.isspace() for c in value) or _UUID.fullmatch(value) \
            or not _looks_like_secret(value, data=False, alone=False):
        return False
    return prose_value_is_secret(value, quoted=False, pin=False) or (
        len(value) >= _SETTING_RANDOM_MIN and any(c.isupper() for c in value)
        and any(c.islower() for c in value) and any(c.isdigit() for c in value))


def _joined_words(value: str) -> bool:
    """Whether ``value`` is plain words joined by symbols (``Bearer+JWT``,
    ``user:read+repo:write``, ``@company/auth-token``): each of two letters or more, no
    digit (:data:`_PLAIN_WORD`: ``Xk#mQpLr`` and ``Pa$$Word`` are none)."""
    parts = [part for part in _JOINS.split(value) if part]
    return bool(parts) and all(_PLAIN_WORD.fullmatch(part) for part in parts)


def _random_part(part: str) -> bool:
    """Whether one part of a value stated in prose reads as a password (see
    :func:`prose_value_is_secret`)."""
    letters = "".join(c for c in part if c.isalpha())
    if letters == part:
        return len(part) >= _RANDOM_LETTERS_MIN and _case_changes(part) * 3 >= len(part)
    switches = sum(a.isdigit() != b.isdigit() for a, b in pairwise(part))
    mixed_case = bool(letters) and not letters.islower() and not letters.isupper()
    digits = len(part) - len(letters)
    return switches >= 3 or (mixed_case and (
        switches >= 2 or (digits >= _CAPITALISED_DIGITS_MIN
                          and len(part) >= _CAPITALISED_LENGTH_MIN)))


#: the attributes a Set-Cookie header gives its cookie (its date, lifetime, scope and
#: flags): none is a cookie, whatever its value looks like ("Max-Age=2592000")
_COOKIE_ATTRIBUTES: Final = frozenset(("expires", "max-age", "domain", "path", "samesite",
                                       "secure", "httponly", "priority", "partitioned"))
#: an analytics cookie's value: decimal fields, a short tag before them (Google Analytics'
#: ``GA1.2.<client>.<time>``, Facebook's ``fb.1.<time>.<random>``): it counts visits and
#: authorises nothing (a session ID is never dotted decimals), and went as a credential
_ANALYTICS_ID: Final = lazy(r"(?:[A-Za-z]{1,3}[0-9]?\.)?[0-9]+(?:\.[0-9]+){2,}", re.ASCII)
#: a cookie's value: what RFC 6265 allows in one (no space, comma or semicolon), so its
#: first run: a sentence after "cookie:" or an attribute's date goes on after it
_COOKIE_VALUE: Final = lazy(r"[^\s,;]*")
#: where one cookie (or attribute) ends and the next starts: a ``;``, or a ``,`` or spaces
#: before a ``name=`` (Set-Cookie headers joined, as Python's requests prints them:
#: ``Path=/, sessionid=…``; cookies parted by spaces alone, as a hand or a log writes them:
#: ``theme=dark sessionid=…`` was judged by its first); an expiry date's comma (``Wed, 21
#: Oct 2026``) and a sentence's words are before no ``=``
_COOKIE_PAIRS: Final = lazy(r";|,(?=[ \t]*[^\s=;,]+=)|[ \t]+(?=[^\s=;,]+=)")


def cookie_holds_secret(header: str) -> bool:
    """Whether a ``Cookie:`` or ``Set-Cookie:`` header's value holds a cookie that looks
    like a secret, each judged as an assignment's value is (a session ID, a UUID; not
    ``theme=dark``, nor plain words joined by a symbol, ``tz=Europe/Berlin``, nor an
    analytics ID, ``_ga=GA1.2.1234567890.1700000000``). An
    attribute is no cookie (``Max-Age=2592000``), and a cookie's value ends where one
    cannot go on: the rest of a sentence ("cookie: SameSite=Lax is the default since
    Chrome 80") or of a date was read with it, as one value, and the line redacted. A
    ``,`` before a ``name=`` parts two cookies as ``;`` does: joined Set-Cookie headers'
    session cookie (``Path=/, sessionid=…``) was read as an attribute's rest."""
    for pair in _COOKIE_PAIRS.split(header):
        name, _, rest = pair.partition("=")
        found = _COOKIE_VALUE.match(rest.strip().strip('"'))
        value = found.group(0).strip('"') if found else ""
        if name.strip().lower() not in _COOKIE_ATTRIBUTES and _looks_like_secret(
                value, data=False, alone=False) and not _joined_words(value) \
                and _ANALYTICS_ID.fullmatch(value) is None:
            return True
    return False
