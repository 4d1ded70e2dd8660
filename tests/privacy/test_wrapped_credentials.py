"""A credential wrapped across lines (pasted from a terminal or an editor that wraps) was
redacted in its first part only: the rest of it, on the next line, went to the model.
The lines that continue a credential ending its line go with it; the ordinary lines
around one stay."""

from __future__ import annotations

import pytest

from tests.privacy.secret_corpus import TOKENS
from waymarks.core.secrets import credential_kinds, find_secrets, redact


def random_tail(tail: str) -> bool:
    """A tail the rule can tell from a word: 8 or more of a token's characters, letters
    and digits both (the module says why)."""
    return (len(tail) >= 8 and any(c.isdigit() for c in tail)
            and any(c.isalpha() for c in tail)
            and tail.replace("_", "").replace("-", "").isalnum())


def first_cut(token: str) -> int | None:
    """Where a wrap can cut ``token`` with its head still recognised, from its middle on."""
    for cut in range(len(token) // 2, len(token) - 7):
        if find_secrets(token[:cut]) and random_tail(token[cut:]):
            return cut
    return None


#: (kind, token, where its wrap cuts it) for the corpus' tokens a wrap can cut so
WRAPPABLE = [(kind, token, cut) for kind, token in TOKENS if kind != "private-key"
             and (cut := first_cut(token)) is not None]


def test_the_corpus_has_wrappable_tokens_of_many_kinds() -> None:
    assert len({kind for kind, _, _ in WRAPPABLE}) >= 6


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_the_tail_of_a_wrapped_token_goes_with_its_head(newline: str) -> None:
    for kind, token, cut in WRAPPABLE:
        head, tail = token[:cut], token[cut:]
        text = f"the key:{newline}{head}{newline}{tail}{newline}thanks"
        redacted, count = redact(text)
        assert tail not in redacted and head not in redacted, kind
        assert count == 1 and redacted.endswith(f"{newline}thanks"), (kind, redacted)
        assert redacted.startswith(f"the key:{newline}[REDACTED:"), kind


def test_a_token_wrapped_over_three_lines_goes_whole() -> None:
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
    text = f"{token[:24]}\n{token[24:32]}\n{token[32:]}\nnext"
    assert redact(text) == ("[REDACTED:github-token]\nnext", 1)
    assert credential_kinds(text) == ["github-token"]


@pytest.mark.parametrize("after", [
    "Deploy tomorrow",            # prose
    "Done",                       # a word
    "OTHER_SETTING=value1",       # the next assignment of an env file
    "deploy/config/prod.yaml",    # a path
    "release-candidate",          # no digits: a name
    "v1.2.3",                     # a version
    "  indented12345 code",       # more than one run
    "12345678",                   # digits only
])
def test_an_ordinary_line_after_a_token_stays(after: str) -> None:
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
    text = f"token {token}\n{after}\nend"
    assert redact(text) == (f"token [REDACTED:github-token]\n{after}\nend", 1)


def test_a_token_that_does_not_end_its_line_takes_nothing_after_it() -> None:
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
    text = f'"token": "{token}"\nAb3dEf6h12\n'
    assert redact(text) == ('"token": "[REDACTED:github-token]"\nAb3dEf6h12\n', 1)


def test_redacting_a_wrapped_token_twice_changes_nothing_more() -> None:
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
    once, _ = redact(f"{token[:20]}\n{token[20:]}\nAb3dEf6h12\n")
    assert redact(once) == (once, 0)


@pytest.mark.parametrize("after", [
    "550e8400-e29b-41d4-a716-446655440000 is the request id",   # a UUID
    "3f2a1b9c8d7e fix: the login bug",                          # git log --oneline
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  file.txt",
    "web-5d8f7b9c4-abc12 crashed",                               # a pod's name
    "k8s-1a2b3c4d-pod restarted",
])
def test_an_identifier_starting_the_next_line_is_no_tail(after: str) -> None:
    """A line after a token starting with a request's UUID, a commit's SHA or a pod's name
    (lower-case hex, dashes) read as the token's wrapped rest: it went as the token, and
    the line break with it, so "[REDACTED:github-token] is the request id" was one line.
    A token of both cases wraps into both cases, and has no ``-`` where its head has none."""
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
    text = f"export GITHUB_TOKEN={token}\n{after}"
    assert redact(text) == (f"export GITHUB_TOKEN=[REDACTED:github-token]\n{after}", 1)


def test_a_random_tail_with_more_after_it_still_goes() -> None:
    token = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z0123"
    text = f"the token {token[:28]}\n{token[28:]} is the one"
    assert redact(text) == ("the token [REDACTED:github-token] is the one", 1)
