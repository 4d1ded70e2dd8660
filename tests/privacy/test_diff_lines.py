"""A key-value line in a diff or a ``+`` list: ``git diff`` marks an added line with ``+``
(a removed one with ``-``, read as a list's mark already), and Markdown takes ``+`` for a
list's mark too. A single word alone on such a line after a credential's name
(``+POSTGRES_PASSWORD: postgres``) was no key-value line, so prose's, and went to the model
in clear, while the same line removed (``-…``) or unmarked was redacted."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

CASES: list[tuple[str, str]] = [
    ("diff --git a/compose.yaml b/compose.yaml\n@@ -4 +4 @@\n-      POSTGRES_PASSWORD: postgres\n"
     "+      POSTGRES_PASSWORD: rosebud\n",
     "diff --git a/compose.yaml b/compose.yaml\n@@ -4 +4 @@\n-      POSTGRES_PASSWORD: "
     "[REDACTED:secret]\n+      POSTGRES_PASSWORD: [REDACTED:secret]\n"),
    ("+ db_password: rosebud\n", "+ db_password: [REDACTED:secret]\n"),
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_marked_line_s_word_is_redacted(text: str, kept: str) -> None:
    assert redact(text)[0] == kept


def test_one_added_line_is_one_secret() -> None:
    assert_one_secret_redacted("+POSTGRES_PASSWORD: postgres\n",
                               "+POSTGRES_PASSWORD: [REDACTED:secret]\n")


@pytest.mark.parametrize("text", ["+ the password: see the vault\n",
                                  "a + b password: reset weekly\n"])
def test_prose_stays(text: str) -> None:
    assert redact(text) == (text, 0)
