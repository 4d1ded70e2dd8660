"""Credential-like values in text: find them, and redact them for remote destinations.

``redact`` runs on every rendered item of every model request, ``find_secrets`` lets a
write refuse text holding a credential while naming only its kind (never the value).
Each credential is replaced by ``[REDACTED:<kind>]``; the kinds (rules in
``waymarks.core.secret_rules``):

- ``private-key`` (PEM blocks, to the END line or the end of the text; also the block
  base64-encoded, as kubeconfig's ``client-key-data`` and a TLS secret's ``tls.key`` hold
  it, when its armour line says PRIVATE KEY, or an EC key's after its curve's parameters:
  a base64 certificate stays; and its body alone, no armour, when its DER opens as a
  private key's), ``jwt``;
- vendor tokens: ``anthropic-key``, ``openai-key``, ``github-token``, ``gitlab-token``,
  ``slack-token``, ``slack-webhook``, ``stripe-key`` (secret and restricted keys, webhook
  secrets; publishable ``pk_`` keys are public), ``google-api-key``,
  ``google-oauth-secret``, ``google-oauth-token``, ``npm-token``, ``pypi-token``,
  ``huggingface-token``, ``groq-key``, ``shopify-token``, ``digitalocean-token``,
  ``heroku-key``,
  ``twilio-api-key``, ``sendgrid-key``, ``mailgun-key`` (``key-…`` and today's unlabelled
  ``<32 hex>-<8 hex>-<8 hex>``, in capitals too), ``mailchimp-key``,
  ``discord-token``, ``discord-webhook``, ``teams-webhook``, ``ifttt-webhook-key``,
  ``zapier-webhook``, ``webhook-secret`` (a random path segment after ``hooks/``,
  ``webhook/`` or ``incoming/``: ``waymarks.core.secret_webhooks``),
  ``telegram-bot-token``,
  ``azure-client-secret``, ``azure-sas``, ``azure-storage-key``, ``vault-token`` (also the token
  ``vault login`` is given: a legacy ``s.…`` one has no prefix), ``atlassian-token``,
  ``linear-api-key``, ``square-token``, ``databricks-token``, ``sentry-token``,
  ``age-secret-key``, ``mapbox-secret-token`` (public ``pk.`` tokens stay),
  ``url-signature`` (a signed URL's ``Signature=``/``X-Amz-Signature=``, SigV4's),
  ``aws-access-key-id``, ``aws-secret-access-key``
  (labelled, beside an access key ID, or alone when random-looking: a git SHA, a UUID or
  base64 prose stays);
- by position: ``bearer`` (after ``Bearer``, or alone on the line after it),
  ``basic-auth`` (after ``Basic`` or under an ``auth`` key, Docker's ``"auth": "…"`` and
  .npmrc's ``_auth=…``, when it decodes to ``user:password``), ``auth-token``
  (after ``Authorization: token``, GitHub's older scheme, or a random-looking key as the
  header itself, ``Authorization: KEY``, or after another scheme, ``ApiKey KEY``),
  ``cookie`` (a ``Cookie:`` or ``Set-Cookie:`` header's value when a cookie in it looks
  like a secret),
  ``kubernetes-secret`` (each value of a Kubernetes Secret's base64 ``data:``, in block
  or flow style, its key kept, a last one cut by the text's end too: a ConfigMap's, or a
  Secret's holding only certificates, stay; and each value of its ``stringData:`` that
  looks like a secret),
  ``url-password`` (``postgres://admin:[REDACTED:…]@host``; the scheme, user and host stay; the
  password runs to the authority's last ``@``, so one pasted with an unencoded ``@`` or ``#`` goes
  whole, and JSON's escaped ``:\\/\\/`` counts as ``://``; a user named for a token,
  ``x-access-token:…@``, is a user, not an assignment), ``url-token`` (a random-looking
  token as a URL's user, no password: ``https://TOKEN@github.com``), ``secret`` for a
  password glued to
  a MySQL/MariaDB client's ``-p`` (``mysql -uroot -pS3cret``; ``mkdir -p``, ``ssh -p 22``
  and a bare ``-p``, which prompts, stay) or after another command's password flag (curl's
  ``-u USER:``, smbclient's ``-U USER%``, a registry login's ``-p``, openssl's ``-k`` and
  ``-passin pass:``, ``zip -P``, ``7z -p…``, ``ldapsearch -w``), a .netrc entry's
  ``password``, a .pgpass line's (``host:port:db:user:PASSWORD``), and ``secret``: the value of a
  credential-named assignment or flag (``API_KEY=…``, ``"password": "…"``, ``clientSecret: …``,
  ``--token …``; the name may end in up to four qualifiers, ``SESSION_SECRET_PROD``,
  ``API_KEY_PROD_V2``, ``GITHUB_TOKEN_2024``, ``SECRET_KEY_BASE``, ``apiKeyProd``) when
  it looks like one: 6+
  digits, 6+ characters mixing letters, digits or symbols, 16+ random-looking letters, or
  a single word where it is data rather than prose (quoted, ``NAME=value``, a flag's,
  alone on a key-value line such as ``POSTGRES_PASSWORD: postgres``, a diff's ``+`` or
  ``-`` before it too).
  Types, literals, references, masks, paths, URLs, versions, code names and prose stay
  (``password: str``, ``token = None``, ``password: see the vault``,
  ``api_key = os.environ[…]``, ``secret: {{ … }}``). A quoted value runs to its closing
  quote, spaces and escapes included, and one with spaces goes whole (``"see the vault"``
  cannot be told from a passphrase) unless it is a reference, template or label
  (``"${PW}"``, ``"<your key>"``, ``"Access token"``); and ``secret``: a value stated
  after a credential's noun in a sentence ("the staging db password is Tr0ub4dor&3",
  "数据库密码是 Passw0rd123"), judged more strictly ("the password is stored in Vault",
  "the key is 256-bit" stay; see ``waymarks.core.secret_values.prose_value_is_secret``),
  a weak or default one after a password's noun ("The password is hunter2.", "root
  password = toor"), one set or used in a sentence ("set the admin password to trustno1",
  "use hunter2 as the password") and a login's user and password side by side ("login
  with admin / admin123", ``admin/admin123``: ``waymarks.core.secret_logins``).

Why our own rules and not a maintained scanner's (decided by reading and measuring the
PyPI candidates in 2026; see also benchmarks/secret_redaction.py):

- detect-secrets (Yelp, 1.5.0, last release May 2024): every plugin module imports
  ``requests`` (verification calls), it reads a global settings singleton, its plugins
  yield matched strings without positions, and it has no rule for Google, Hugging Face,
  Shopify, DigitalOcean, Heroku or Anthropic keys. Measured on this machine: 0.48 s to
  import, 9.6 ms per 200-character line through ``scan_line`` (its entropy plugins
  flagged words of clean prose, a UUID and a git SHA), 0.29 ms with only its regex
  plugins; this module takes microseconds (benchmarks/secret_redaction.py). The fork
  bc-detect-secrets has the same design and dependencies (plus ``unidiff``).
- ggshield sends text to GitGuardian's service (network); kingfisher, betterleaks,
  scrubbers ship compiled engines; microsoft-security-utilities-secret-masker (beta)
  covers mainly Azure key formats and reads its rule files when loaded.
- core/ imports only the standard library and msgspec (ARCHITECTURE.md); none of these
  is a pure library with no I/O at import.

So the rules are ours, written from the vendors' published token formats; they cover the
shapes gitleaks and detect-secrets are known for, each with a fake in the test corpus
(tests/privacy/secret_corpus.py), together with look-alikes that must stay (UUIDs, git
SHAs, sha256 hex, base64 data URIs, paths, versions, type annotations).

Cost (benchmarks/secret_redaction.py against the previous module, which knew six shapes;
stop 39, a loaded machine): a text that passes no pre-test check pays about four times the
old pre-test (7-8 µs against 1.8 for 200 characters: many more literals to look for); a
text with a credential-like word (key, token, password, a ``-``/``_`` prefix) runs only the
rules it could trigger, 0.6-0.85 of the old single expression's cost, and a text holding a
credential about the same (0.9-1.0). Defense in depth, not a classifier: it catches common
shapes, not every secret. Characters that render as nothing (Unicode's default-ignorable
ones: zero-width space and joiners, the byte-order mark, directional controls, variation
selectors, Hangul fillers; controls that end no line, NUL or ESC) are read through:
``ghp_abc\u200bdef…`` is found, its span covering them, and the text outside a span is
never changed; they are read as a space too (``Bearer\u200bTOKEN``: a model sees a
gap). A credential that ends its line takes the lines after it that continue it
(wrapped: one run of a token's characters mixing letters and digits, 8 or more; a line
break escaped, ``\n``, is one; a random run with more after it on its line goes too,
written as the head is: not a UUID or a commit's SHA after a token of both cases).
Redaction is idempotent. A token of a distinctive prefix (GitHub's, ``glpat-``, Slack's,
OpenAI's ``sk-proj-``, ``sk-ant-api``, ``sk_live_``, ``AIza``, ``npm_``, ``hf_``) glued to
the letters before it (``xxxxghp_…``) goes when it reads as random (``secret_tokens.GLUED_RULES``).
Pure: no I/O.
"""


