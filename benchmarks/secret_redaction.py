"""Benchmark: the per-call cost of ``redact`` (waymarks.core.secrets), against the baseline.

``redact`` runs on every rendered item of every model request, so its cost on text
without credentials is what matters most. Corpora, generated deterministically:

- ``clean_claims``: 200-character claims and pins of a coding project (paths, commands,
  ``host:port``, dashes, and words such as key, token, password that a credential rule
  looks for), none holding a credential;
- ``clean_plain``: the same kind of claims without those words (what the pre-test alone
  decides);
- ``clean_code``: 200-character code, config and log excerpts without credentials;
- ``credentials``: the same claims, each with one credential spliced in, in rotation
  over shapes the baseline knew (OpenAI, GitHub, AWS key ID, Bearer, ``password=``, PEM)
  and shapes added since (JWT, URL password, Stripe, Slack, Google, npm, GitLab, …).

Baseline: benchmarks/secret_redaction_baseline.py, the module as it was before (a frozen copy),
timed in the same run on the same texts. Each round times one pass over a corpus with
each implementation in turn (alternating which goes first); reported per corpus and
implementation: median and minimum over rounds of the mean ns per call, how many texts
pass the pre-test, and how many credentials were redacted.

Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/secret_redaction.py [--rounds 30] [--texts 400] [--seed 7]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# this file is named like the stdlib module: never let it stand in for ``secrets``
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import argparse  # noqa: E402
import base64  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import string  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

from waymarks.core import secrets as current  # noqa: E402


def load_baseline() -> ModuleType:
    """benchmarks/secret_redaction_baseline.py, loaded by path (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("secret_redaction_baseline",
                                                  HERE / "secret_redaction_baseline.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

CLAIM_PARTS = [
    "Run `make test` before pushing", "the staging database is db-2.internal:5432",
    "use Python 3.11 for every tool", "prefer small modules - one idea each",
    "see docs/arch.md for the layer rules", "CI fails on ruff warnings; fix them first",
    "the API returns 429 when rate-limited: back off 30 s", "never commit .env files",
    "deploy with scripts/deploy.sh --dry-run first", "the user prefers tabs in Go files",
    "migrations live in store/migrations/ and run in order", "keep README sections short",
    "tokens are estimated at 4 characters each", "JSON keys are camelCase in the public API",
    "the key rotation job runs nightly at 02:00 UTC", "passwords are hashed with argon2id",
    "Bearer tokens come from the identity service", "the secret store is Vault, not env",
    "read config.toml once per request", "Note: the ledger is append-only (JSONL, Pi v3)",
    "SQLite is a projection rebuilt from the ledgers", "O(n) scans are fine below 10k rows",
    "MCP tools are thin adapters over service functions", "the retry budget is 3 attempts",
]
CODE = [
    "def load(path: Path) -> dict[str, Any]:\n    with open(path) as f:\n        return "
    "json.load(f)\n",
    "for (const entry of entries) {\n  if (entry.type === 'custom') apply(entry);\n}\n",
    "SELECT id, status FROM items WHERE scope = ? ORDER BY created_at DESC LIMIT 20;\n",
    "port: 5433\nhost: db.internal\nretries: 3\ntimeout_ms: 2500\nmax_tokens: 4096\n",
    "  File \"src/app.py\", line 42, in main\n    run(args)\nValueError: bad scope\n",
    '{"id": "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "status": "ok", "count": 12}\n',
    "2024-05-01T12:00:00Z INFO request done in 41 ms (GET /v1/items?page=2)\n",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Dev <dev@example.com>\n",
    "api_key: Optional[str] = None\npassword: str = field(repr=False)\n",
    # base64 in YAML that is no Secret's data: a ConfigMap's, a Secret's public CA
    "kind: ConfigMap\ndata:\n  logo.txt: aGVsbG8gd29ybGQ=\n  level: debug\n",
    "kind: Secret\ndata:\n  ca.crt: " + base64.b64encode(
        b"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n").decode() + "\n",
]


def rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n - 1)) + rng.choice(string.digits)


