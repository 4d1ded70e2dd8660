"""Benchmark: false positives and recall of the two credential shapes added for issue 19
(review i19 #9) — an unlabelled AWS secret access key, and a Bearer token on the line after
``Authorization: Bearer`` — on real text; and the false positives of the shapes added after
it (``ADDED``: vendor tokens such as Vault's and Sentry's, a .netrc password, base64 under
an ``auth`` key, the password flags of openssl, zip, 7-Zip, the OpenLDAP clients and
smbclient, names ending in ``PASS``: only those matches of the assignment rule, and a
credential stated in a sentence, ``prose``: "the staging db password is Tr0ub4dor&3"; a
Kubernetes Secret's base64 ``data:``, ``kube_secret`` and ``kube_secret_json``; a login's
user and password side by side, ``login_pair``: "admin/admin123", and a password set or
used in a sentence, ``password_set``: "set the admin password to trustno1").

- ``false_positives``: every file under the given roots (default: this repository's
  ``src``, ``tests``, ``docs``, ``benchmarks``, ``/work/shared`` and the virtual
  environment's ``site-packages``: real code, documentation, test data, certificate
  bundles), cut in 4 KiB pieces as a tool output would be; counted per rule: how many
  40-character candidates the expression found, how many the rule accepted, and where
  (file and the first and last 4 characters only: never a whole value). The repository's
  own test corpus of fakes (``tests/privacy``) is counted apart: its hits are meant.
- ``recall``: random 40-character keys from the AWS alphabet in a sentence naming a key
  (``aws_secret_named``), in one that does not (no rule: kept), and beside a key ID
  (``aws_secret_pair``).

- ``cost``: ``redact`` per call on benchmarks/secret_redaction.py's corpora (clean claims,
  clean plain text, clean code, credentials), the current module against the module at
  ``main`` (``git show main:…``, loaded beside it), in the same run, alternating which goes
  first; the median over rounds of the mean ns per call, with the process CPU time.

Baseline: the module at ``main`` had neither rule (0 candidates, 0 hits, recall 0 for both
shapes), and its cost is measured in the same run. Prints one JSON document.

    .venv/bin/python benchmarks/secret_shapes.py [--rounds 15] [ROOT ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import string
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

from waymarks.core.secret_checks import accepts
from waymarks.core.secret_rules import RULES
from waymarks.core.secrets import redact

REPO = Path(__file__).resolve().parents[1]
NAMES = ("aws_secret_pair", "aws_secret_named", "bearer")
ADDED = ("vault", "atlassian", "linear", "square", "square_access", "databricks", "sentry",
         "age", "mapbox", "auth_b64", "netrc", "login_flag", "smb_user", "assign", "prose",
         "prose_cjk", "kube_secret", "kube_secret_json", "mailgun_v2",
         "passphrase_line", "zapier_hook", "webhook_path", "openai", "mailgun", "prose_named",
         "login_pair", "password_set", "lock_code",
         "dated_password", "sendgrid_any", "prefixed_token",
         "dotted_password", "pair_works", "shell_named")
SKIP_DIRS = {".git", "node_modules", ".cache", "__pycache__", ".mypy_cache", ".ruff_cache"}
PIECE = 4096


def _pieces(path: Path) -> list[str]:
    try:
        if path.stat().st_size > 20_000_000:
            return []
        text = path.read_text(encoding="utf-8", errors="ignore")
    except OSError:
        return []
    return [text[i:i + PIECE] for i in range(0, len(text), PIECE)]


def scan(roots: list[Path]) -> dict[str, object]:
    names = NAMES + ADDED
    rules = {rule.name: rule for rule in RULES if rule.name in names}
    counts = {name: {"candidates": 0, "accepted": 0} for name in names}
    meant = {name: 0 for name in names}
    where: list[str] = []
    files = pieces = 0
    for root in roots:
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for name in names:
                path = Path(folder, name)
                files += 1
                fake = "tests/privacy" in path.as_posix()
                for text in _pieces(path):
                    pieces += 1
                    for rule_name, rule in rules.items():
                        for match in rule.regex.finditer(text):
                            group = match.lastgroup or 0
                            start, end = match.span(group)
                            value = text[start:end]
                            if rule_name == "bearer" and "\n" not in text[
                                    match.start():start]:
                                continue  # the same-line shape is older: not counted here
                            if rule_name == "assign" and not _named_pass(match):
                                continue  # only names ending in "pass" are new
                            counts[rule_name]["candidates"] += 1
                            if not accepts(rule_name, match, start, end):
                                continue
                            if fake:
                                meant[rule_name] += 1
                                continue
                            counts[rule_name]["accepted"] += 1
                            if len(where) < 40:
                                where.append(f"{rule_name} {path}: {value[:4]}…{value[-4:]}")
    return {"files": files, "pieces": pieces, "by_rule": counts,
            "fakes_in_tests_privacy": meant, "accepted_at": where}


def _named_pass(match: re.Match[str]) -> bool:
    """Whether an assignment's name ends in "pass" (not password, passphrase)."""
    head = match.group(0)[:5].lower()
    return head.startswith("pass") and head[4:] not in ("w", "p")