import re
from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING, Final, NamedTuple

from waymarks.core.lazy_re import lazy
from waymarks.core.secret_pretest import (
    _INVISIBLE,
    INVISIBLE,
    might_contain_secret,
    might_hold_visible,
    visible,
)
from waymarks.core.secret_tokens import PLACEHOLDER_PREFIX, ascii_lower

if TYPE_CHECKING:
    from waymarks.core.secret_tokens import Rule

__all__ = ["PLACEHOLDER_PREFIX", "SecretSpan", "credential_kinds", "cut_before_secret",
           "find_secrets", "might_contain_secret", "redact"]


class SecretSpan(NamedTuple):
    """One credential in a text: its kind and where it is (``text[start:end]``)."""

    kind: str
    start: int
    end: int


def find_secrets(text: str) -> list[SecretSpan]:
    """Every credential in ``text``, in order, not overlapping.

    A caller that refuses text may name the kinds, never ``text[start:end]``. Where two
    rules overlap (``API_KEY=sk-…``, ``Bearer eyJ…``, ``private_key: -----BEGIN…``) the
    span is their union and the kind that of the more specific rule (tokens before
    wrappers, in rule order). Invisible format characters (a zero-width space inside a
    token) are read through: a span covers those inside it, the text is never changed."""
    shown, where = visible(text)
    if where is not None:
        # read through (a token with a zero-width space inside) and read as a gap (one
        # between ``Bearer`` and its token): a model reads it either way
        through = [SecretSpan(kind, where[start], where[end - 1] + 1)
                   for kind, start, end in find_secrets(shown)]
        gaps = as_gaps(text)
        return through if gaps is None else _union(through + find_secrets(gaps))
    if not might_hold_visible(text):
        return []
    found = sorted(candidates(text))
    merged: list[SecretSpan] = []
    rank_of_last = 0
    for start, rank, end, kind in found:
        if merged and start < merged[-1].end:
            last = merged[-1]
            if rank < rank_of_last:
                rank_of_last = rank
                merged[-1] = SecretSpan(kind, last.start, max(last.end, end))
            else:
                merged[-1] = SecretSpan(last.kind, last.start, max(last.end, end))
            continue
        merged.append(SecretSpan(kind, start, end))
        rank_of_last = rank
    return [_continued(text, span) for span in merged]


