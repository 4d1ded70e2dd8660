"""Every relative link and ``#anchor`` in README.md and docs/*.md resolves, and every docs
page is reachable from README.md: the documentation is split into pages, and a section
renamed or moved must not leave a link behind it that leads nowhere."""

from __future__ import annotations

import ast
import re
import unicodedata
from pathlib import Path

from tests.documentation import ROOT, pages

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^#{1,6} +(.*?)\s*#*\s*$")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _prose(text: str) -> list[str]:
    """The page's lines outside fenced code blocks."""
    lines, fence = [], None
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if opened:
            fence = None if fence and opened.group(1)[0] == fence[0] else \
                (fence or opened.group(1))
            continue
        if fence is None:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text (code and links as their words), lowered,
    without punctuation but ``-`` and ``_``, spaces made ``-``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors a page's headings make (a repeated one numbered, as GitHub does)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose(page.read_text(encoding="utf-8")):
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    """The targets of the page's links and images, code spans and blocks left out."""
    text = "\n".join(_prose(page.read_text(encoding="utf-8")))
    return _LINK.findall(_CODE_SPAN.sub("", text))


def broken(page: Path) -> list[str]:
    """Each relative link of the page whose file or anchor does not exist, named."""
    problems = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # http:, https:, mailto:: not this test's business
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            problems.append(f"{page.name}: {target}: no such file")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            problems.append(f"{page.name}: {target}: no heading #{anchor} in {goal.name}")
    return problems


def test_every_relative_link_and_anchor_resolves() -> None:
    problems = [problem for page in pages() for problem in broken(page)]
    assert problems == [], "\n".join(problems)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = ROOT / "README.md"
    linked = {(readme.parent / t.partition("#")[0]).resolve() for t in links(readme)}
    orphans = [p.name for p in pages()[1:] if p.resolve() not in linked]
    assert orphans == [], f"docs pages README.md's index does not link: {orphans}"


def test_the_checker_finds_a_missing_file_and_a_missing_anchor(tmp_path: Path) -> None:
    """The checks above can fail: a page with one good and three bad links."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# Memory: `supersede` and `edit`\n\n## Rules in brief\n\n## Rules in brief\n",
        encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text(
        "# Title\n\n"
        "[good](docs/a.md#memory-supersede-and-edit) [good](docs/a.md#rules-in-brief-1)"
        " [self](#title) ![img](docs/a.md) [web](https://example.com/x.md#nowhere)\n"
        "`[in code](docs/none.md)`\n\n```md\n[in a block](docs/none.md)\n```\n"
        "[file](docs/b.md) [anchor](docs/a.md#rules-in-brief-2) [own](#nowhere)\n",
        encoding="utf-8")
    assert broken(page) == [
        "README.md: docs/b.md: no such file",
        "README.md: docs/a.md#rules-in-brief-2: no heading #rules-in-brief-2 in a.md",
        "README.md: #nowhere: no heading #nowhere in README.md"]


def test_anchors_are_githubs() -> None:
    assert slug("Memory evolution: model routes, `evolve` and `evolution status`") == \
        "memory-evolution-model-routes-evolve-and-evolution-status"
    assert slug("Learning what work was done (from the tools' own results)") == \
        "learning-what-work-was-done-from-the-tools-own-results"
    assert slug("数据库 端口") == "数据库-端口"


def _messages() -> list[tuple[str, str]]:
    """Every string literal under src/waymarks (adjacent literals joined, an f-string's
    literal parts each), with its module."""
    found = []
    for module in sorted((ROOT / "src" / "waymarks").rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.append((str(module.relative_to(ROOT)), node.value))
    return found


def test_what_the_program_tells_a_user_to_read_is_where_it_says() -> None:
    """A message naming a documentation section (``(README, Team memory)``, ``(docs/team.md:
    Team memory)``, ``see docs/hosts.md``) names a page that exists and holds those words:
    after the README was split, four messages still sent the person to README for a
    section that moved."""
    heading = r"([A-Z][\w /-]*\w)"
    problems = []
    for module, text in _messages():
        text = " ".join(text.split())
        for match in re.finditer(rf"\bREADME[,:] {heading}", text):
            if slug(match.group(1)) not in anchors(ROOT / "README.md"):
                problems.append(f"{module}: README has no section {match.group(1)!r}: "
                                f"{text[:90]}")
        pointers = rf"(?:\(|[Ss]ee )(docs/[\w-]+\.md)(?:[,:] {heading})?"
        for match in re.finditer(pointers, text):
            page = ROOT / match.group(1)
            if not page.is_file():
                problems.append(f"{module}: no {match.group(1)}: {text[:90]}")
            elif match.group(2) and " ".join(match.group(2).split()) not in \
                    " ".join(page.read_text(encoding="utf-8").split()):
                problems.append(f"{module}: {match.group(1)} has no {match.group(2)!r}")
    assert problems == [], "\n".join(problems)
