"""An OpenAI project key glued to the text around it, a paste that lost its spaces
(``keysk-proj-…``, ``…reads thesk-proj-…from``): the OpenAI rule wanted nothing of a
token's characters before ``sk-``, so the key was kept by ``memory add`` and shown to a
remote provider in clear (reproduced with the real CLI on 85ebbbd2). After letters, a
project, service-account or admin key (``sk-proj-``, ``sk-svcacct-``, ``sk-admin-``) that
reads as random starts a key now; a word's ``sk-`` (``task-…``, ``disk-…``) stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import redact

BODY = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3i"
KEY = "sk-" + "proj-" + BODY
GONE = "[REDACTED:openai-key]"


@pytest.mark.parametrize(("text", "kept"), [
    (f"key{KEY}", f"key{GONE}"),
    (f"The deploy reads the{KEY} from the vault", f"The deploy reads the{GONE} from the vault"),
    (f"OPENAI{KEY}.", f"OPENAI{GONE}."),
    (f"xx{KEY}end of it", f"xx{GONE} of it"),  # (glued after too: the key's run goes on)
    ("token" + "sk-" + "svcacct-" + BODY, f"token{GONE}"),
    ("key" + "sk-" + "admin-" + BODY, f"key{GONE}"),
])
def test_a_key_glued_to_letters_is_redacted(text: str, kept: str) -> None:
    assert might_contain_secret(text)
    assert redact(text) == (kept, 1)


@pytest.mark.parametrize("text", [
    "the task-runner-configuration-for-staging-v2",
    "mount the disk-partition-table-and-the-boot-sector",
    "askproj-helper-for-the-deployment-of-the-site",
    "the risk-proj-assessment-matrix-for-the-quarter",
    "desksk-proj-helper-function-name-for-the-app",  # no digit, one case: a name
])
def test_words_glued_to_sk_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"The deploy reads key{KEY} from the vault", BODY)


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"The zanzibar deploy reads key{KEY} from the vault",
                              BODY[:20], "zanzibar deploy", GONE)
