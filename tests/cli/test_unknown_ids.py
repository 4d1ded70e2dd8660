"""Every command given an ID (or a name) that names nothing says so in one shape:

    no KIND 'ARG' [WHERE]; list them with `COMMAND`

the argument quoted and escaped (at most 64 characters of it), and the command that lists
what may be named. Before, `memory show X` said `No memory 'X' …`, `unpin X` and `memory
supersede X` `No pin X …` (no quotes), `session branch X` and `memory exclude X` `No entry
X …; see …`, the team commands gave Python's repr (`"it's"`, a 100 KB argument whole),
`personal show X` "no such entry" without naming it, and the learning commands "no
learned claim has the ID 'X'; see …". Exit 2, `not_found`, nothing written, as before.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.inprocess import waymarks

SHAPE = re.compile(r"^no [a-z][a-z ]* '(?P<arg>[^']*)'(?: [^;]+)?; list them with `waymarks "
                   r"[^`]+`")
# an ID a person mistyped, with an ESC in it and a quote: echoed escaped, never raw
TYPED = "zz9\x1b[31m"
SHOWN = "zz9\\u001b[31m"


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("unknown")
    home, cwd = root / "home", root / "work"
    cwd.mkdir()
    subprocess.run(["git", "init", "-q", str(cwd)], check=True)
    env = {"WAYMARKS_HOME": str(home), "HOME": str(root / "user")}
    for args in (("trust", "."), ("team", "init"), ("learn", "on"),
                 ("memory", "add", "--", "The database port is 5433.")):
        done = waymarks(*args, env=env, cwd=cwd)
        assert done.returncode == 0, done.stdout + done.stderr
    return {**env, "cwd": str(cwd)}


COMMANDS = [
    ("unpin", TYPED), ("pin", "--supersedes", TYPED, "--", "x"),
    ("memory", "show", TYPED), ("memory", "supersede", TYPED, "--", "x"),
    ("memory", "invalidate", TYPED), ("memory", "expire", TYPED),
    ("memory", "exclude", TYPED), ("memory", "include", TYPED),
    ("session", "branch", TYPED), ("--session", TYPED, "pins"),
    ("personal", "show", "no-such-entry"), ("personal", "forget", "no-such-entry"),
    ("team", "share", TYPED), ("team", "unshare", TYPED), ("team", "exclude", TYPED),
    ("evolution", "show", TYPED), ("learn", "forget", TYPED), ("evolve", TYPED),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a).replace(TYPED, "X"))
def test_an_unknown_id_is_said_in_one_shape(place: dict[str, str], args: tuple[str, ...]
                                            ) -> None:
    env = {k: v for k, v in place.items() if k != "cwd"}
    done = waymarks("--json", *args, env=env, cwd=Path(place["cwd"]))
    assert done.returncode == 2, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["code"] in ("not_found", "bad_session"), document
    found = SHAPE.match(document["message"])
    assert found is not None, document["message"]
    assert found["arg"] == (SHOWN if TYPED in args else "no-such-entry"), document["message"]


def test_a_long_unknown_id_is_echoed_cut_short(place: dict[str, str]) -> None:
    env = {k: v for k, v in place.items() if k != "cwd"}
    for args in (("team", "share", "a" * 100_000), ("unpin", "a" * 100_000)):
        done = waymarks("--json", *args, env=env, cwd=Path(place["cwd"]))
        message = json.loads(done.stdout)["message"]
        assert f"'{'a' * 64}…'" in message and len(message) < 300, message[:300]
