"""A committed link in ``docs/engineering`` that leads to a file of the checkout that is no
markdown doc (the person's untracked ``.env``, ``.git/config``) is not read as
engineering docs.

A link out of the project was skipped already; one to a file inside it was followed, so a
teammate's commit of ``docs/engineering/setup.md -> ../../.env`` put the person's local
settings, which git never carried, into every plan of the project as "engineering docs",
for every provider (a local one whole; a remote one with only credential-shaped values
redacted). A link to another markdown file of the project (``README.md``) is read as before.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import waymarks
from waymarks.personal.docs import load_chunks

PRIVATE = "INTERNAL_BILLING_HOST=billing-7.corp.example\nSTAFF_CODENAME=bluebird-harbor\n"


def _run(home: Path, project: Path, *args: str) -> str:
    done = waymarks("--home", str(home), *args, env={"WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert done.returncode == 0, (done.stdout, done.stderr)
    return done.stdout


def _checkout(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (home / "config.toml").write_text('[privacy]\nlocalProviders = ["ollama"]\n')
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "deploy.md").write_text("# Deploy\n\nDeploys of the billing host use kamal.\n")
    (project / ".env").write_text(PRIVATE)
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = https://billing-7.corp.example/staff/bluebird-harbor\n')
    (project / "README.md").write_text("# Billing\n\nThe billing host is billed monthly.\n")
    (docs / "setup.md").symlink_to(Path("..") / ".." / ".env")
    (docs / "remote.md").symlink_to(Path("..") / ".." / ".git" / "config")
    (docs / "readme.md").symlink_to(Path("..") / ".." / "README.md")
    _run(home, project, "trust", ".")
    return home, project


def test_a_link_to_a_file_that_is_no_doc_is_not_read(tmp_path: Path) -> None:
    home, project = _checkout(tmp_path)
    prompt = "which billing host and staff codename does setup use, and the billing remote?"
    for provider in ("ollama", "openai"):
        plan = _run(home, project, "--json", "plan", "--provider", provider, "--prompt", prompt)
        shown = "".join(m["content"] for m in json.loads(plan)["messages"]
                        if m["kind"] != "request")
        assert "kamal" in shown  # the docs are served
        assert "billed monthly" in shown  # a link to a markdown file of the project is read
        for private in ("billing-7", "bluebird-harbor", "INTERNAL_BILLING_HOST"):
            assert private not in shown, (provider, private)
    unread: list[str] = []  # what the inspector's overview names, with why
    load_chunks(project, unread=unread)
    assert sorted(u.split(":")[0] for u in unread) == ["docs/engineering/remote.md",
                                                       "docs/engineering/setup.md"]
    assert all("no markdown doc" in u for u in unread)
