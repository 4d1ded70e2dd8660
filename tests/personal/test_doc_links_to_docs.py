"""A committed link in ``docs/engineering`` to a markdown doc of the project that is not
named ``*.md`` (``CHANGELOG``, ``README``, ``guide.markdown``) is read as engineering docs,
as before 736b8eff, which read only ``.md`` targets: such a link was skipped and named on
the inspector's overview as "no markdown doc". Links to ``.env``, ``.git/config`` or any
other file of the checkout stay unread (tests/personal/test_doc_links_in_project.py)."""

from __future__ import annotations

from pathlib import Path

from waymarks.personal.docs import load_chunks


def test_a_link_to_a_conventional_doc_is_read(tmp_path: Path) -> None:
    project = tmp_path / "project"
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (project / "CHANGELOG").write_text("# Changes\n\nVersion two moved billing to kafka.\n")
    (project / "guide.markdown").write_text("# Guide\n\nDeploys use kamal on the edge.\n")
    (project / "settings").write_text("INTERNAL_BILLING_HOST=billing-7.corp.example\n")
    (project / ".git").mkdir()
    (project / ".git" / "README").write_text("# Hooks\n\nbluebird-harbor\n")
    (docs / "changelog.md").symlink_to(Path("..") / ".." / "CHANGELOG")
    (docs / "guide.md").symlink_to(Path("..") / ".." / "guide.markdown")
    (docs / "settings.md").symlink_to(Path("..") / ".." / "settings")
    (docs / "hooks.md").symlink_to(Path("..") / ".." / ".git" / "README")
    unread: list[str] = []
    said = "\n".join(chunk.text for chunk in load_chunks(project, unread=unread))
    assert "moved billing to kafka" in said and "kamal on the edge" in said
    assert "billing-7" not in said and "bluebird-harbor" not in said
    assert sorted(u.split(":")[0] for u in unread) == ["docs/engineering/hooks.md",
                                                       "docs/engineering/settings.md"]
