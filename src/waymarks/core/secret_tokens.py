"""The credential tokens ``waymarks.core.secrets`` recognises on their own (the *tokens*
family of :mod:`waymarks.core.secret_rules`, whose docstring states what every rule must
keep true; the wrappers, the pre-test and the checks live there).

- a vendor prefix or a fixed structure (``ghp_…``, ``sk_live_…``, ``xoxb-…``, ``AIza…``,
  ``hvs.…``, ``AGE-SECRET-KEY-1…``, a JWT ``eyJ….eyJ….…``, a PEM block); a few keep a
  lead-in outside the span (``sig=``, ``AccountKey=``, ``aws_secret_access_key =``),
  because the value alone is ordinary base64;
- an AWS secret access key without a label (40 of ``[A-Za-z0-9/+]``, which is also what
  base64 text and, in hex, a git SHA look like), holding upper and lower case, standing
  alone (never inside a longer run, a URL or a file name): within 256 characters of an
  access key ID, either side (``aws_secret_pair``: a CSV row, an STS answer), or when it
  looks random (a digit, a ``/`` or ``+``, 20+ distinct characters, the case changing
  often) with a word naming it (aws, key, secret, credential) on its line within 64
  characters (``aws_secret_named``). A random-looking value with no such word is left: a
  lone run is not worth looking for in every text holding a ``/`` (measured: 10 µs per
  200 characters). On 145 MB of real text (this repository, /work/shared,
  site-packages; benchmarks/secret_shapes.py) neither rule redacts anything but the
  test corpus's fakes.

Pure: ASCII regular expressions only, no I/O, no state.
"""


import re
from typing import Final, NamedTuple

from waymarks.core.lazy_re import lazy


class Rule(NamedTuple):
    """One credential shape."""

    name: str  #: for ``accepts`` and tests
    kind: str  #: what the placeholder says
    regex: re.Pattern[str]  #: the group named ``name``, else the whole match, is the span
    needles: tuple[str, ...]  #: literals the expression cannot match without
    folded: bool = False  #: needles are looked for in the ASCII-lower-cased text
    hint: re.Pattern[str] | None = None  #: a cheaper expression the text must also match
    guard: str = ""  #: a character every match holds: its absence skips the rule cheaply
    anchored: bool = False  #: the expression is tried at each needle's occurrence only
    wrapper: bool = False  #: the span is a value in context; a token there names the kind


_B: Final = r"(?<![\w-])"  # a token starts here: not inside a longer run of token characters
#: or glued to the letters before it (``xxxxghp_…``, ``tokenghp_…``: a paste lost its
#: space; one lookbehind, an alternation of two cost a rule's search 2.7 times as much):
#: ``accepts`` then wants a prefix of :data:`GLUED_RULES` and a random token (a capital, a
#: small letter and a digit: ``risk_live_monitoring`` is a name)
_BG: Final = r"(?<![0-9_-])"
_E: Final = r"(?![\w-])"  # a fixed-length token ends here


#: characters in the order they are rare in prose and code: a rule's guard is the first
#: one that all its needles hold
_GUARDS: Final = "~JKXQGzx_=/AS:-."


def _token(name: str, kind: str, pattern: str, *needles: str, hint: str = "") -> Rule:
    common = set(needles[0]).intersection(*needles[1:])
    guard = next((c for c in _GUARDS if c in common), "")
    return Rule(name, kind, lazy(pattern, re.ASCII), needles,
                hint=lazy(hint, re.ASCII) if hint else None, guard=guard)


#: the rules whose token may be glued to the letters before it (:data:`_BG`), and the
#: prefixes distinctive enough there
GLUED_RULES: Final = {"github": ("gh", "github_pat_"), "gitlab": ("glpat-",),
                      "slack": ("xoxb-", "xoxp-", "xoxa-", "xoxs-"),
                      "anthropic": ("sk-ant-api",),
                      # OpenAI's project, service-account and admin keys (``keysk-proj-…``:
                      # a plain ``sk-`` after letters is a word's, ``task-…``, ``disk-…``)
                      "openai": ("sk-proj-", "sk-svcacct-", "sk-admin-"),
                      "stripe": ("sk_live_", "rk_live_"),
                      "google": ("AIza",), "npm": ("npm_",), "hf": ("hf_",)}

