"""Claims the redactor reads, stored as an older version or a hand edit would leave them,
recalled through the real path to a remote model (the digest for ``openai``, and what its
claims say without their IDs); and a count of what a rule reads, for the tests that bound
its cost without a clock; and a pin the real CLI refuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


@contextmanager
def stored_home(root: Path, texts: Iterable[str]) -> Iterator[Waymarks]:
    """Each text a project claim in a home below ``root`` (writes holding a credential
    are refused now, so the write's check is set aside while they are written); the app
    yielded reads them with every check in place."""
    home, project = root / "home", root / "project"
    project.mkdir()
    with pytest.MonkeyPatch.context() as patched:
        patched.setenv("WAYMARKS_SEMANTIC", "off")  # as the suite's autouse fixture sets
        with patched.context() as writing:
            writing.setattr("waymarks.core.decisions.credential_kinds", lambda text: [])
            with Waymarks(home, cwd=str(project)) as app:
                app.trust(str(project))
                for text in texts:
                    assert isinstance(app.remember(text, scope="project"), Committed)
        with Waymarks(home, cwd=str(project)) as app:
            yield app


def digest_for(app: Waymarks, word: str) -> str:
    result = app.recall(f"what about the {word}?", provider="openai")
    assert result.digest, word
    return result.digest


#: a recalled claim's fields that hold no stored text: random IDs (the item's, its source
#: session's and entry's), the project's temporary path, a date
CLAIM_METADATA = ("id", "source", "origin", "updated")


def digest_said(digest: str) -> str:
    """``digest`` with each claim's :data:`CLAIM_METADATA` left out: what a check for a
    short piece of a secret reads, since ``"9f8e7d"`` is in one of a digest's random hex IDs
    about one run in 700,000 (the whole digest is still what a whole secret is looked for
    in)."""
    lines = []
    for line in digest.splitlines():
        if line.startswith("{"):
            claim = json.loads(line)
            assert set(CLAIM_METADATA) <= set(claim), claim  # (a renamed field is a miss)
            line = json.dumps({k: v for k, v in claim.items() if k not in CLAIM_METADATA},
                              ensure_ascii=False)
        lines.append(line)
    return "\n".join(lines)


def count_lengths(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    """Replace ``owner.name`` by itself noting the length of its first argument on each
    call; the list returned fills as it is called."""
    lengths: list[int] = []
    real: Callable[..., Any] = getattr(owner, name)

    def counting(first: str, *rest: Any, **named: Any) -> Any:
        lengths.append(len(first))
        return real(first, *rest, **named)

    monkeypatch.setattr(owner, name, counting)
    return lengths



def assert_pin_refused(root: Path, text: str, secret: str) -> None:
    """``waymarks pin -- TEXT`` run by the real CLI in a project below ``root`` (its home
    and ``HOME`` there too) is refused as holding a credential: exit 2, the secret not
    echoed."""
    project = root / "project"
    project.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(root), "WAYMARKS_HOME": str(root / "home"),
           "WAYMARKS_SEMANTIC": "off"}
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "pin", "--", text],
                          cwd=project, env=env, capture_output=True, text=True, check=False)
    said = done.stdout + done.stderr
    assert done.returncode == 2, said
    assert "credential" in said and secret not in said, said


def assert_note_recorded(root: Path, text: str, kept: str) -> None:
    """``waymarks memory add -- TEXT`` run by the CLI (in this process) in a project below
    ``root`` records the note, ``kept`` in it as written: an ordinary note a rule took
    for a credential was refused (exit 2)."""
    from tests.inprocess import waymarks

    home, project = root / "home", root / "project"
    project.mkdir(exist_ok=True)
    env = {"WAYMARKS_SEMANTIC": "off"}
    done = waymarks("--home", str(home), "memory", "add", "--", text, cwd=project, env=env)
    assert done.returncode == 0, (done.stdout, done.stderr)
    listed = waymarks("--home", str(home), "--json", "memory", "list", cwd=project, env=env)
    assert kept in listed.stdout, listed.stdout


def assert_kept_from_provider(root: Path, text: str, secret: str, word: str,
                              placeholder: str) -> None:
    """``text`` stored as a project claim below ``root`` (as an older version left it) and
    recalled about ``word`` for a remote provider (``openai``): the digest holds
    ``placeholder``, never ``secret``."""
    with stored_home(root, [text]) as app:
        digest = digest_for(app, word)
    assert secret not in digest and placeholder in digest, digest


def assert_one_secret_redacted(text: str, kept: str) -> None:
    """``text`` holds one credential every path takes out, leaving ``kept``: the pre-test
    lets it through to the rules, ``redact`` and the provider payload's ``sanitize`` give
    ``kept``, and a write holding it is refused (its kind ``secret``)."""
    from waymarks.core.secret_pretest import might_contain_secret
    from waymarks.core.secrets import credential_kinds, redact
    from waymarks.planner.sanitize import sanitize

    assert might_contain_secret(text), "the pre-test lets it through to the rules"
    assert redact(text) == (kept, 1)
    assert credential_kinds(text) == ["secret"], "a write holding it is refused"
    outcome = sanitize({"messages": [{"role": "user", "content": text}]}, "anthropic")
    assert outcome.payload["messages"][0]["content"] == kept


def shape_tests(cases: list[tuple[str, str]], unchanged: list[str]
                ) -> tuple[Callable[[str, str], None], Callable[[str], None]]:
    """The two tests of a credential shape's file, parametrized: each of ``cases`` (text,
    what is kept) has its one credential taken out on every path
    (:func:`assert_one_secret_redacted`); each of ``unchanged`` stays as it is. A module
    binds them to ``test_…`` names of its own, which pytest collects."""
    from waymarks.core.secrets import redact

    @pytest.mark.parametrize(("text", "kept"), cases)
    def redacted(text: str, kept: str) -> None:
        assert_one_secret_redacted(text, kept)

    @pytest.mark.parametrize("text", unchanged)
    def stays(text: str) -> None:
        assert redact(text) == (text, 0)

    return redacted, stays


def stated_tests(stated: list[tuple[str, str]], unchanged: list[str]
                 ) -> tuple[Callable[[str, str], None], Callable[[str], None]]:
    """:func:`shape_tests` of ``stated``, each a text and the credential it states: that
    credential (its last occurrence) alone becomes ``[REDACTED:secret]``."""
    redacted = [(text, "[REDACTED:secret]".join(text.rsplit(secret, 1)))
                for text, secret in stated]
    return shape_tests(redacted, unchanged)

