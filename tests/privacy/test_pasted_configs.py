"""Credentials in the configs, commands and logs developers paste, each through the real
path a stored claim takes to a remote model (the recall digest for ``openai``) and the
write's refusal, with the ordinary text beside each rule left exactly as it was.

- a value named for what a login is given: ``DB_CREDENTIALS=user:…``, a CI's
  ``REGISTRY_AUTH=…`` (fetch's ``credentials: 'include'``, ``proxy_auth: ntlm``,
  ``author:`` and ``OAuth:`` stay);
- the password a registry login reads on its standard input (``--password-stdin``), given
  by ``echo``/``printf`` through a pipe, a here-string or a heredoc's first line (``echo
  "$CR_PAT" |``, ``cat pw.txt |`` and ``aws ecr get-login-password |`` stay);
- the ``default`` of a Terraform variable named for a credential, past its other arguments
  and a nested block (another variable's default, an empty one, stays);
- the signature of Azure Storage's ``Authorization: SharedKey ACCOUNT:SIGNATURE`` (the
  account stays);
- a private key's PEM block split: its armour wrapped between words, or its tail alone
  (the BEGIN line in another message), base64 lines and the END line (a certificate's
  tail stays);
- a cookie header whose cookies are parted by spaces alone (``Cookie: theme=dark
  sessionid=…``): each is judged, not the first only (a sentence after ``cookie:`` and
  plain cookies stay);
- a dotted token as a URL's user (``https://tok.en9Xq…@github.com``; ``jane.doe@`` stays);
- a generated password whose ``(`` comes after 2-3 characters (``PASSWORD=Xk9(mQ2…)``):
  calls with short names stay (``f(x)``, ``env("SECRET_KEY")``, ``pw(1)``);
- Azure API Management's ``Ocp-Apim-Subscription-Key`` header (a reference stays);
- the registry credential of ``npm``/``pnpm``/``yarn config set KEY VALUE``, a space its
  separator (a variable and the registry's address stay);
- the head of ``kubectl get secret -o yaml`` cut before its ``kind:`` (``apiVersion``, then
  ``data:``): values that decode to text go (a ConfigMap's so cut, plain values or bytes, and
  a block whose ``kind: ConfigMap`` follows, stay);
- a YAML complex key named for a credential, its value on the next line (``? password⏎:
  …``; a reference and another key's value stay);
- the signature of a signed URL (CloudFront's ``Signature=``, S3's ``X-Amz-Signature=``) or
  of SigV4's ``Authorization`` header (a placeholder's word stays);
- a container's environment entry named for a credential, ``- name: DB_PASSWORD⏎  value:
  …`` (Kubernetes, ECS; YAML, flow style, JSON): a reference, ``valueFrom`` and other
  names' values stay;
- an XML element named for a credential (Maven's ``<password>…</password>``): an
  encrypted ``{…}`` value, a property reference and other elements stay;
- a secret a secret store's command is given (``gh secret set … --body``, ``aws
  secretsmanager … --secret-string``, ``aws ssm put-parameter … SecureString --value``,
  ``kubectl create secret … --from-literal=KEY=``): references and plain parameters stay.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.privacy.digests import count_lengths, digest_for, digest_said, stored_home
from waymarks.core.secrets import credential_kinds
from waymarks.service.app import Waymarks

PW = "Xk9mQ2pL7vR3tY8w"

#: (topic word, stored text, what must not leave, what must stay)
CASES: list[tuple[str, str, str, list[str]]] = [
    ("bilby2", "bilby2 compose.env:\nPOSTGRES_PASSWORD: postgres  # " + "the local database's "
               "password, which the seed script and the docs both expect; " * 5 + "\nPGPORT: 5432",
     "postgres  #", ["POSTGRES_PASSWORD: [REDACTED:secret]  # the local database"]),
    ("bilby", f"bilby env: DB_CREDENTIALS=admin:{PW}", PW, ["bilby env: DB_CREDENTIALS="]),
    ("bandicoot", f"bandicoot CI: REGISTRY_AUTH={PW}Ab", PW, ["REGISTRY_AUTH="]),
    ("potoroo", f'potoroo: export NPM_AUTH="{PW}" before publishing', PW,
     ["export NPM_AUTH=", "before publishing"]),
    ("quoll", f'quoll deploy: echo "{PW}" | docker login --password-stdin -u ci reg.example.com',
     PW, ["| docker login --password-stdin -u ci reg.example.com"]),
    ("numbat", f"numbat deploy: printf '%s' '{PW}' | helm registry login ghcr.io -u me "
               "--password-stdin", PW, ["helm registry login ghcr.io"]),
    ("dunnart", f"dunnart release: docker login -u me --password-stdin <<< {PW}", PW,
     ["docker login -u me --password-stdin <<< "]),
    ("phascogale", f"phascogale job:\ndocker login -u ci --password-stdin reg <<EOF\n{PW}\nEOF",
     PW, ["docker login -u ci --password-stdin reg <<EOF", "EOF"]),
    ("kowari", f'kowari variables.tf: variable "db_password" {{\n  type = string\n'
               f'  default = "{PW}"\n}}', PW, ['variable "db_password"', "default = "]),
    ("mulgara", 'mulgara variables.tf: variable "client_secret_prod" {\n  validation {\n'
                "    condition = length(var.client_secret_prod) > 8\n  }\n"
                '  default = "postgres"\n}', "postgres", ["condition = length("]),
    ("dibbler", "dibbler curl -v: > Authorization: SharedKey myaccount:"
                "ctzMq410TV3wS7upTBcunJTDLEJwMAZuFPfr0mrrA08=", "ctzMq410TV3wS7",
     ["> Authorization: SharedKey myaccount:"]),
    ("planigale", "planigale: Authorization: SharedKeyLite acct:"
                  "Xk9mQ2pL7vR3tY8wAbcDeXk9mQ2pL7vR3tY8wAbc=", "Xk9mQ2", ["SharedKeyLite acct:"]),
    ("kaluta", f"kaluta key:\n-----BEGIN RSA PRIVATE\nKEY-----\nMIIEpAIBAAKCAQEA{PW}\n"
               "-----END RSA PRIVATE KEY-----", PW, ["kaluta key:"]),
    ("ampurta", f"ampurta, the rest of the key:\nMIIEpAIBAAKCAQEA{PW}{PW}\n{PW}Ab12\n"
                "-----END OPENSSH PRIVATE KEY-----\nthat is all", PW,
     ["ampurta, the rest of the key:", "that is all"]),
    ("antechinus", f"antechinus repro: curl -H 'Cookie: theme=dark sessionid={PW}Ab' "
                   "https://app.example.com", PW, ["curl -H 'Cookie: ", "https://app.example.com"]),
    ("kaluta2", f"kaluta2 remote: git remote add origin https://tok.{PW}@github.com/o/r.git",
     PW, ["git remote add origin https://", "@github.com/o/r.git"]),
    ("kaluta3", "kaluta3 .env: DB_PASSWORD=Xk9(mQ2pL7vR3)!\nAPP_TOKEN=aB(cD3eF5gH7jK9)",
     "mQ2pL7vR3", ["kaluta3 .env: DB_PASSWORD=", "APP_TOKEN="]),
    ("ngwayir", 'ngwayir: curl -H "Ocp-Apim-Subscription-Key: 9f8e7d6c5b4a39281706f5e4d3c2b1a0" '
                "https://x.azure-api.net/v1", "9f8e7d6c5b4a", ["https://x.azure-api.net/v1"]),
    ("wuhl", f"wuhl CI: npm config set //npm.example.com/:_authToken {PW} && npm publish",
     PW, ["npm config set //npm.example.com/:_authToken ", "&& npm publish"]),
    ("wuhl2", f"wuhl2 CI: yarn config set npmAuthToken {PW}", PW,
     ["yarn config set npmAuthToken "]),
    ("dusky", "dusky secret, the top of kubectl get secret app -o yaml:\napiVersion: v1\ndata:\n"
              "  DATABASE_URL: cG9zdGdyZXM6Ly9hZG1pbjpYazltUTJwTDd2UjN0WThAZGIvYXBw\n"
              "  MODE: cHJvZHVjdGlvbg==", "cG9zdGdyZXM6Ly9", ["  DATABASE_URL: ", "  MODE: "]),
    ("bobuck", f"bobuck values.yaml:\nconfig:\n  ? db_password\n  : {PW}\n"
               "  ? region\n  : eu-west-1",
     PW, ["  ? db_password\n  : ", "  : eu-west-1"]),
    ("rakali", "rakali link: https://d1.cloudfront.net/a.jpg?Expires=1700000000&Signature="
               f"{PW}~fGh__&Key-Pair-Id=K2JCJMDEHXQW5F", PW, ["&Key-Pair-Id=K2JCJMDEHXQW5F"]),
    ("rakali2", "rakali2 curl -v: Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE"
                "/20130524/us-east-1/s3/aws4_request, SignedHeaders=host, Signature="
                "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
     "fe5f80f77d5fa3", ["SignedHeaders=host, Signature="]),
    ("quenda", f'quenda deployment:\n  env:\n    - name: DB_PASSWORD\n      value: "{PW}"\n'
               "    - name: LOG_LEVEL\n      value: debug", PW,
     ["    - name: DB_PASSWORD\n      value: ", "value: debug"]),
    ("quenda2", f'quenda2 task definition: {{"name": "API_TOKEN", "value": "{PW}"}}', PW,
     ['{"name": "API_TOKEN", "value": "']),
    ("quenda3", f'quenda3 task-def.json:\n"environment": [\n  {{\n    "name": "API_TOKEN",\n'
                f'    "value": "{PW}"\n  }}\n]', PW, ['"name": "API_TOKEN",\n    "value": "']),
    ("dibbler2", f"dibbler2 settings.xml:\n<server>\n  <id>nexus</id>\n  <username>deploy"
                 f"</username>\n  <password>{PW}</password>\n</server>", PW,
     ["<username>deploy</username>\n  <password>", "</password>\n</server>"]),
    ("dibbler3", f"dibbler3 in app.config <DbPwd>{PW}</DbPwd> (no colon, no equals sign)", PW,
     ["<DbPwd>", "</DbPwd>"]),
    ("tuan", f'tuan setup: gh secret set API_TOKEN -b"{PW}" && aws secretsmanager create-secret'
             f" --name db --secret-string {PW}Ab && aws ssm put-parameter --name /app/db"
             f" --value {PW}Cd --type SecureString && kubectl create secret generic db"
             f" --from-literal=db={PW}Ef", PW,
     ["gh secret set API_TOKEN -b", "--type SecureString"]),
    ("tuan3", f"tuan3 Makefile\n\tgh  secret\tset API_TOKEN -b {PW} (its words parted by a tab)",
     PW, ["\tgh  secret\tset API_TOKEN -b "]),
]

#: (topic word, stored text that must reach the model as it is)
UNCHANGED: list[tuple[str, str]] = [
    ("pademelon", "pademelon client: fetch(url, { credentials: 'include' }); "
                  "credentials: \"same-origin\"; proxy_auth: ntlm; withCredentials: true"),
    ("bettong", "bettong: GOOGLE_APPLICATION_CREDENTIALS=/secrets/sa.json, "
                "author: Jane Doe, OAuth: enabled, use_auth: false"),
    ("cuscus2", "cuscus2 pip's session.py: self.auth: MultiDomainBasicAuth = MultiDomainBasicAuth("
                "index_urls=index_urls); self.credentials: ServiceAccountCredentials = creds"),
    ("cuscus3", 'cuscus3 scenarios: {"redis_auth": "Redis auth requires the ACL user cachebot.", '
                '"proxy_credentials": "ask the platform team"}'),
    ("cuscus", "cuscus bundle: {withCredentials:i.credentials||S.credentials||Y.config."
               "withCredentials,token:a.token||b.token}"),
    ("woylie", 'woylie CI: echo "$CR_PAT" | docker login ghcr.io -u me --password-stdin; '
               "cat pw.txt | podman login -u me --password-stdin quay.io; aws ecr "
               "get-login-password | docker login --username AWS --password-stdin 1.dkr.ecr"),
    ("ningaui", 'ningaui variables.tf: variable "region" {\n  default = "us-east-1"\n}\n'
                'variable "db_password" {\n  sensitive = true\n  default = ""\n}\n'
                'variable "password_length" { default = "16" }'),
    ("kultarr", "kultarr headers: Authorization: Negotiate, WWW-Authenticate: SharedKey "
                "realm=storage, Authorization: see the wiki"),
    ("mardo", "mardo cert tail:\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
              "-----END CERTIFICATE-----\nnext: -----END of the build log-----"),
    ("wambenger", "wambenger notes: cookie: SameSite=Lax is the default since Chrome 80; "
                  "curl -H 'Cookie: theme=dark lang=en'"),
    ("tarsipes", "tarsipes docs: open https://jane.doe.smith@example.com/ or "
                 "git clone https://release.bot.account@git.example.com/r.git"),
    ("yallara", 'yallara settings.py: token = f(x)\nSECRET_KEY = env("SECRET_KEY")\n'
                "pwd=pw(1)\napi_key=get(key_name)"),
    ("yallara2", 'yallara2 code: cfg = "api_key=get(key_name)"; env = \'token=abc(x)\'; '
                 'args {"code": "api_key=get(key_name)\\ntoken = load(path)\\n"}'),
    ("wopilkara", 'wopilkara: subscription_key = os.environ["APIM_KEY"]; the subscription '
                  "key: premium tier"),
    ("wurrup", "wurrup CI: npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}; "
               "npm config set registry https://registry.example.com"),
    ("gilbert", "gilbert config map, cut:\napiVersion: v1\ndata:\n  LOG_LEVEL: debug\n"
                "  NAME: postgres\n  blob: AAECAwQFBgcICQoLDA0ODw==\n\nand whole:\n"
                "apiVersion: v1\ndata:\n  MODE: cHJvZHVjdGlvbg==\nkind: ConfigMap"),
    ("ringtail", "ringtail values.yaml:\n? password\n: ${DB_PASSWORD}\n? password_policy\n: strict"
                 "\n? [a, b]\n: value"),
    ("hopping", 'hopping docs: curl "https://x.cloudfront.net/a?Expires=1&Signature='
                'YOUR_SIGNATURE_HERE&Key-Pair-Id=KEYPAIRID"; HMAC Signature=see below'),
    ("hopping2", "hopping2 SigV4 notes: Signature=hmac_sha256_hex_digest_of_request, "
                 "?X-Amz-Signature=sha256-of-the-canonical-string&X-Amz-Expires=3600, "
                 "Signature=AWS4-HMAC-SHA256-signature-placeholder"),
    ("mardo2", "mardo2 env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db}"
               "\n  - name: API_TOKEN\n    value: $(TOKEN_FROM_FILE)\n"
               '  - name: PASSWORD_MIN_LENGTH\n    value: "12"\n'
               '[{"name": "SECRET_NAME", "value": "db-credentials"}]'),
    ("mardo3", 'mardo3 chart templates/deployment.yaml:\n  env:\n    - name: DB_PASSWORD\n'
               '      value: "{{ .Values.db.password }}"\n    - name: API_TOKEN\n'
               '      value: "{{ .Values.apiToken }}"\npassword: "{{ .Values.password }}"'),
    ("kowari2", "kowari2 settings.xml: <password>{COQLCE6DU6GtcS5P=}</password> "
                "<password>${env.NEXUS_PASSWORD}</password> <secretName>db-creds</secretName>"
                " <tokenizer>standard</tokenizer>"),
    ("tuan2", 'tuan2 setup: gh secret set TOKEN --body "$TOKEN"; gh secret set --help; aws ssm '
              "put-parameter --name /x --value debug --type String; kubectl create secret generic"
              " db --from-literal=user=$DB_USER"),
]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Waymarks]:
    """Every case as a claim, written as an older version or a hand edit would leave it
    (writes holding a credential are refused now). One home for the module."""
    with stored_home(tmp_path_factory.mktemp("pasted"),
                     [text for _word, text, *_rest in (*CASES, *UNCHANGED)]) as app:
        yield app


@pytest.mark.parametrize(("word", "text", "secret", "kept"), CASES, ids=[c[0] for c in CASES])
def test_the_credential_leaves_and_its_context_stays(stored: Waymarks, word: str, text: str,
                                                    secret: str, kept: list[str]) -> None:
    digest = digest_for(stored, word)
    assert secret not in digest and secret[:6] not in digest_said(digest)
    assert "[REDACTED:" in digest
    for part in kept:
        assert json.dumps(part)[1:-1] in digest, part
    assert credential_kinds(text), "a write holding it is refused"


@pytest.mark.parametrize(("word", "text"), UNCHANGED, ids=[u[0] for u in UNCHANGED])
def test_ordinary_text_beside_the_new_rules_stays(stored: Waymarks, word: str,
                                                  text: str) -> None:
    digest = digest_for(stored, word)
    assert "[REDACTED:" not in digest
    assert json.dumps(text)[1:-1] in digest
    assert credential_kinds(text) == []


def test_a_line_of_repeated_names_is_judged_once_per_value(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``token:token:…`` (a hostile or broken line): each name's bare value ran up to 4,096
    characters through every name after it and was judged again for each, 14 s a MB; the
    characters judged now stay proportional to the text (no clock: a count)."""
    from waymarks.core import secret_checks

    judged = count_lengths(monkeypatch, secret_checks, "_looks_like_secret")
    for unit in ("token:", "pass:", "api_key=", "x_auth:", "credentials="):
        judged.clear()
        text = unit * 2000
        credential_kinds(text)
        assert sum(judged) <= 4 * len(text), unit
    judged.clear()
    assert credential_kinds(f"token: key=abc:token:{PW}") == ["secret"]
    assert judged, "the count reads the judgments (a value judged is counted)"