#: invisible characters a gap would part two words at: after a letter, digit or ``_``,
#: before what may start a value (``Bearer\u200bTOKEN``, ``--password\x1b"…"``), not an
#: emoji's selector or joiner (``⚠️ ``, ``👨‍💻``), nor a colour code's ESC (``\x1b[0m``)
_GLUING: Final = lazy(r"[A-Za-z0-9_]" + INVISIBLE + r"+(?=[!-~])(?![.,;:!?)\]}>\[])")


def as_gaps(text: str) -> str | None:
    """``text`` with each invisible character a space (the same length, so a span is the
    same in both), when one glues two words a model reads apart (:data:`_GLUING`), else
    ``None``: read a second time, every text holding an emoji paid twice for nothing."""
    return _INVISIBLE.sub(" ", text) if _GLUING.search(text) else None


def _union(spans: list[SecretSpan]) -> list[SecretSpan]:
    """``spans`` in order, those that overlap joined (the kind of the first)."""
    merged: list[SecretSpan] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = SecretSpan(last.kind, last.start, max(last.end, span.end))
        else:
            merged.append(span)
    return merged


#: a line that continues a credential wrapped at the end of the line before (a terminal's
#: or an editor's wrap): nothing but a token's characters, base64 padding only at its end.
#: A line ends where ``str.splitlines`` ends one (the renderers and models read U+2028, NEL
#: or a lone CR as a break too: a tail after one went out whole). Spaces or tabs may end
#: either line (Markdown's hard break is two spaces), and the tail may be indented or
#: quoted (``> ``) as the line it continues was, in a list or a quotation: the tail of
#: ``- token ghp_…⏎  K1l2…`` went out whole. A break escaped as a string literal or JSON
#: writes it (the two characters ``\n``, ``\r``) is one too: a model reads it as one, and
#: the 16-character tail of ``ghp_…\nK1l2…`` went out; the tail may end at a closing
#: quote. A wrap in a sentence leaves the sentence's rest on the tail's line: a tail with
#: more after it continues the token only when it reads as random (:func:`_random`)
_BREAK = r"(?:\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]|\\r\\n|\\[nr])"
_TAIL_LINE = lazy(r"[ \t]*" + _BREAK + r"[ \t]*(?:>[ \t]*)*([A-Za-z0-9_+/-]{8,}={0,2})"
                  r"(?:(?=[ \t]*(?:" + _BREAK + r"|\Z|\\?[\"'`]))|(?=[ \t,.;:)]))")