#: literal-led hints behind needles too common to decide alone
_GITLAB_HINT: Final = r"gl(?:pat|ptt|dt|rtr?|cbt|ft|imt|oas|soat|ffct|agent)-"
_GITHUB_HINT: Final = r"_(?:(?<=gh[pousr]_)|(?<=github_pat_))"
_MAILCHIMP_HINT: Final = r"-us[0-9]"
#: a Notion integration secret's or a Supabase secret key's ``secret_`` and what must follow
#: it (the pre-test's: ``secret_`` alone let a text of glued ``secret_`` through to every
#: rule, 95 ms for 100 KB against 4.3 before Notion's rule)
_SECRET_PREFIX_HINT: Final = r"secret_(?:[A-Za-z0-9]{43}|(?<=sb_secret_)[\w-]{20})"
#: the end of a Mailgun key of today's shape: a literal ``-`` the search skips to
_MAILGUN_HINT: Final = (r"-[0-9a-f]{8}-[0-9a-f]{8}(?![\w-])"
                        r"(?<=[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8})"
                        r"|-[0-9A-F]{8}-[0-9A-F]{8}(?![\w-])"  # (in capitals, as a note shouts it)
                        r"(?<=[0-9A-F]{32}-[0-9A-F]{8}-[0-9A-F]{8})")
_DISCORD_HINT: Final = r"\.[\w-]{6}\."  # the middle of a bot token


#: an AWS access key ID, and a secret access key's shape: 40 of [A-Za-z0-9/+] standing
#: alone (not inside a longer run, a URL's ``host.com/path`` or a file name), holding upper
#: and lower case (a git SHA or sha1 hex never does)
_AWS_ID: Final = r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}"
_AWS_EDGE_BEFORE: Final = r"(?<![A-Za-z0-9/+=._~-])"
_AWS_EDGE_AFTER: Final = r"(?![A-Za-z0-9/+=_~-]|\.[A-Za-z0-9])"
_AWS_VALUE: Final = (_AWS_EDGE_BEFORE + r"(?=[A-Za-z0-9/+]{{0,39}}[A-Z])"
                     r"(?=[A-Za-z0-9/+]{{0,39}}[a-z])(?P<{name}>[A-Za-z0-9/+]{{40}})"
                     + _AWS_EDGE_AFTER)
#: with no key ID near: a word naming it before it on its line, within 64 characters
#: (``the staging key is …``, ``AWS secret: …``); the value also holds a digit and a ``/``
#: or ``+`` (a random key has one of them 72 % of the time) and is checked further by
#: ``accepts`` (many distinct characters, the case changing often: not a path such as
#: ``Src/Module2/File``). The word and the value are not apart by a bracket: a redaction
#: placeholder (``[REDACTED:aws-secret-access-key]``) says "key" itself, and a value after
#: it was found by a second pass only (Hypothesis: three keys apart by a Kelvin sign, "K").
#: Tried only where such a word stands (an anchored rule): looking
#: for a lone 40-character run costs about 10 µs per 200 characters, in every text
#: holding a ``/``.
_AWS_WORDS: Final = ("aws", "key", "secret", "credential")
_AWS_NAMED: Final = (r"(?i:aws|key|secret|credential)[^\[\]\n]{0,64}?"
                     # ``aws configure``'s prompt, its default in brackets: ``AWS Secret Access
                     # Key [None]: …`` (``[****EKEY]``): the key typed after it went out in clear
                     r"(?:\[(?!REDACTED:)[^\[\]\n]{0,64}\]:[ \t]*)?" + _AWS_EDGE_BEFORE
                     + r"(?=[A-Za-z0-9]{0,39}[/+])(?=[A-Za-z0-9/+]{0,39}[0-9])"
                     + _AWS_VALUE[len(_AWS_EDGE_BEFORE):].format(name="aws_named"))
#: what every such value holds: a ``/`` or ``+`` with 20 of its characters before or after
#: it (its 40 hold one within them), searched once from the ``/`` or ``+`` before the
#: expression is tried at each word: that try reads up to 64 characters for a value, and
#: 100 KB of glued ``secret_`` (14,285 words, no value) cost it 53 ms, 0.5 ms now
_AWS_NAMED_HINT: Final = r"[/+](?:(?<=[A-Za-z0-9/+]{20}[/+])|(?=[A-Za-z0-9/+]{20}))"