ALNUM = string.ascii_letters + string.digits
#: make(rng) -> a credential; the first six shapes are ones the baseline recognised
SHAPES: list[Callable[[random.Random], str]] = [
    lambda r: "sk-" + "proj-" + rand(r, ALNUM, 48),
    lambda r: "gh" + "p_" + rand(r, ALNUM, 36),
    lambda r: "AK" + "IA" + rand(r, string.ascii_uppercase + "234567", 16),
    lambda r: "Authorization: Bearer " + rand(r, ALNUM, 40),
    lambda r: "password=" + rand(r, ALNUM, 12),
    lambda r: "-----BEGIN " + "RSA PRIVATE KEY-----\n" + rand(r, ALNUM, 64)
    + "\n-----END RSA PRIVATE KEY-----",
    lambda r: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx" + rand(r, ALNUM, 12) + "." + rand(r, ALNUM, 43),
    lambda r: "postgres://admin:" + rand(r, ALNUM, 12) + "@db.internal/app",
    lambda r: "sk_" + "live_" + rand(r, ALNUM, 24),
    lambda r: "xo" + "xb-123456789012-1234567890123-" + rand(r, ALNUM, 24),
    lambda r: "AI" + "za" + rand(r, ALNUM, 35),
    lambda r: "np" + "m_" + rand(r, ALNUM, 36),
    lambda r: "gl" + "pat-" + rand(r, ALNUM, 20),
    lambda r: "Cookie: theme=dark; session=" + rand(r, ALNUM, 24),
    lambda r: "vault login s." + rand(r, ALNUM, 24),
    lambda r: "db.example.com:5432:app:admin:" + rand(r, ALNUM, 14),
    lambda r: "Authorization: Basic " + base64.b64encode(
        b"deploy:" + rand(r, ALNUM, 12).encode()).decode(),
    lambda r: "\nkind: Secret\ndata:\n  DATABASE_URL: " + base64.b64encode(
        b"postgres://admin:" + rand(r, ALNUM, 12).encode() + b"@db:5432/app").decode() + "\n",
    lambda r: "\ndata:\n  .dockerconfigjson: " + base64.b64encode(json.dumps({"auths": {
        "registry.example.com": {"username": "ci", "password": rand(r, ALNUM, 14)}}}).encode()
        ).decode() + "\nkind: Secret\n",
    lambda r: '{"data": {"API_KEY": "' + base64.b64encode(rand(r, ALNUM, 24).encode()).decode()
    + '"}, "kind": "Secret"}',
    # Redis's logins beside AUTH: HELLO's and MIGRATE's on a line of their own, an ACL file's
    lambda r: "\nHELLO 3 AUTH default " + rand(r, ALNUM, 14) + "\n",
    lambda r: '\nMIGRATE 10.0.0.2 6379 "" 0 5000 AUTH2 app ' + rand(r, ALNUM, 14) + " KEYS a b\n",
    lambda r: "\nuser app on >" + rand(r, ALNUM, 14) + " ~cache:* +get\n",
    lambda r: "user admin insecure-password " + rand(r, ALNUM, 14),
    lambda r: "RUN echo 'app:" + rand(r, ALNUM, 14) + "' | chpasswd",
    lambda r: "sqlplus app/" + rand(r, ALNUM, 14) + "@reports",
    lambda r: "ipmitool -I lanplus -H bmc-07 -U admin -P " + rand(r, ALNUM, 14) + " power on",
    lambda r: 'network={ ssid="HomeNet" psk="' + rand(r, ALNUM, 14) + '" }',
    lambda r: "nmcli dev wifi connect HomeNet password " + rand(r, ALNUM, 14),
    # a HAR file's Authorization header, a raw key
    lambda r: '{"name": "Authorization", "value": "' + rand(r, ALNUM, 32) + '"}',
    # a container's environment under a neutral name (docker inspect, kubectl describe),
    # a generated value (``openssl rand -base64 32``, ``-hex 32``)
    lambda r: '"Env": ["PATH=/usr/bin", "TOKEN_X=' + base64.b64encode(r.randbytes(32)).decode()
    + '"]',
    lambda r: "\n    Environment:\n      SESSION_X:  " + r.randbytes(32).hex() + "\n",
    # a key's new passphrase after its old one named by a variable
    lambda r: 'ssh-keygen -p -f id_ed25519 -P "$OLD" -N ' + rand(r, ALNUM, 14),
    lambda r: "ipmitool -I lanplus -H bmc-07 -U admin -E user set password 2 "
    + rand(r, ALNUM, 14),
    lambda r: "net user svc_build " + rand(r, ALNUM, 14) + " /add",
    lambda r: "echo 'deploy:" + rand(r, ALNUM, 14) + "' | sudo -S chpasswd",
    lambda r: 'echo "' + rand(r, ALNUM, 14) + '" | sudo -S systemctl restart nginx',
    lambda r: "exp app/" + rand(r, ALNUM, 14) + " file=app.dmp owner=app",
    lambda r: "\nchpasswd:\n  list: |\n    root:" + rand(r, ALNUM, 14) + "\n  expire: False\n",
    lambda r: "https://tiles.example.com/v2/map.png?sig=" + rand(r, ALNUM, 20),
    lambda r: '"queryString": [{"name": "key", "value": "' + rand(r, ALNUM, 20) + '"}]',
    lambda r: "echo " + base64.b64encode(b"admin:" + rand(r, ALNUM, 14).encode()).decode()
    + " | base64 -d",
    lambda r: "export SESSION_X=" + r.randbytes(32).hex(),
    lambda r: "echo " + rand(r, ALNUM, 20) + " | gh auth login --with-token",
    lambda r: "http -a admin:" + rand(r, ALNUM, 14) + " POST api.example.com/health",
    lambda r: '"Args": ["--password", "' + rand(r, ALNUM, 14) + '", "--port", "5432"]',
]