_DIGIT, _LETTER = lazy(r"[0-9]"), lazy(r"[A-Za-z]")
#: the ends of a tail alone on its line (what :data:`_TAIL_LINE` takes without more)
_LINE_ENDS = lazy(r"[ \t]*(?:" + _BREAK + r"|\Z|\\?[\"'`])")
#: a tail with more after it on its line: this long, switching between letters and digits
#: this often (``K1l2M3n4O5p6Q7r8``; not ``version2``, ``build-2026-12``, ``sha256sum``)
_RANDOM_TAIL, _RANDOM_SWITCHES = 12, 4


def _random(run: str) -> bool:
    """Whether a tail with more after it on its line reads as the rest of a token."""
    kinds = [c.isdigit() for c in run if c.isalnum()]
    return len(run) >= _RANDOM_TAIL and sum(
        a != b for a, b in pairwise(kinds)) >= _RANDOM_SWITCHES


def _alike(head: str, run: str) -> bool:
    """Whether a tail with more after it on its line is written in its head's alphabet: a
    token of both cases wraps into both cases, and holds a ``-`` only if its head does. A
    request's UUID, a commit's SHA or a pod's name starting the next line (lower-case hex,
    dashes) went with the token, the line break too."""
    if "-" in run and "-" not in head:
        return False
    return head.islower() or head.isupper() or not (run.islower() or run.isupper())


def _continued(text: str, span: SecretSpan) -> SecretSpan:
    """``span`` with the lines that continue it: a credential wrapped across lines was
    redacted in its first part only, and the rest of it went to the model. A line
    continues a credential when the credential ends its line and the next line is one
    run of a token's characters, 8 or more, holding both letters and digits (a random
    tail almost always does; a word, an assignment, a path or a version does not), spaces
    or tabs around it and a quotation's ``>`` before it aside; or starts with such a run
    that reads as random (:func:`_random`), the rest of a sentence after it."""
    if span.kind == "private-key":  # its block already runs to its END line
        return span
    end = span.end
    while (tail := _TAIL_LINE.match(text, end)) is not None and _DIGIT.search(
            tail.group(1)) and _LETTER.search(tail.group(1)) and (
            _LINE_ENDS.match(text, tail.end()) is not None or (
                _random(tail.group(1)) and _alike(text[span.start:end], tail.group(1)))):
        end = tail.end()
    return span if end == span.end else SecretSpan(span.kind, span.start, end)


def candidates(text: str) -> list[tuple[int, int, int, str]]:
    """(start, rule rank, end, kind) of every accepted match of every rule, overlaps kept.

    Skips the pre-test (tests compare the two). The rules and their checks are imported
    here, for a text the pre-test passes: most texts a request renders pass none, and
    their five modules cost a fresh process (a hook without its helper) ~1.5 ms."""
    from waymarks.core.secret_rules import BY_GUARD

    lowered = ascii_lower(text)
    found: list[tuple[int, int, int, str]] = []
    for guard, rules in BY_GUARD:
        if guard and guard not in text:
            continue
        for rank, rule in rules:
            _, _, regex, needles, folded, hint, _, anchored, _ = rule  # fields, unpacked once
            haystack = lowered if folded else text
            if anchored:
                if hint is not None and hint.search(text) is None:
                    continue
                # resume after an accepted match (linear on repeated names), else after the
                # needle: a needle overlapping itself ("--" in "-----") matches only at the
                # first place, where nothing like it stands before
                for needle in needles:
                    at = haystack.find(needle)
                    while at != -1:
                        match = regex.match(text, at)
                        resume = match.end() if match is not None and _accept(
                            rule, rank, match, found) else at + len(needle)
                        at = haystack.find(needle, resume)
                continue
            for needle in needles:
                if needle in haystack:
                    break
            else:
                continue
            if hint is not None and hint.search(text) is None:
                continue
            for match in regex.finditer(text):
                _accept(rule, rank, match, found)
    return found


