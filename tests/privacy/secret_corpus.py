"""Real-shaped fake credentials, and look-alikes that are not credentials.

The fakes follow each vendor's published token format (prefix, alphabet, length) with
bodies from a seeded generator, so they are stable between runs and belong to no one.
They are assembled from parts (``"sk_" + "live_" + …``) so this file holds no
contiguous token for other secret scanners to trip over.

- ``TOKENS``: (kind, value) credentials recognisable on their own; the tests put each in
  prose, JSON, env-file, URL and credential-named-assignment contexts.
- ``IN_CONTEXT``: (kind, text, secret) credentials recognisable by where they stand.
- ``LOOKALIKES``: texts that must come back unchanged.
"""

from __future__ import annotations

import base64
import json
import random
import string
import struct
import zlib
from collections.abc import Callable

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"


def body(seed: str, alphabet: str, length: int) -> str:
    """``length`` characters of ``alphabet`` from a generator seeded by ``seed``, with at
    least one digit when the alphabet has digits (as a random key almost always does)."""
    rng = random.Random(seed)
    chars = [rng.choice(alphabet) for _ in range(length)]
    digits = [c for c in alphabet if c.isdigit()]
    if digits and not any(c.isdigit() for c in chars):
        chars[length // 2] = rng.choice(digits)
    return "".join(chars)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(seed: str) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": seed, "iat": 1717171717}).encode())
    return f"{header}.{payload}.{body(seed, URLSAFE, 43)}"


def discord_token(seed: str) -> str:
    user_id = str(random.Random(seed).randrange(10**17, 10**18))
    first = base64.b64encode(user_id.encode()).decode().rstrip("=")
    return f"{first}.{body(seed + '1', URLSAFE, 6)}.{body(seed + '2', URLSAFE, 27)}"


def pem(seed: str) -> str:
    return ("-----BEGIN " + "RSA PRIVATE KEY-----\n" + body(seed + "1", B64, 64) + "\n"
            + body(seed + "2", B64, 64) + "\n-----END " + "RSA PRIVATE KEY-----")


UPPER_DIGITS = string.ascii_uppercase + string.digits
#: the bech32 alphabet an age secret key is written in (upper case)
BECH32_UPPER = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def sentry_org_token(seed: str) -> str:
    """A Sentry organization token: base64 of its JSON payload, then 32 random bytes."""
    payload = json.dumps({"iat": 1717171717.5, "url": "https://sentry.io",
                          "region_url": "https://us.sentry.io", "org": seed})
    return ("sntry" + "s_" + base64.b64encode(payload.encode()).decode() + "_"
            + body(seed, B64, 43))


def mapbox_secret_token(seed: str) -> str:
    """A Mapbox secret token: ``sk.``, base64url of ``{"u": user, "a": id}``, a signature."""
    claims = json.dumps({"u": "example", "a": body(seed, string.ascii_lowercase
                                                  + string.digits, 25)}, separators=(",", ":"))
    return "s" + "k." + b64url(claims.encode()) + "." + body(seed + "sig", URLSAFE, 22)

def teams_webhook(seed: str) -> str:
    """A Microsoft Teams incoming webhook's URL (Office 365 connector): the team's and the
    tenant's IDs, the connector's, its creator's."""
    def uuid(part: str) -> str:
        hexes = body(seed + part, HEX, 32)
        return "-".join((hexes[:8], hexes[8:12], hexes[12:16], hexes[16:20], hexes[20:]))
    return ("https://contoso.webhook.office" + ".com/webhookb2/" + uuid("1") + "@" + uuid("2")
            + "/Incoming" + "Webhook/" + body(seed + "3", HEX, 32) + "/" + uuid("4"))


#: (kind, make(seed) -> a fake of that shape)
MAKERS: list[tuple[str, Callable[[str], str]]] = [
    ("private-key", pem),
    ("jwt", jwt),
    ("anthropic-key", lambda s: "sk-" + "ant-api03-" + body(s, URLSAFE, 93) + "AA"),
    ("openai-key", lambda s: "sk-" + "proj-" + body(s, URLSAFE, 48)),
    ("openai-key", lambda s: "sk-" + body(s, ALNUM, 48)),
    ("github-token", lambda s: "gh" + "p_" + body(s, ALNUM, 36)),
    ("github-token", lambda s: "gh" + "s_" + body(s, ALNUM, 36)),
    ("github-token", lambda s: "github_" + "pat_" + body(s + "1", ALNUM, 22) + "_"
     + body(s + "2", ALNUM, 59)),
    ("gitlab-token", lambda s: "gl" + "pat-" + body(s, URLSAFE, 20)),
    ("gitlab-token", lambda s: "GR" + "1348941" + body(s, URLSAFE, 20)),
    ("slack-token", lambda s: "xo" + "xb-" + body(s + "1", string.digits, 12) + "-"
     + body(s + "2", string.digits, 13) + "-" + body(s + "3", ALNUM, 24)),
    ("slack-token", lambda s: "xa" + "pp-1-" + body(s + "1", UPPER_DIGITS, 11) + "-"
     + body(s + "2", string.digits, 13) + "-" + body(s + "3", HEX, 64)),
    ("slack-webhook", lambda s: "https://hooks.slack" + ".com/services/T" + body(s + "1", ALNUM, 8)
     + "/B" + body(s + "2", ALNUM, 8) + "/" + body(s + "3", ALNUM, 24)),
    ("stripe-key", lambda s: "sk_" + "live_" + body(s, ALNUM, 24)),
    ("stripe-key", lambda s: "rk_" + "live_" + body(s, ALNUM, 24)),
    ("stripe-key", lambda s: "wh" + "sec_" + body(s, ALNUM, 32)),
    ("google-api-key", lambda s: "AI" + "za" + body(s, URLSAFE, 35)),
    ("google-oauth-secret", lambda s: "GOC" + "SPX-" + body(s, URLSAFE, 28)),
    ("google-oauth-token", lambda s: "ya" + "29." + body(s, URLSAFE, 80)),
    ("fcm-server-key", lambda s: "AA" + "AA" + body(s + "1", URLSAFE, 7) + ":APA" + "91b"
     + body(s + "2", URLSAFE, 134)),
    ("npm-token", lambda s: "np" + "m_" + body(s, ALNUM, 36)),
    ("pypi-token", lambda s: "py" + "pi-AgEIcHlwaS5vcmc" + body(s, URLSAFE, 70)),
    ("huggingface-token", lambda s: "h" + "f_" + body(s, string.ascii_letters, 34)),
    ("groq-key", lambda s: "gs" + "k_" + body(s, ALNUM, 52)),
    ("shopify-token", lambda s: "shp" + "at_" + body(s, HEX, 32)),
    ("digitalocean-token", lambda s: "do" + "p_v1_" + body(s, HEX, 64)),
    ("heroku-key", lambda s: "HR" + "KU-AA" + body(s, URLSAFE, 58)),
    ("twilio-api-key", lambda s: "S" + "K" + body(s, HEX, 32)),
    ("sendgrid-key", lambda s: "S" + "G." + body(s + "1", URLSAFE, 22) + "."
     + body(s + "2", URLSAFE, 43)),
    ("mailgun-key", lambda s: "ke" + "y-" + body(s, HEX, 32)),
    ("mailchimp-key", lambda s: body(s, HEX, 32) + "-u" + "s21"),
    ("discord-token", discord_token),
    ("discord-webhook", lambda s: "https://discord" + ".com/api/webhooks/"
     + body(s + "1", string.digits, 18) + "/" + body(s + "2", URLSAFE, 68)),
    ("teams-webhook", teams_webhook),
    ("telegram-bot-token", lambda s: "1" + body(s + "1", string.digits, 9) + ":A" + "A"
     + body(s + "2", URLSAFE, 33)),
    ("azure-client-secret", lambda s: body(s + "1", ALNUM, 3) + "8Q" + "~"
     + body(s + "2", URLSAFE + "~.", 33) + "a"),
    ("vault-token", lambda s: "hv" + "s.CAESI" + body(s, URLSAFE, 90)),
    ("vault-token", lambda s: "hv" + "b.AAAAAQ" + body(s, URLSAFE, 140)),
    ("atlassian-token", lambda s: "ATATT" + "3xFfGF0" + body(s, URLSAFE, 171) + "="
     + body(s + "sum", "0123456789ABCDEF", 8)),
    ("linear-api-key", lambda s: "lin_" + "api_" + body(s, ALNUM, 40)),
    ("square-token", lambda s: "sq0" + "atp-" + body(s, URLSAFE, 22)),
    ("square-token", lambda s: "sq0" + "csp-" + body(s, URLSAFE, 43)),
    ("square-token", lambda s: "EA" + "AA" + body(s, URLSAFE, 60)),  # today's access token
    ("databricks-token", lambda s: "da" + "pi" + body(s, HEX, 32)),
    ("sentry-token", lambda s: "sntry" + "u_" + body(s, HEX, 64)),
    ("sentry-token", sentry_org_token),
    ("age-secret-key", lambda s: "AGE-SECRET-" + "KEY-1" + body(s, BECH32_UPPER, 58)),
    ("mapbox-secret-token", mapbox_secret_token),
    ("notion-token", lambda s: "secret" + "_" + body(s, ALNUM, 43)),
    ("notion-token", lambda s: "nt" + "n_" + body(s + "1", string.digits, 11) + body(s, ALNUM, 35)),
    ("doppler-token", lambda s: "dp" + ".st.prd." + body(s, ALNUM, 40)),
    ("pulumi-token", lambda s: "pu" + "l-" + body(s, HEX, 40)),
    ("postman-key", lambda s: "PM" + "AK-" + body(s + "1", HEX, 24) + "-" + body(s, HEX, 34)),
    ("newrelic-key", lambda s: "NR" + "AK-" + body(s, string.ascii_uppercase + string.digits, 27)),
    ("grafana-token", lambda s: "gl" + "sa_" + body(s, ALNUM, 32) + "_" + body(s + "1", HEX, 8)),
    ("supabase-token", lambda s: "sb" + "p_" + body(s, HEX, 40)),
    ("planetscale-token", lambda s: "pscale" + "_tkn_" + body(s, URLSAFE, 43)),
    ("docker-token", lambda s: "dckr" + "_pat_" + body(s, URLSAFE, 27)),
    ("aws-access-key-id", lambda s: "AK" + "IA" + body(s, string.ascii_uppercase + "234567", 16)),
    ("aws-access-key-id", lambda s: "AS" + "IA" + body(s, string.ascii_uppercase + "234567", 16)),
]
TOKENS: list[tuple[str, str]] = [(kind, make(f"{kind}-{n}")) for n, (kind, make) in
                                 enumerate(MAKERS)]

AWS_SECRET = body("aws-secret", B64, 40)
#: a PEM private key as kubeconfig (``client-key-data``) and Kubernetes secrets
#: (``tls.key``) hold it: base64 of the whole block, on one line or wrapped at 76
PEM_B64 = base64.b64encode((pem("pem-b64") + "\n").encode()).decode()
PEM_B64_WRAPPED = "\n".join(PEM_B64[i:i + 76] for i in range(0, len(PEM_B64), 76))
CERT_B64 = base64.b64encode(("-----BEGIN " + "CERTIFICATE-----\n" + body("cert", B64, 64)
                             + "\n-----END CERTIFICATE-----\n").encode()).decode()
AZURE_STORAGE = body("azure-storage", B64, 86) + "=="
AZURE_SIG = body("azure-sig1", ALNUM, 20) + "%2B" + body("azure-sig2", ALNUM, 20) + "%3D"
BASIC = base64.b64encode(b"deploy:" + body("basic", ALNUM, 16).encode()).decode()
BEARER = body("bearer", ALNUM + "._~+/-", 40)
GENERIC = body("generic", ALNUM, 24)
AES_KEY = body("aes-key", HEX, 64)

#: (kind, text, the secret that must disappear)
KUBE_DATA = base64.b64encode(
    b"postgres://admin:" + body("kube-secret", ALNUM, 12).encode() + b"@db:5432/app").decode()
IN_CONTEXT: list[tuple[str, str, str]] = [
    ("kubernetes-secret", f"apiVersion: v1\ndata:\n  DATABASE_URL: {KUBE_DATA}\nkind: Secret\n",
     KUBE_DATA),
    ("url-password", "connect with postgres://admin:pw@db.internal:5432/app then migrate", "pw"),
    ("ifttt-webhook-key", "curl -X POST https://maker.ifttt.com/trigger/door/with/key/"
     "dGhpc2lzYXRlc3Rr" "ZXkxMjM0bQ", "dGhpc2lzYXRlc3Rr" "ZXkxMjM0bQ"),
    ("zapier-webhook", "POST the build to https://hooks.zapier.com/hooks/catch/" "4821937/b2x8k4j/",
     "4821937/" "b2x8k4j"),
    ("webhook-secret", "alerts go to https://chat.example.com/hooks/" "xk9vt2pq7mlwr4sz3abcd5efgh",
     "xk9vt2pq7mlwr4sz" "3abcd5efgh"),
    ("url-password", "REDIS_URL=redis://:Xk9mQ2vLp4@cache:6379/0", "Xk9mQ2vLp4"),
    ("url-password", '{"registry": "https://deploy:s3cr3t-Pa55@registry.example.com/v2/"}',
     "s3cr3t-Pa55"),
    ("url-token", "git clone https://Tk7pQ9zLm2WxAb34Cd@github.com/acme/app.git",
     "Tk7pQ9zLm2WxAb34Cd"),
    ("url-password", "git clone https://oauth2:Tk7pQ9zLm2Wx@gitlab.example.com/team/app.git",
     "Tk7pQ9zLm2Wx"),
    ("bearer", f"curl -H 'Authorization: Bearer {BEARER}' https://api.example.com/v1",
     BEARER),
    ("basic-auth", f"Authorization: Basic {BASIC}", BASIC),
    ("cookie", f"curl -H 'Cookie: theme=dark; session={GENERIC}' https://app.example.com",
     GENERIC),
    ("vault-token", f"vault login s.{GENERIC}", GENERIC),
    ("secret", f"db.example.com:5432:app:admin:{GENERIC}", GENERIC),
    ("auth-token", f"curl -H 'Authorization: token {body('gh-classic', HEX, 40)}' "
     "https://api.github.com/user", body("gh-classic", HEX, 40)),
    ("auth-token", f'{{"Authorization": "token {GENERIC}"}}', GENERIC),
    ("secret", f"mysql -h db -u root -p{GENERIC} shop < dump.sql", GENERIC),
    ("secret", f"mysqldump -uroot -p'{GENERIC}' --all-databases", GENERIC),
    ("secret", f'mariadb-dump -u app -p"{GENERIC}" shop', GENERIC),
    ("secret", f"docker exec db mysql -uroot -p{GENERIC} -e 'select 1'", GENERIC),
    ("secret", f"curl -sS -u deploy:{GENERIC} https://ci.example.com/api/json", GENERIC),
    ("secret", f"curl --user 'ci-bot:{GENERIC}' -X POST https://example.com", GENERIC),
    ("secret", f"docker login -u ci -p {GENERIC} ghcr.io", GENERIC),
    ("secret", f"sshpass -p '{GENERIC}' ssh deploy@host", GENERIC),
    ("secret", f"redis-cli -h cache -a {GENERIC} ping", GENERIC),
    ("secret", f"machine github.com login deploy password {GENERIC}", GENERIC),
    ("secret", f"machine api.heroku.com\n  login me@example.com\n  password '{GENERIC}'\n",
     GENERIC),
    ("basic-auth", f'{{"auths": {{"ghcr.io": {{"auth": "{BASIC}"}}}}}}', BASIC),
    ("basic-auth", f"//registry.npmjs.org/:_auth={BASIC}\nalways-auth=true", BASIC),
    ("secret", f"DB_PASS: {GENERIC}", GENERIC),
    ("secret", f"export SMTP_PASS='{GENERIC}'", GENERIC),
    ("secret", f"[backup]\ntype = sftp\nuser = me\npass = {GENERIC}\n", GENERIC),
    ("secret", f"  dbPass: {GENERIC}", GENERIC),
    ("secret", "SMTP_PASS=hunter", "hunter"), ("secret", "DB_PASS: postgres\n", "postgres"),
    ("secret", f"openssl enc -aes-256-cbc -salt -k {GENERIC} -in a.tar -out a.enc", GENERIC),
    ("secret", f"openssl pkcs12 -export -passout pass:{GENERIC} -out c.p12", GENERIC),
    ("secret", f"openssl enc -aes-256-cbc -K {AES_KEY} -iv 0 -in a", AES_KEY),
    ("secret", f"openssl rsa -in k.pem -passin 'pass:{GENERIC}' -out plain.pem", GENERIC),
    ("secret", f"zip -r -P {GENERIC} out.zip src", GENERIC),
    ("secret", f"7z a -p{GENERIC} -mhe=on backup.7z data", GENERIC),
    ("secret", f"ldapsearch -x -D cn=admin,dc=example,dc=org -w {GENERIC} -b dc=example",
     GENERIC),
    ("secret", f"smbclient //fs/share -U 'CORP\\alice%{GENERIC}' -c ls", GENERIC),
    ("aws-secret-access-key", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    ("aws-secret-access-key", f'{{"AWS_SECRET_ACCESS_KEY": "{AWS_SECRET}"}}', AWS_SECRET),
    ("aws-secret-access-key", f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET),
    ("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
     f"{AZURE_STORAGE};EndpointSuffix=core.windows.net", AZURE_STORAGE),
    ("azure-sas", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o"
     f"&sp=r&se=2030-01-01&sig={AZURE_SIG}", AZURE_SIG),
    ("url-signature", "https://d1.cloudfront.net/a.jpg?Expires=1700000000&Signature="
     "Qx7mP2vL9kR4tW8n~Z3cY6bH&Key-Pair-Id=K2JCJMDEHXQW5F", "Qx7mP2vL9kR4tW8n~Z3cY6bH"),
    ("private-key", f"users:\n- name: admin\n  user:\n    client-key-data: {PEM_B64}\n",
     PEM_B64[16:]),
    ("private-key", f"data:\n  tls.key: {PEM_B64}\ntype: kubernetes.io/tls", PEM_B64[16:]),
    ("private-key", f"$ base64 id_rsa\n{PEM_B64_WRAPPED}\n$ ls", PEM_B64_WRAPPED[-40:]),
    ("secret", "DB_PASSWORD=hunter22", "hunter22"),
    ("secret", "password=Xk9mQ2vL", "Xk9mQ2vL"),
    ("secret", '{"password": "Tr0ub4dor&3", "user": "bob"}', "Tr0ub4dor&3"),
    ("secret", "export PGPASSWORD='Xk9#mQ2$vL'", "Xk9#mQ2$vL"),
    ("secret", f"api_key = \"{GENERIC}\"", GENERIC),
    ("secret", f"  clientSecret: {GENERIC}\n  clientId: web", GENERIC),
    ("secret", f"x-api-key: {GENERIC}", GENERIC),
    ("secret", f"TWILIO_AUTH_TOKEN={body('twilio-auth', HEX, 32)}", body("twilio-auth", HEX, 32)),
    ("secret", f"HEROKU_API_KEY={body('heroku-uuid', HEX, 8)}-4f89-11d3-9a0c-"
     f"{body('heroku-uuid2', HEX, 12)}", body("heroku-uuid", HEX, 8)),
    ("secret", f"mysql --password {GENERIC} -u root", GENERIC),
    ("secret", f"deploy --api-key={GENERIC}", GENERIC),
    ("secret", "passphrase: 831204", "831204"),
    ("secret", "token: 9f8e7d6c5b4a3210", "9f8e7d6c5b4a3210"),
    ("secret", "access_token=abc123def456&state=xyz", "abc123def456"),
    ("secret", "SECRET_KEY: ZxQwErTyUiOpAsDfGhJk", "ZxQwErTyUiOpAsDfGhJk"),
    ("secret", 'const password = "hunter22";', "hunter22"),
    ("secret", 'if password == "hunter22":', "hunter22"),
    ("secret", '"{\\"password\\": \\"Xk9mQ2vL\\"}"', "Xk9mQ2vL"),
    ("secret", "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: postgres\n",
     "postgres"),
    ("secret", "DB_PASSWORD=postgres", "postgres"),
    ("secret", '{"password": "postgres"}', "postgres"),
    # stated in a sentence (waymarks.core.secret_prose)
    ("secret", "remember: the staging db password is Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("secret", "记住：数据库密码是 Passw0rd123", "Passw0rd123"),
    ("secret", f"the API key for prod is {GENERIC}", GENERIC),
    ("secret", "my pw: Xk9#mQ2$vL", "Xk9#mQ2$vL"),
]


def png_data_uri(width: int = 4, height: int = 4) -> str:
    """A real PNG (RGB noise), base64-encoded in a data URI."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rng = random.Random("png")
    rows = b"".join(b"\x00" + bytes(rng.randrange(256) for _ in range(width * 3))
                    for _ in range(height))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                             0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    return "data:image/png;base64," + base64.b64encode(png).decode()


LOOKALIKES: list[str] = [
    "https://docs.example.com/webhooks/getting-started-with-webhooks",
    "https://n8n.example.com/webhook/0f2b7c1e-1234-4abc-9def-0123456789ab",
    "apiVersion: v1\nkind: ConfigMap\ndata:\n  greeting: aGVsbG8gd29ybGQ=\n",
    "Cookie: theme=dark; lang=en-US",
    "vault login -method=userpass username=alice",
    "hostname:port:database:username:password",
    '"Env": ["RABBITMQ_VERSION=3.12.10",'
    ' "RABBITMQ_PGP_KEY_ID=0x0A9AF2115F4687BD29803A206B73A36E6026DFCA"]',
    '{"password": "รหัสผ่าน", "api_key": "API-Schlüssel"}',
    "2026-12-06T05:12:18:123:456789 request done",
    "request 3f2504e0-4f89-11d3-9a0c-0305e82c3301 failed twice",
    '{"id": "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "status": "ok"}',
    "fixed in commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (short 9fceb02)",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "image: python@sha256:4d2f0b6c6a2fd5e3c1b1e4b5f9a8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0",
    '"integrity": "sha512-' + base64.b64encode(bytes(range(64))).decode() + '"',
    png_data_uri(),
    f'<img src="{png_data_uri(8, 8)}" alt="logo">',
    "antidisestablishmentarianism and internationalization are long words",
    "see /home/user/.ssh/id_ed25519.pub and src/waymarks/core/secrets.py",
    r"C:\Users\me\AppData\Local\token_cache.json",
    "upgrade to 1.2.3-rc.1+build.5, then v2.10.0",
    "password: str", "token = None", "secret: str", "password: see the vault",
    "api_key: Optional[str] = None", "token: Token", "password = getpass.getpass()",
    "secret = settings.SECRET_KEY", "token := os.Getenv(\"TOKEN\")",
    "api_key = os.environ['OPENAI_API_KEY']", "password: ${DB_PASSWORD}",
    "secret: {{ secrets.deploy }}", "password = ********", "api_key: <your-key>",
    "api_key: your-api-key-here", "password: changeme", "token: 2024-01-01",
    "private_key: ~/.ssh/id_rsa", "PWD=/home/me/project", "token = request.headers.get",
    "password: correct-horse-battery-staple", "api_key: getAccessTokenFromEnvironment",
    "max_tokens: 4096", "token_count=12", "password_min_length: 12", '"token": null',
    # comparisons of two names in code: the colon ends the statement, not the value
    "if password == expected:", "while secret != previous_secret:",
    "elif token == self.token:\n    return True",
    "## API keys\n\nSet `OPENAI_API_KEY` in your shell, never in the repository.",
    "| name | type | required |\n|---|---|---|\n| token | string | yes |",
    "- [x] rotate the token: done",
    "Bearer authentication is described in RFC 6750",
    "Basic authentication sends credentials on every request",
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 deploy@host",
    "https://github.com/org/repo and git@github.com:org/repo.git",
    "http://localhost:8080/health and postgres://db.internal:5432/app",
    "https://user@example.com/path?page=2&sort=asc",
    "mailto:me@example.com, 2024-05-01T12:00:00Z, 10:30:45, 192.168.1.10",
    "arn:aws:iam::123456789012:role/Admin",
    "the sk-learn library", "TASK-1234 and SKU-99", "pk_" + "live_" + body("pk", ALNUM, 24),
    "AC" + body("twilio-sid", HEX, 32), "hf_hub_download(repo_id)", "npm_config_cache",
    "glsl-shader and gl-matrix", "key-value store", "multi-user setup",
    "colour #ff00aa, ratio 16:9, e.g. foo.bar.baz",
    "eyJhbGciOiJIUzI1NiJ9 alone is only a header",
    "mkdir -p build/out && ssh -p 22 deploy@host && git log -p HEAD && scp -P 2222 a b",
    "mysql -p shop prompts for it; mysql -P 3306 -h db; mysql -p$MYSQL_PWD; mysql -p****",
    "gcc $(mysql_config --cflags) -pthread main.c && pip install mysqlclient -pre",
    "curl -u admin https://x.io; curl -u $USER:$PASS https://x.io; curl --url http://a:80/",
    "docker run -p 8080:80 web && docker login -u ci --password-stdin && redis-cli -p 6379",
    "the machine login screen asks for a password once; machine learning passwords",
    "machine HOST login USER password PASSWORD", "machine H login U password P",
    "pass: the tests passed", "- [x] pass: done", "PASS: test-name", "bypass: 1234567",
    "on_pass: 'continue'", "first_pass: fast\n", "pass: skipped\n", "dbPass: postgres\n",
    "openssl s_client -connect h:443, then curl -k https://x.io/health",
    "compass: N45E12", "pass_rate: 0.95", "passes: 12345678", "pass = None",
    "auth: required", '"auth": "oauth2"', "auth=dGhpcyBpcyBub3Q=",
    "zip -r out.zip src && unzip -l out.zip && 7z x archive.7z && 7z a -p out.7z data",
    "ldapsearch -x -W -D cn=admin -b dc=x && ldapwhoami -x -y pwfile && ssh -p 22 host",
    "openssl enc -kfile key.txt -pass env:PW -in a && openssl rsa -passin file:pw.txt",
    "smbclient //fs/share -U alice -c ls; smbclient -N -L fs; 7z a -p -mx=9 out.7z",
    "pk.eyJ1IjoiZXhhbXBsZSIsImEiOiJjbGV4YW1wbGUifQ.public-mapbox-token",
    "hvs.short and hvb.x", "dapiDataGetTopLongShortPositionRatio(params)",
    "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p is a public key",
    "lin_api_docs", "sq0atp- is Square's prefix",
    "EAAA is the prefix of Square's tokens; EAAAAAAAAAAAAAAAAAAAAAAAAAAAAA pads",
    "sntryu_ and sntrys_ are Sentry prefixes",
    "Authorization: token authentication was GitHub's older scheme",
    '{"Authorization": f"token {TOKEN}"}', "Authorization: token $GITHUB_TOKEN",
    "https://x-access-token@github.com/o/r.git and https://github.com/o/r.git",
    "zero\u200bwidth\u200cjoiners\u200d in words\u2060and a \ufeffmark stay",
    "deploy --token --verbose", "connect(user=user, password=password)", "password=db_pass",
    "kubectl create secret generic app --from-file=./certs",
    f"    client-certificate-data: {CERT_B64}",
    f"certificate-authority-data: {CERT_B64}\nserver: https://10.0.0.1:6443",
    # everyday sentences about credentials: no value is stated (secret_prose)
    "The password policy requires 12 characters.", "Rotate the API token every 90 days.",
    "The token expiry is 3600 seconds.", "Passwords are hashed with argon2.",
    "密码长度至少 12 位。", "token is valid for 1 hour", "the password is stored in Vault",
    "the secret is in the SECRET_KEY env var", "the password is <password>",
    "the password is ****", "the password is ${DB_PASSWORD}", "the password is changeme",
    "The key is 256-bit and the token is JWT-based, HS256-signed and short-lived.",
    "the pin is c0fb4199; the PIN is 4 digits", "令牌是 OAuth2 格式，密钥为 256 位。",
]