#: a PEM body's full line, 64 base64 characters, ending its line: the middle lines' hint
PEM_LINES: Final = lazy(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{64}[ \t]*\r?\n", re.ASCII)
#: the words of a private key's armour line after BEGIN or END, to its closing dashes
_ARMOUR: Final = r"(?:[ \t\r\n]+[A-Z0-9]+)*?[ \t\r\n]+PRIVATE[ \t\r\n]+KEY(?:[ \t\r\n]+BLOCK)?-----"

TOKENS: Final = (
    # its armour may be wrapped between words ("-----BEGIN RSA PRIVATE⏎KEY-----", a narrow
    # terminal's or a chat's wrap: the block went out whole)
    _token("pem", "private-key",
           r"-----BEGIN" + _ARMOUR + r"(?s:.*?-----END" + _ARMOUR + r"|.*\Z)", "-----BEGIN"),
    # its tail, the BEGIN line in another message or cut off (a paste split in two, a
    # tool's output read in parts): the base64 lines before the END line, from the first
    # of their run (the line before it does not end in 16 of their characters: each run
    # is read once), the last of them as short as it falls (``Ab12==``: with it, the run
    # went out whole) and the END line
    _token("pem_tail", "private-key",
           r"(?m:^)(?<![A-Za-z0-9+/=]{16}\n)(?<![A-Za-z0-9+/=]{16}\r\n)[ \t]*(?>(?:"
           r"[A-Za-z0-9+/=]{16,}[ \t]*\r?\n[ \t]*)+(?:[A-Za-z0-9+/=]{1,15}[ \t]*\r?\n[ \t]*)?)"
           r"-----END" + _ARMOUR, "-----END"),
    # the same block base64-encoded (kubeconfig's client-key-data, a TLS secret's tls.key):
    # "LS0tLS1CRUdJTi" is "-----BEGIN"; on one line, or wrapped (full lines, then a last
    # one standing alone); ``accepts`` decodes its head: a certificate is not a secret
    _token("pem_b64", "private-key",
           r"(?<![A-Za-z0-9+/])LS0tLS1CRUdJTi[A-Za-z0-9+/]{22,}(?:={1,2}|(?:\r?\n[A-Za-z0-9+/]"
           r"{60,}(?=\r?\n))*(?:\r?\n[A-Za-z0-9+/]+={0,2}(?=[ \t]*(?:\r?\n|\Z)))?)",
           "LS0tLS1CRUdJTi"),
    # the block's base64 body alone, no armour (pasted without its BEGIN and END lines, an
    # environment variable's value, a vault's field): its DER opens as a private key's
    # does (PKCS#1 RSA or DSA ``MII…IBAAKC``, PKCS#8 RSA ``MII…IBADANBgkqhkiG9w0BAQEFAAS``,
    # EC ``MHcCAQEE``/``MIGkAgEBBD``/PKCS#8 ``MIG…AgEAMBMGByqGSM49AgEG``, Ed25519 and
    # X25519 ``MC4CAQAwBQYDK2V…``, OpenSSH's ``b3BlbnNzaC1rZXktdjEA``, "openssh-key-v1\0"):
    # it went out in clear. A public key (``MIIBIjAN…``) or a certificate (``MIID…gAwIBAgI``)
    # opens otherwise and stays. 48 characters on its first line at least, then its
    # wrapped lines (each whole)
    _token("pem_der", "private-key",
           r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]{48})(?:MII[A-Za-z0-9+/]{3}IBA(?:AK[B-D]"
           r"|DANBgkqhkiG9w0BAQEFAAS)|MIG[A-Za-z0-9+/](?:AgEAMBMGByqGSM49AgEG|AgEBBD)"
           r"|MHcCAQEE|MC4CAQAwBQYDK2V[uw]BCIEI|b3BlbnNzaC1rZXktdjEA)[A-Za-z0-9+/]{24,}={0,2}"
           r"(?:(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/]{4,}={0,2}(?=[ \t]*(?:\r?\n|\\n|\Z|[\"',])))*",
           "IBA", "AgE", "CAQ", "b3BlbnNzaC1rZXktdjEA"),
    # its middle lines alone, no armour and no DER opening (a paste cut at both ends, an
    # END line cut mid-word after them): three or more of PEM's full 64-character lines,
    # then a short last one (not a word); ``accepts`` wants each line random (mixed case
    # and digits: a digest's hex is not). It went out in clear
    Rule("pem_middle", "private-key", lazy(
        r"(?<![A-Za-z0-9+/=])(?:[A-Za-z0-9+/]{64}[ \t]*\r?\n[ \t]*){2,}[A-Za-z0-9+/]{64}"
        r"(?:[ \t]*\r?\n[ \t]*(?=[A-Za-z]{0,63}[0-9+/=])[A-Za-z0-9+/]{1,63}={0,2}"
        r"(?=[ \t]*(?:\r?\n|\Z)))?"
        r"(?![A-Za-z0-9+/=])", re.ASCII), ("\n",), hint=PEM_LINES),
    _token("jwt", "jwt", _B + r"eyJ[\w-]{6,}\.eyJ[\w-]{6,}\.[\w-]*", "eyJ"),
    _token("anthropic", "anthropic-key", _BG + r"sk-ant-[\w-]{20,}", "sk-ant-"),
    _token("openai", "openai-key", _BG + r"sk-[\w-]{20,}", "sk-"),
    _token("stripe", "stripe-key",
           _BG + r"(?:[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{20,})",
           "k_live_", "k_test_", "k_prod_", "whsec_"),
    _token("github", "github-token",
           r"(?<![0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})",
           "_", hint=_GITHUB_HINT),
    _token("gitlab", "gitlab-token",
           _BG + r"(?:gl(?:pat|ptt|dt|rtr?|cbt|ft|imt|oas|soat|ffct|agent)-[\w-]{20,}"
           r"(?:\.[\w-]+)*)", "gl", hint=_GITLAB_HINT),
    _token("gitlab_runner", "gitlab-token", _B + r"GR1348941[\w-]{20,}", "GR1348941"),
    _token("slack", "slack-token", _BG + r"(?:xox[abeoprs]|xapp-[0-9])-[A-Za-z0-9-]{10,}",
           "xox", "xapp-"),
    _token("slack_hook", "slack-webhook",
           r"https?://hooks\.slack\.com/(?:services|workflows|triggers)/[\w/+-]{20,}",
           "hooks.slack.com"),
    _token("google", "google-api-key", _BG + r"AIza[\w-]{35}" + _E, "AIza"),
    _token("google_secret", "google-oauth-secret", _B + r"GOCSPX-[\w-]{28}" + _E, "GOCSPX-"),
    _token("google_token", "google-oauth-token", _B + r"ya29\.[\w-]{20,}", "ya29."),
    _token("npm", "npm-token", _BG + r"npm_[A-Za-z0-9]{36}" + _E, "npm_"),
    _token("pypi", "pypi-token", _B + r"pypi-Ag[\w-]{50,}", "pypi-"),
    _token("hf", "huggingface-token", _BG + r"hf_[A-Za-z0-9]{30,}" + _E, "hf_"),
    _token("groq", "groq-key", _B + r"gsk_[A-Za-z0-9]{48,}" + _E, "gsk_"),
    _token("shopify", "shopify-token", _B + r"shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{32}" + _E, "shp"),
    _token("digitalocean", "digitalocean-token", _B + r"do[opr]_v1_[a-f0-9]{64}" + _E, "_v1_"),
    _token("heroku", "heroku-key", _B + r"HRKU-[\w-]{40,}", "HRKU-"),
    _token("twilio", "twilio-api-key", _B + r"SK[0-9a-f]{32}" + _E, "SK"),
    _token("sendgrid", "sendgrid-key", _B + r"SG\.[\w-]{22}\.[\w-]{43}" + _E, "SG."),
    # (in capitals too, as a shouted note or a config of capitals writes it: ``KEY-3AX6…``
    # went out in clear; a digit in it, as a key's random body holds)
    _token("mailgun", "mailgun-key",
           _B + r"(?:key-[A-Za-z0-9]{32}|KEY-(?=[A-Z]{0,31}[0-9])[A-Z0-9]{32})" + _E,
           "key-", "KEY-"),
    # Mailgun's keys since 2023 (account and domain sending keys): 32 hex, then two groups
    # of 8 with no ``key-`` label; it went out in clear. A UUID, an MD5 digest and a
    # 32-hex run of one class (``0000…``, a name's letters) stay
    _token("mailgun_v2", "mailgun-key",
           _B + r"(?:(?=[0-9]{0,31}[a-f])(?=[a-f]{0,31}[0-9])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}"
           r"|(?=[0-9]{0,31}[A-F])(?=[A-F]{0,31}[0-9])[0-9A-F]{32}-[0-9A-F]{8}-[0-9A-F]{8})"
           + _E, "-", hint=_MAILGUN_HINT),
    _token("mailchimp", "mailchimp-key", _B + r"[0-9a-f]{32}-us[0-9]{1,2}" + _E, "-us",
           hint=_MAILCHIMP_HINT),
    _token("discord", "discord-token",
           _B + r"[MNO][\w-]{23,27}\.[\w-]{6}\.[\w-]{27,38}" + _E, ".",
           hint=_DISCORD_HINT),
    _token("discord_hook", "discord-webhook",
           r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/[\w-]{20,}",
           "/api/webhooks/"),
    # a Microsoft Teams incoming webhook (an Office 365 connector's URL: anyone holding it
    # posts to the channel), on a tenant's ``webhook.office.com`` or the older
    # ``outlook.office.com``: it went out in clear
    _token("teams_hook", "teams-webhook",
           r"https://(?:[\w-]+\.webhook\.office|outlook\.office(?:365)?)\.com/webhook(?:b2)?/"
           r"[0-9A-Fa-f-]{36}@[0-9A-Fa-f-]{36}/IncomingWebhook/[0-9A-Fa-f]{32}/[0-9A-Fa-f-]{36}"
           r"(?:/[\w-]{1,64})?", "IncomingWebhook"),
    # an IFTTT Webhooks key in the trigger URL (anyone holding it fires the applets):
    # ``maker.ifttt.com/trigger/EVENT/with/key/KEY`` went out in clear; the key only goes
    # (a random run holding a digit and a small letter: ``{key}``, ``YOUR_KEY`` stay)
    _token("ifttt", "ifttt-webhook-key",
           r"maker\.ifttt\.com/trigger/[\w.-]{1,128}/(?:json/)?with/key/"
           r"(?P<ifttt>(?=[A-Za-z_-]{0,63}[0-9])(?=[0-9A-Z_-]{0,63}[a-z])[\w-]{16,64})" + _E,
           "ifttt.com/trigger/"),
    # (in the Bot API's URL too, glued to its ``/bot``: ``api.telegram.org/bot<token>/sendMessage``
    # went out in clear)
    _token("telegram", "telegram-bot-token",
           r"(?:(?<![\w:-])|(?<=/bot))[0-9]{8,10}:AA[\w-]{33}" + _E, ":AA"),
    # a Firebase Cloud Messaging legacy server key: ``AAAA``, 7 of the project's ID, ``:``,
    # then ``APA91b`` and 130 or so more (``Authorization: key=…`` sends with it to any
    # device of the app): it went out in clear
    _token("fcm", "fcm-server-key", r"(?<![\w-])AAAA[\w-]{7}:APA91b[\w-]{100,}", ":APA91b"),
    _token("azure_client", "azure-client-secret",
           r"(?<![\w~.-])[\w~.]{3}[0-9]Q~[\w~.-]{31,34}(?![\w~-])", "Q~"),
    # HashiCorp Vault 1.10+: service, batch and recovery tokens (at least 95 characters;
    # the legacy ``s.`` + 24 is too plain to tell from code)
    _token("vault", "vault-token", _B + r"hv[sbr]\.[\w-]{90,}", "hv"),
    # Atlassian API tokens: ``ATATT3``, base64url, then ``=`` and an 8-hex checksum
    _token("atlassian", "atlassian-token", _B + r"ATATT3[\w-]{20,}=[0-9A-F]{8}" + _E, "ATATT3"),
    _token("linear", "linear-api-key", _B + r"lin_api_[A-Za-z0-9]{40}" + _E, "lin_api_"),
    # Square: a legacy access token and an application (OAuth) secret; today's access
    # tokens (production and sandbox) are ``EAAA`` and 60 more, 64 in all
    _token("square", "square-token", _B + r"sq0(?:atp-[\w-]{22}|csp-[\w-]{43})" + _E, "sq0"),
    _token("square_access", "square-token", _B + r"EAAA[\w-]{60}" + _E, "EAAA"),
    # a Databricks personal access token, with the workspace suffix some carry (``-2``)
    _token("databricks", "databricks-token", _B + r"dapi[0-9a-f]{32}(?:-[0-9]+)?(?!\w)",
           "dapi"),
    # Sentry: a user token (64 hex); an organization token, base64 of its JSON payload
    # (``{"iat": …``, hence ``eyJ``), ``_``, base64 of 32 random bytes
    _token("sentry", "sentry-token", _B + r"sntry(?:u_[0-9a-f]{64}" + _E
           + r"|s_eyJ[A-Za-z0-9+/]{20,}={0,2}_[A-Za-z0-9+/]{43,}={0,2})",
           "sntry"),
    # an age identity: bech32, upper case (the public ``age1…`` recipient is not secret)
    _token("age", "age-secret-key",
           _B + r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" + _E,
           "AGE-SECRET-KEY-1"),
    # a Mapbox secret token: ``sk.``, base64url of ``{"u": …}``, ``.``, a signature (the
    # ``pk.`` public tokens are meant to be published)
    _token("mapbox", "mapbox-secret-token", _B + r"sk\.eyJ[\w-]{20,}\.[\w-]{20,}", "sk.eyJ"),
    # tokens of services a coding agent's session configures, each by its vendor's published
    # prefix (they went out in clear): Notion's integration secrets (the legacy ``secret_``
    # and today's ``ntn_``), Doppler's personal, service, CLI, service account, SCIM and
    # audit tokens, Pulumi's access tokens, Postman's API keys, New Relic's user API and
    # Insights insert keys, Grafana's service account and Cloud tokens, Supabase's access
    # and secret keys, PlanetScale's service tokens, OAuth tokens and passwords, Docker
    # Hub's personal and organization access tokens
    _token("notion", "notion-token",
           _B + r"(?:secret_[A-Za-z0-9]{43}|ntn_[0-9]{11}[A-Za-z0-9]{35})" + _E,
           "secret_", "ntn_"),
    _token("doppler", "doppler-token",
           _B + r"dp\.(?:pt|st|ct|sa|scim|audit)\.(?:[\w-]{1,64}\.)?[A-Za-z0-9]{40,44}" + _E,
           "dp."),
    _token("pulumi", "pulumi-token", _B + r"pul-[a-f0-9]{40}" + _E, "pul-"),
    _token("postman", "postman-key", _B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _E, "PMAK-"),
    _token("newrelic", "newrelic-key", _B + r"(?:NRAK-[A-Z0-9]{27}|NRII-[\w-]{32})" + _E,
           "NRAK-", "NRII-"),
    _token("grafana", "grafana-token",
           _B + r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})" + _E,
           "glsa_", "glc_"),
    _token("supabase", "supabase-token", _B + r"(?:sbp_[a-f0-9]{40}|sb_secret_[\w-]{20,})" + _E,
           "sbp_", "sb_secret_"),
    _token("planetscale", "planetscale-token", _B + r"pscale_(?:tkn|oauth|pw)_[\w.=-]{32,64}" + _E,
           "pscale_"),
    _token("docker_pat", "docker-token", _B + r"dckr_(?:pat|oat)_[\w-]{27,}" + _E, "dckr_"),
    _token("aws", "aws-access-key-id",
           r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![0-9A-Za-z])",
           "AKIA", "ASIA", "ABIA", "ACCA"),
    _token("azure_sas", "azure-sas", r"(?<!\w)sig=(?P<azure_sas>[A-Za-z0-9%+/]{30,}={0,2})",
           "sig="),
    # the signature of a signed URL (S3's and GCS's ``X-Amz-Signature=``, CloudFront's
    # ``Signature=``, beside its ``Key-Pair-Id``: the URL opens its object to anyone until
    # it expires) or of AWS's SigV4 ``Authorization`` header; a placeholder's word stays
    _token("url_signature", "url-signature",
           r"(?<![\w-])(?:X-Amz-|X-Goog-)?Signature=(?P<url_signature>[A-Za-z0-9%~_+/=-]{16,})",
           "Signature="),
    # and as Azure's CLI prints one: ``az storage account keys list``'s ``{"keyName": "key1",
    # …, "value": "…=="}``, ``az cosmosdb keys list``'s ``"primaryMasterKey": "…=="`` (a
    # Service Bus or Log Analytics ``primaryKey``/``primarySharedKey`` alike), which went
    # out in clear: padded base64 of 32+ bytes (a database's ``"primaryKey": "id"`` is none)
    Rule("azure_storage", "azure-storage-key", lazy(
        r"(?:accountkey|sharedaccesskey)[ \t]*=[ \t]*(?P<azure_storage>[A-Za-z0-9+/]{40,}={0,2})"
        r"|(?:\"keyName\"[^{}]{0,512}?\"value\"|\"(?:primary|secondary)[A-Za-z]{0,24}Key\")"
        r"\s{0,64}:\s{0,64}\"(?P<azure_json>[A-Za-z0-9+/]{42,}={1,2})\""
        # (its ``"value"`` alone, a ``--query`` having dropped ``keyName``: a storage key's
        # length, 64 bytes)
        r"|\"value\"\s{0,64}:\s{0,64}\"(?P<azure_value>[A-Za-z0-9+/]{86}==)\"",
        re.ASCII | re.IGNORECASE),
        ("accountkey", "sharedaccesskey", '"keyname"', '"primary', '"secondary', '"value"'),
        folded=True,
        anchored=True, guard="="),
    Rule("aws_secret", "aws-secret-access-key", lazy(
        r"aws_?secret_?(?:access_?)?key\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?"
        r"(?P<aws_secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])", re.ASCII | re.IGNORECASE),
        ("aws",), folded=True, anchored=True),
    # an AWS secret access key with no label (EVOLUTION item 39, review i19 #9): 40
    # characters of [A-Za-z0-9/+] are ordinary base64 (and a git SHA is 40 hex), so the
    # value alone qualifies only near an access key ID (a CSV row, an STS answer) or as a
    # random-looking value with a word naming it (see ``_AWS_NAMED``)
    Rule("aws_secret_pair", "aws-secret-access-key", lazy(
        _AWS_ID + r"(?![0-9A-Za-z])[^\[]{1,256}?" + _AWS_VALUE.format(name="aws_after")
        + r"|" + _AWS_VALUE.format(name="aws_before") + r"(?=[^\[]{1,256}?" + _AWS_ID + ")",
        re.ASCII), ("AKIA", "ASIA", "ABIA", "ACCA")),
    Rule("aws_secret_named", "aws-secret-access-key", lazy(_AWS_NAMED, re.ASCII), _AWS_WORDS,
         folded=True, anchored=True, hint=lazy(_AWS_NAMED_HINT, re.ASCII)),
)