def _accept(rule: "Rule", rank: int, match: re.Match[str],
            found: list[tuple[int, int, int, str]]) -> bool:
    """Add ``match`` to ``found`` if the rule's check accepts it; whether it did (a rule
    whose match is several values: whether it was read, always)."""
    accepts, glued_end = _CHECKS[0] if _CHECKS else _load_checks()  # (an import statement
    # a call cost 100 KB of glued ``secret:``, 14,285 values, ~10 ms)
    text = match.string
    start, end = match.span(match.lastgroup or 0)
    if rule.name.startswith(("kube_", "env_")) or rule.name in _SEVERAL:
        # a span per value (of a Secret's data, of a store's pairs, of a container's
        # environment), keys kept
        # read whole, so the search resumes after it even with no value taken (tried again
        # at each of its lines' needles, a dump of 60,000 ``HOME=x`` lines took 135 s)
        found.extend((at, rank, until, rule.kind)
                     for at, until in _values(rule.name, match, start, end))
        return True
    if rule.wrapper:  # a value in prose: its sentence's full stop is not part of it
        end = start + len(text[start:end].rstrip(".") or text[start:end])
    if found and found[-1][1] == rank and found[-1][0] <= start and end <= found[-1][2]:
        # inside the value this rule just took, which a glued ``(`` went on with (no other
        # span of a rule reaches past its match, where the search resumes): its own ``(``
        # goes on to the same end, so it adds nothing; read and judged to that end again,
        # ``PASSWORD=ab(PASSWORD=ab(…`` cost a square of the run (0.4 MB: 65 s)
        return False
    end = glued_end(rule.name, match, end)
    if not accepts(rule.name, match, start, end):
        return False
    found.append((start, rank, end, rule.kind))
    return True


#: :func:`waymarks.core.secret_checks.accepts` and ``glued_end``, once imported
_CHECKS: list[tuple[Callable[[str, re.Match[str], int, int], bool],
                    Callable[[str, re.Match[str], int], int]]] = []


def _load_checks() -> tuple[Callable[[str, re.Match[str], int, int], bool],
                            Callable[[str, re.Match[str], int], int]]:
    from waymarks.core.secret_checks import accepts, glued_end

    _CHECKS.append((accepts, glued_end))
    return _CHECKS[0]


#: the rules but ``kube_…`` and ``env_…`` whose match is several values, a span each
_SEVERAL: Final = ("store_pairs", "chpasswd_list", "stdin_fed", "go_dsn")


def _values(name: str, match: re.Match[str], start: int, end: int) -> list[tuple[int, int]]:
    """The spans of a rule whose match is several values (rule ``name``); each branch
    imports only its own reader (all five, imported on each call, cost 20 us a match)."""
    if name == "store_pairs":
        from waymarks.core.secret_commands import store_values
        return store_values(match)
    if name == "chpasswd_list":
        from waymarks.core.secret_admin import cloud_passwords
        return cloud_passwords(match)
    if name == "stdin_fed":
        from waymarks.core.secret_stdin import fed_values
        return fed_values(match)
    if name == "go_dsn":
        from waymarks.core.secret_connections import dsn_password
        return dsn_password(match)
    if name.startswith("env_"):
        from waymarks.core.secret_environments import environment_values
        return environment_values(name, match)
    from waymarks.core.secret_manifest import manifest_values, string_data_values
    return (string_data_values if "string" in name else manifest_values)(name, match, start, end)


#: passes :func:`redact` makes at most (a pass finds what the one before uncovered)
_REDACT_PASSES: Final = 4
#: how far around a placeholder a later pass reads, each way, to the ends of the lines
#: there and one line more (never cut inside a line): what the pass before changed is only the
#: placeholders, and every rule that reads past its match reads at most 256 characters
#: (an AWS key ID beside its secret) or the lines around it
_AROUND: Final = 1024


