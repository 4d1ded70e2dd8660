"""Benchmark: credentials stated in sentences, and their look-alikes, through ``redact``.

Reads a JSON list of ``{"text", "secret", "value", ...}`` (``secret`` true: the sentence
holds ``value``, a credential; false: a look-alike that must pass unchanged) and reports,
for ``waymarks.core.secrets.redact`` as found on the import path:

- ``secrets``: sentences holding a credential; ``redacted``: of them, changed at all;
  ``leaked``: the whole value still in the output; ``leaked_part``: a run of 5 of its
  characters (all of a shorter value) still in the output though not elsewhere in the
  sentence (a redaction that cut the value in two);
- ``lookalikes``, ``changed``: look-alikes, and how many of them ``redact`` changed;
- ``hostile``: the cost of ``redact`` on 100 KB of each fragment below repeated (the
  shapes the sentence rules look for, with no end where a value would stop), in ms, the
  best of three, and the ratio of 200 KB's cost to 100 KB's (linear: about 2).

``--base DIR`` runs the same measurement in a subprocess importing ``DIR/src`` (a tree of
an earlier commit: ``git archive 7563c730 | tar -x -C DIR``) and reports it beside.
``--list`` adds each miss (a leak, a look-alike changed) with what ``redact`` made of it.

Not a test. Prints one JSON document to stdout.

    .venv/bin/python benchmarks/secret_sentences.py --file PAIRS.json [--base DIR] [--list]
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# (benchmarks/secret_redaction.py's care: never let a file here stand in for ``secrets``)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

#: fragments repeated to 100 KB: a noun and a verb or separator over and over, runs of a
#: value's characters with no end, the Chinese nouns and verbs, a login's pairs
HOSTILE: dict[str, str] = {
    "noun_is_joined": "the password is Ab-",
    "joined_run": "Ab1-",
    "noun_for_colon": "password for a ",
    "noun_for_colon_value": "token for x: Ab1",
    "cjk_noun_verb": "PIN 是 ",
    "env_cjk_verb": "DB_PASSWORD 设成 x",
    "cjk_noun_digits": "密码 1",
    "login_with_and": "log in with a and ",
    "pair_at": "admin / Ab1@",
    "noun_quoted": "password `a",
    "from_to": "password from a to ",
    # each shape a rule of this series reads, judged at every repeat
    "pw_joined": "pw Ab1-",
    "pin_cjk_verb_digits": "PIN 是 12",
    "qualified_colon": "token for a b c d e: ",
    "login_verb_with_and": "logging into a b c d with x and Ab1!",
    "password_from_to_value": "change the password from a b c to x ",
    "noun_backticked": "password `Ab1!` ",
    "cjk_noun_four_digits": "密码 1234，",
    "lock_code": "the alarm code for a b c d e is 12345 ",
    # a clause between the noun and its colon (core/secret_clauses.py)
    "far_open": "password for a b c d e f g h i j k ",
    "far_colon": "token on a b c: Ab1",
    # words with spaces after a password's noun (core/secret_passphrases.py)
    "pw_words": "password is ab cd ef gh ",
    "pw_quoted_open": 'password is "a b ',
    # the shapes of core/secret_more.py's modules
    "device_code_spaced": "alarm code 1 2 3 4 5 6 7 8 9 ",
    "keypad_dashed_open": "keypad 1-2-3-4-5-6-7-8-9x",
    "cjk_safe_combination": "保险柜密码 12-34-",
    # Chinese: a value in Chinese characters, the change told before "now"
    "cjk_words_joined": "密码是 蓝色-鲸",
    "cjk_words_digits": "口令:芝麻开门20",
    "cjk_gap": "密码改了，现在",
    "cjk_camel_key": "AppKey 是 Ab1",
    "dated_noun_open": "the password is 2024-10-0",
    "dated_login_open": "login is a / 1.2.",
    "dated_cjk_open": "密码就是 2024.10.",
    "set_var_to": "set A_PASSWORD to ab-1 ",
    "prefixed_token_run": "key dk_Ab1Cd2Ef3Gh4Ij5",
    "sendgrid_open": "SG.Ab1Cd2Ef3Gh.",
    "user_pass": "user a, pass Ab1",
    "cjk_login": "登录 a / Ab1",
    "from_old": "password from Ab1- to ",
    "dotted_open": "creds: a / Ab1.Cd2.",
    "pair_works_open": "a/a still w",
    "glued_note": "password is Ab1(x y ",
    "bare_symbols": "token a$b$c$d$e$f$g$h$ ",
    "shell_named_run": "export A_PASS=Ab_Cd1 ",
    "shell_named_open": "-e DB_TOKEN=Ab_Cd1_",
}
_TARGET = 100_000


def _leaked_part(text: str, value: str, out: str) -> bool:
    """Whether a run of 5 of ``value``'s characters (all of a shorter one) is in ``out``
    though not in ``text`` outside the value."""
    rest = text.replace(value, "\x00")
    width = min(5, len(value))
    return any(value[i:i + width] in out and value[i:i + width] not in rest
               for i in range(len(value) - width + 1))


def measure(path: str, listing: bool) -> dict[str, Any]:
    from waymarks.core.secrets import redact

    pairs = json.loads(Path(path).read_text(encoding="utf-8"))
    result: dict[str, Any] = {"secrets": 0, "redacted": 0, "leaked": 0, "leaked_part": 0,
                              "lookalikes": 0, "changed": 0}
    misses: list[list[str]] = []
    for pair in pairs:
        text = pair["text"]
        out = redact(text)[0]
        if pair["secret"]:
            value = pair["value"]
            result["secrets"] += 1
            result["redacted"] += out != text
            whole = value in out
            part = whole or _leaked_part(text, value, out)
            result["leaked"] += whole
            result["leaked_part"] += part
            if part:
                misses.append(["leak", text, out])
        else:
            result["lookalikes"] += 1
            result["changed"] += out != text
            if out != text:
                misses.append(["changed", text, out])
    hostile: dict[str, dict[str, float]] = {}
    for name, fragment in HOSTILE.items():
        costs = []
        for size in (_TARGET, 2 * _TARGET):
            text = (fragment * (size // len(fragment) + 1))[:size]
            best = float("inf")
            for _ in range(3):
                began = time.perf_counter()
                redact(text)
                best = min(best, time.perf_counter() - began)
            costs.append(best)
        hostile[name] = {"ms": round(costs[0] * 1000, 1),
                         "ratio_200_to_100": round(costs[1] / max(costs[0], 1e-9), 2)}
    result["hostile"] = hostile
    if listing:
        result["misses"] = misses
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--file", "--pairs", dest="file", required=True)
    parser.add_argument("--base", help="a tree whose src/ to measure beside")
    parser.add_argument("--list", action="store_true", help="list every miss")
    args = parser.parse_args()
    if not Path(args.file).is_file():
        parser.error(f"no such file: {args.file}")
    report: dict[str, Any] = {"file": args.file, "current": measure(args.file, args.list)}
    if args.base:
        env = dict(os.environ, PYTHONPATH=str(Path(args.base) / "src"))
        command = [sys.executable, str(Path(__file__).resolve()), "--file", args.file]
        if args.list:
            command.append("--list")
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        report["base"] = json.loads(done.stdout)["current"]
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