#: every replacement starts with this; a value starting with it is never a secret again
PLACEHOLDER_PREFIX: Final = "[REDACTED:"
#: the spaces of other widths (see ``GAP``), which ``\s`` under ``re.ASCII`` does not take:
#: they end an unquoted value as a space does ("token<NBSP>: expire<NBSP>? Non…", French
#: typography, was a credential once a name's gap took them)
WIDE: Final = r"\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
#: a space between a scheme, flag or name and its value or separator: a tab, or a space
#: of any width that does not end a line (a no-break space, U+202F, U+2007, U+3000,
#: U+2009: text pasted from a rich editor or a chat holds them; ``Bearer`` then a
#: no-break space was neither refused at write nor redacted, nor ``DB_PASSWORD`` then one
#: before its ``=``)
GAP: Final = r"[ \t" + WIDE + "]"
#: a single-dash flag named for one (keytool's and jarsigner's ``-storepass``, ``-keypass``,
#: Go's flag package's and PowerShell's ``-password``, ``-token``), then a space (its ``=``
#: is an assignment's separator, the ``assign`` rule's); read from the name's word (the
#: rule is anchored there), the dash behind
DASH_FLAG_PATTERN: Final = (
    r"(?:(?<=(?<![\w-])-)(?:password|passwd|passphrase|token|secret)|(?:"
    + "|".join(f"(?<=(?<![\\w-])-{head})" for head in (
        "store", "key", "srcstore", "deststore", "srckey", "destkey")) + r")pass"
    r"|(?:(?<=(?<![\w-])-api)|(?<=(?<![\w-])-api[_-]))key)" + GAP + "+")
