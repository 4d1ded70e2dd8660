"""The user's documentation as one text: README.md and every docs/*.md page.

Tests that hold the documentation to what the code does read it here, not from README.md
alone: README keeps the quickstart and an index, the sections live in docs/ pages, and a
section moved from one page to another stays found."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pages() -> list[Path]:
    """README.md, then the docs/ pages in name order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def documentation() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in pages())


def section(title: str) -> str:
    """The text after the heading (any level) named ``title``, up to the end of its page."""
    text = documentation()
    found = re.search(rf"^#+ {re.escape(title)}\s*$", text, re.M)
    assert found, f"no heading {title!r} in README.md or docs/*.md"
    return text[found.end():]