def fill(rng: random.Random, parts: list[str], size: int, joiner: str) -> str:
    text = ""
    while len(text) < size:
        text += (joiner if text else "") + rng.choice(parts)
    return text[0].upper() + text[1:size]


VOCABULARY = ("key", "token", "password", "secret", "bearer")


def corpora(rng: random.Random, count: int) -> dict[str, list[str]]:
    claims = [fill(rng, CLAIM_PARTS, 200, ". ") for _ in range(count)]
    plain_parts = [p for p in CLAIM_PARTS if not any(w in p.lower() for w in VOCABULARY)]
    plain = [fill(rng, plain_parts, 200, ". ") for _ in range(count)]
    code = [fill(rng, CODE, 200, "") for _ in range(count)]
    with_credentials = []
    for n, claim in enumerate(claims):
        cut = rng.randrange(40, 160)
        cut = claim.rfind(" ", 0, cut) + 1
        with_credentials.append(f"{claim[:cut]}{SHAPES[n % len(SHAPES)](rng)} {claim[cut:]}")
    return {"clean_claims": claims, "clean_plain": plain, "clean_code": code,
            "credentials": with_credentials}


def one_pass(redact: Callable[[str], tuple[str, int]], texts: list[str]) -> float:
    start = time.perf_counter_ns()
    for text in texts:
        redact(text)
    return (time.perf_counter_ns() - start) / len(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--texts", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    impls = {"baseline": load_baseline(), "current": current}
    results: dict[str, Any] = {}
    for name, texts in corpora(random.Random(args.seed), args.texts).items():
        for impl in impls.values():  # warm-up
            one_pass(impl.redact, texts)
        samples: dict[str, list[float]] = {key: [] for key in impls}
        for round_ in range(args.rounds):
            order = list(impls) if round_ % 2 == 0 else list(reversed(impls))
            for key in order:
                samples[key].append(one_pass(impls[key].redact, texts))
        entry: dict[str, Any] = {"texts": len(texts),
                                 "mean_chars": round(statistics.fmean(map(len, texts)))}
        for key, impl in impls.items():
            entry[key] = {
                "median_ns_per_call": round(statistics.median(samples[key])),
                "min_ns_per_call": round(min(samples[key])),
                "pretest_passed": sum(impl.might_contain_secret(t) for t in texts),
                "texts_redacted": sum(impl.redact(t)[1] > 0 for t in texts),
            }
        entry["current_over_baseline"] = round(
            entry["current"]["median_ns_per_call"] / entry["baseline"]["median_ns_per_call"], 2)
        results[name] = entry
    print(json.dumps({
        "benchmark": "redact per call: current waymarks.core.secrets against the baseline",
        "python": platform.python_version(), "machine": platform.machine(),
        "rounds": args.rounds, "seed": args.seed, "corpora": results}, indent=1))


if __name__ == "__main__":
    main()