def test_a_line_of_values_a_glued_paren_goes_on_is_judged_once_per_value(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``PASSWORD=ab(PASSWORD=ab(…`` (a hostile or broken line, no space in it): each name's
    value a glued ``(`` went on was read, and judged, to the end of the run, a square of
    it (0.1 MB: 4 s, 0.4 MB: 65 s; a head of 2-3 characters took none before c1a52c84).
    A value inside the one just taken adds nothing to it; the characters judged stay
    proportional to the text (no clock: a count), and the run still goes whole."""
    from waymarks.core import secret_checks
    from waymarks.core.secrets import redact

    judged = count_lengths(monkeypatch, secret_checks, "_looks_like_secret")
    for unit in ("PASSWORD=ab(", "PASSWORD=a(", "api_key=Xk9m(", "--token Xk9(q"):
        judged.clear()
        text = unit * 2000
        assert redact(text)[0].startswith(unit[:unit.index("=" if "=" in unit else " ") + 1]
                                          + "[REDACTED:secret]"), unit
        assert 0 < sum(judged) <= 4 * len(text), unit
    assert redact(f"PASSWORD=Xk9(mQ2pL7vR3) token={PW}")[0] == \
        "PASSWORD=[REDACTED:secret] token=[REDACTED:secret]"


def test_a_payload_is_redacted_as_redact_reads_a_text_an_invisible_control_parts() -> None:
    """Two AWS secret keys an ESC parts (a terminal's colour code, cut): removed, the ESC
    made them one run, nothing standing alone, and the pre-test a provider's payload walk
    asks first said no; ``redact`` reads the ESC as a space too, and takes the second (the
    word KEY ends the first, on its line: a named key), which the payload sent (hypothesis
    found it). The payload now says what ``redact`` says."""
    from waymarks.core.secrets import redact
    from waymarks.planner.sanitize import sanitize

    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    text = f"{key}\x1b{key}"
    outcome = sanitize({"messages": [{"role": "user", "content": text}]}, "anthropic")
    assert redact(text)[1] == 1
    assert outcome.payload["messages"][0]["content"] == redact(text)[0]
    assert outcome.redacted_values == 1


def test_a_long_line_of_commented_values_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``token: abcd #…`` and a sentence of cache keys shaped as .pgpass lines, on one long
    line: each value read the line back to its start or on to its end (a comment), or
    lowered the whole text, a square of it (0.4 MB: 4-10 s). Counted, no clock: the
    characters looked at for each value stay bounded, and a text is lowered once."""
    from waymarks.core import secret_checks

    looked: list[int] = []

    class Line(str):
        def rfind(self, sub: str, start: int | None = None, end: int | None = None,
                  ) -> int:
            looked.append((len(self) if end is None else end) - (start or 0))
            return str.rfind(self, sub, start, end)

    lowered = count_lengths(monkeypatch, secret_checks, "ascii_lower")
    for unit in ("token: abcd #", "token\uff1a abcd #", "say user:5432:session:cart:a8f3c2d9e1b7 "):
        looked.clear()
        lowered.clear()
        text = Line(unit * 3000)
        credential_kinds(text)
        assert max(looked, default=0) <= 1024, unit
        assert sum(lowered) <= 2 * len(text), unit
    comment = secret_checks._LINE_END.match("  # " + "x" * 5000)
    assert comment is not None and comment.end() == 3  # a comment is not read at all


_ITEM = ("- apiVersion: v1\n  data:\n    password: UzNjcjN0UHc5\n    user: YWRtaW4=\n"
         "  kind: Secret\n  metadata:\n    name: db\n  type: Opaque\n")
_DOC = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
        "data:\n  password: UzNjcjN0UHc5\n  user: YWRtaW4=\n")


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nitems:\n" + _ITEM * 200 + "kind: List\n",  # kubectl get secrets -o yaml
    "---\n".join([_DOC] * 200),  # helm template, a stream of documents
    "\n".join([_DOC] * 200),  # pasted one after another
], ids=["list", "stream", "joined"])
def test_many_secrets_read_the_text_once(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """Many Secrets in one text: each data block read every kind before it as far as
    itself (a cube: 400 Secrets, 60 KB, 7.6 s), then, the nearest kind deciding, still
    listed the text's every document, kind and data line again, and a block whose kind a
    later block's data shared went through every kind after it: a square (400 Secrets:
    1.1 s as a stream, 3.7 s as a list; 800: 4.3 and 17.6 s). Counted, no clock: the
    characters the layout's expressions scan."""
    from waymarks.core import secret_manifest
    from waymarks.core.secrets import find_secrets

    scanned: list[int] = []

    class Counting:
        def __init__(self, real: Any) -> None:
            self.real = real

        def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Any:
            scanned.append(min(endpos, len(string)) - pos)
            return self.real.finditer(string, pos, endpos)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.real, name)

    for name in ("_DOCUMENT", "_ANY_KIND_LINE", "_DATA_LINE"):
        monkeypatch.setattr(secret_manifest, name, Counting(getattr(secret_manifest, name)))
    found = find_secrets(text + " ")  # (a text no earlier test read)
    assert len(found) == 400 and {span.kind for span in found} == {"kubernetes-secret"}
    assert sum(scanned) <= 4 * len(text)