def redact(text: str) -> tuple[str, int]:
    """``text`` with every credential replaced by ``[REDACTED:<kind>]``, and how many.

    Until nothing more is found: spans may overlap, and the one kept can hide another's
    start (``sk_live_x--token sk-sk-``: the key swallowed ``token``, whose value was then
    seen only once the key was a placeholder), so a second redaction of the result found
    more (a property test's example). What a later pass can find stands beside what the
    pass before replaced (its lookbehind, its line, a word of the placeholder's own):
    a later pass reads only the lines around each placeholder (:func:`_around`), not the
    whole text again (one credential late in 100 KB cost two passes over all of it)."""
    spans = find_secrets(text)
    count = len(spans)
    for _ in range(_REDACT_PASSES - 1):
        if not spans:
            break
        text, places = _replaced(text, spans)
        spans = [SecretSpan(kind, low + start, low + end) for low, high in _around(text, places)
                 for kind, start, end in find_secrets(text[low:high])]
        count += len(spans)
    else:
        if spans:
            text = _replaced(text, spans)[0]
    return text, count


def _replaced(text: str, spans: list[SecretSpan]) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with each of ``spans`` (in order, apart) a placeholder, and where those
    placeholders stand in the text returned."""
    parts: list[str] = []
    places: list[tuple[int, int]] = []
    pos = size = 0
    for kind, start, end in spans:
        parts.append(text[pos:start])
        size += start - pos
        placeholder = f"{PLACEHOLDER_PREFIX}{kind}]"
        parts.append(placeholder)
        places.append((size, size + len(placeholder)))
        size += len(placeholder)
        pos = end
    parts.append(text[pos:])
    return "".join(parts), places


def _around(text: str, places: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches of ``text`` a later pass reads: whole lines, from the start of the
    line before the one :data:`_AROUND` characters before each placeholder to the end of
    the line after the one as far after it, those that meet joined. Never a line cut: a
    value's line is read with the line above it (a command's or a prompt's head), and a
    stretch cut inside a long line left such a value in clear that whole passes redact.

    ``places`` are in order, so each search for a line break starts where the one before
    stopped: searched from the text's start (and forward to the line's end) for each
    placeholder, one long line holding a credential every few characters cost a square of
    its length (800 KB of "密码就是 2024.10." repeated: 9.5 s of CPU, 400 KB 2.5 s)."""
    stretches: list[tuple[int, int]] = []
    last = second = -1  # the last two line breaks before ``scanned``
    scanned = 0
    ahead: tuple[int, int] | None = None  # the first line break at or after ``at``, the next
    for start, end in places:
        cut = max(0, start - _AROUND)
        if cut > scanned:
            found = text.rfind("\n", scanned, cut)
            if found != -1:
                before = text.rfind("\n", scanned, found)
                second, last = (last if before == -1 else before), found
            scanned = cut
        low = 0 if last <= 0 else second + 1
        at = min(len(text), end + _AROUND)
        if ahead is None or -1 < ahead[0] < at:
            first = text.find("\n", at)
            ahead = (first, -1 if first == -1 else text.find("\n", first + 1))
        high = len(text) if ahead[1] == -1 else ahead[1]
        if stretches and low <= stretches[-1][1]:
            stretches[-1] = (stretches[-1][0], max(stretches[-1][1], high))
        else:
            stretches.append((low, high))
    return stretches


def cut_before_secret(text: str, end: int) -> int:
    """Where to cut ``text`` to keep at most ``end`` characters without cutting a credential
    in two: ``end``, or the start of the credential standing across it.

    Text cut to a bound before its egress redacts it would keep the head of such a
    credential, often too short for its rule (``ghp_Ab3dEf6h`` is no token under 20
    characters); found in the whole text, the credential is left out whole instead."""
    if end >= len(text):
        return end
    for span in find_secrets(text):
        if span.start >= end:
            break
        if span.end > end:
            return span.start
    return end


def credential_kinds(text: str) -> list[str]:
    """The kinds of credential ``text`` holds, each once, in order of appearance; never
    the values, so a refusal can name what it found without echoing it. The text is also
    read as a model is sent it, its classification markers removed: an empty marker pair
    inside a token (``ghp_abc[ds4:normal][/ds4:normal]def…``) hid it from this check while
    the egress, removing the markers, put it back together (stored, in an ADR's title, a
    personal memory's file name; in clear to a local model)."""
    from waymarks.core.privacy import has_markers, strip_markers

    spans = find_secrets(text)
    if has_markers(text):
        spans += find_secrets(strip_markers(text))
    return list(dict.fromkeys(span.kind for span in spans))


def holds_credential(text: str) -> bool:
    """Whether ``text`` holds a credential as :func:`credential_kinds` reads it (the
    refusals' one test)."""
    return bool(credential_kinds(text))