DASH_FLAG: Final = lazy(DASH_FLAG_PATTERN, re.ASCII | re.IGNORECASE)
#: a port, then two fields and a value (the pre-test's and the pgpass rule's hint; led by
#: its colon, a literal the engine skips to: a sixth of the cost of a class first)
#: a ``NAME=VALUE`` line's value, a token's run (16 of its characters), and what stands
#: before its ``=`` on its line when the line is that alone (secret_environments'
#: ``env_line``): searched from the ``=``, a literal the search skips to, then read back
#: to the line's start (an expression led by ``(?m:^)`` tried every place of a text: 1.5 µs
#: a 200-character excerpt of code, against 0.6), or to a prefix's space
ALONE_VALUE: Final = lazy(r"=['\"]?[A-Za-z0-9+/_-]{16}", re.ASCII)
#: what may stand before such a pair's name on its line: its start, a space (``start: DB=…
#: rails s``, ``$ DB=…``, ``sudo DB=…``), a backtick or a shell's ``(``, ``;``, ``&``, ``|``
PAIR_START: Final = r"(?m:^)[ \t]*"
PAIR_PREFIX: Final = r"(?<=[ \t`(;&|])"
_PAIR_NAME: Final = lazy(f"(?:{PAIR_START}|{PAIR_PREFIX})" + r"[A-Za-z_]\w{0,63}\Z", re.ASCII)