def recall(samples: int = 20_000, seed: int = 7) -> dict[str, float]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "/+"
    hits = {"named": 0, "unnamed": 0, "beside_key_id": 0}
    for _ in range(samples):
        key = "".join(rng.choice(alphabet) for _ in range(40))
        key_id = "AKIA" + "".join(rng.choice(string.ascii_uppercase + "234567")
                                  for _ in range(16))
        hits["named"] += key not in redact(f"the key is {key} for staging")[0]
        hits["unnamed"] += key not in redact(f"use {key} for staging")[0]
        hits["beside_key_id"] += key not in redact(f"{key_id},{key}\n")[0]
    return {k: round(v / samples, 4) for k, v in hits.items()}


def main_redact() -> Callable[[str], tuple[str, int]]:
    """``redact`` of the module at ``main``: its rules, its pre-test (a module of its own
    since the rules were split, read with them before) and its ``secrets`` loaded beside
    the current ones under other names, each reading the others' ``main`` versions."""
    def source(path: str) -> str | None:
        done = subprocess.run(["git", "-C", str(REPO), "show", f"main:{path}"],
                              capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else None

    loaded: list[str] = []
    module = types.ModuleType("main_secrets")
    for name in ("secret_rules", "secret_checks", "secret_pretest", "secrets"):  # each after
        # what it imports
        code = source(f"src/waymarks/core/{name}.py")
        if code is None:  # not a module of its own at main
            continue
        for done in loaded:
            code = code.replace(f"from waymarks.core.{done} import", f"from main_{done} import")
        module = types.ModuleType(f"main_{name}")
        exec(compile(code, f"main_{name}", "exec"), module.__dict__)
        sys.modules[f"main_{name}"] = module
        loaded.append(name)
    return module.redact  # type: ignore[no-any-return]


def cost(rounds: int) -> dict[str, object]:
    sys.path.insert(0, str(Path(__file__).parent))
    from secret_redaction import corpora  # the same corpora as that benchmark

    texts = corpora(random.Random(7), 400)
    impls = {"main": main_redact(), "current": redact}
    out: dict[str, object] = {}
    for corpus, items in texts.items():
        times: dict[str, list[float]] = {name: [] for name in impls}
        cpu: dict[str, float] = dict.fromkeys(impls, 0.0)
        order = list(impls)
        for round_no in range(rounds):
            for name in (order if round_no % 2 == 0 else order[::-1]):
                fn = impls[name]
                started, started_cpu = time.perf_counter(), time.process_time()
                for text in items:
                    fn(text)
                times[name].append((time.perf_counter() - started) / len(items) * 1e9)
                cpu[name] += time.process_time() - started_cpu
        medians = {name: round(statistics.median(v)) for name, v in times.items()}
        out[corpus] = {"median_ns_per_call": medians,
                       "cpu_s": {k: round(v, 3) for k, v in cpu.items()},
                       "current_over_main": round(medians["current"] / medians["main"], 2),
                       "redacted": {name: sum(fn(t)[1] > 0 for t in items)
                                    for name, fn in impls.items()}}
    out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("roots", nargs="*")
    args = parser.parse_args()
    roots = [Path(a) for a in args.roots] or [
        REPO / "src", REPO / "tests", REPO / "docs", REPO / "benchmarks",
        Path("/work/shared"),
        Path(sys.prefix, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}",
             "site-packages")]
    print(json.dumps({"false_positives": scan([r for r in roots if r.exists()]),
                      "recall": recall(), "cost": cost(args.rounds),
                      "baseline_main": "neither rule: 0 hits, recall 0 for both shapes"},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