def alone_pair(text: str) -> bool:
    """Whether a line of ``text`` holds ``NAME=VALUE`` as ``env_line`` may read it: a name
    starting its line or after a space (:data:`PAIR_PREFIX`) before its ``=``, a token's
    run of 16 or more after it."""
    for value in ALONE_VALUE.finditer(text):
        at = value.start()
        if _PAIR_NAME.search(text, max(0, at - 64), at) is not None:
            return True
    return False


#: the literal words of the commands that print a secret (secret_printed's ``printed``),
#: single-spaced, as a pasted session writes them: the rule's needles and the pre-test's
PRINTED_NEEDLES: Final = (
    "op read", "bw get password", "pass show", "gopass show", "security find-",
    "get-login-password", "kubectl get secret", "gcloud secrets versions access",
    "az keyvault secret show", "get-secret-value", "ssm get-parameter", "doppler secrets get",
    "infisical secrets get", "chamber read", "heroku auth:token", "lpass show",
    "secret-tool lookup", "openssl rand", "rails secret", "phx.gen.secret")


PGPASS_HINT: Final = lazy(r":(?:[0-9]{4,5}|\*):[^\s:]+:[^\s:]+:\S", re.ASCII)
GITLAB: Final = lazy(_GITLAB_HINT, re.ASCII)
GITHUB: Final = lazy(_GITHUB_HINT, re.ASCII)
MAILCHIMP: Final = lazy(_MAILCHIMP_HINT, re.ASCII)
MAILGUN: Final = lazy(_MAILGUN_HINT, re.ASCII)
SECRET_PREFIX: Final = lazy(_SECRET_PREFIX_HINT, re.ASCII)
DISCORD: Final = lazy(_DISCORD_HINT, re.ASCII)
_NAMED: Final = lazy(_AWS_NAMED, re.ASCII)
_NAMED_HINT: Final = lazy(_AWS_NAMED_HINT, re.ASCII)


def named_aws_key(text: str) -> bool:
    """Whether ``aws_secret_named``'s expression matches where one of its words stands
    (the rule's own anchored search, without its ``accepts`` check)."""
    if _NAMED_HINT.search(text) is None:
        return False
    lowered = ascii_lower(text)
    for word in _AWS_WORDS:
        at = lowered.find(word)
        while at != -1:
            if _NAMED.match(text, at) is not None:
                return True
            at = lowered.find(word, at + len(word))
    return False


_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """``text`` with only its ASCII letters lowercased: offsets stay those of ``text``
    (``str.lower`` changes the length of some non-ASCII text)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
