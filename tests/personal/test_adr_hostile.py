"""``waymarks adr new`` attacked as a careless or hostile user (or checkout) would: a
credential in the title, a decisions folder that is a link out of the project or a file,
two people numbering at once. Each refusal is one line with the fix, and nothing is
created (an ADR is committed with the code)."""

from __future__ import annotations

import contextlib
import json
import threading
from datetime import date
from pathlib import Path

import pytest

from tests.durability.test_disk_full import fill, small_fs  # noqa: F401 - the fixture
from tests.inprocess import waymarks
from waymarks.personal.adr_new import new_adr
from waymarks.personal.docs import DECISIONS_DIR

TOKEN = "ghp_" + "1234567890abcdefghijklmnopqrstuvwxyzAB"


def _adr(home: Path, project: Path, *title: str, expect: int) -> dict[str, object]:
    done = waymarks("--json", "adr", "new", *title, env={"WAYMARKS_HOME": str(home),
                                                         "WAYMARKS_SEMANTIC": "off"},
                    cwd=project)
    assert done.returncode == expect, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    found: dict[str, object] = json.loads(done.stdout.strip())
    return found


def test_a_credential_in_an_adr_title_is_refused_and_nothing_is_created(
        home: Path, project: Path) -> None:
    refused = _adr(home, project, "Rotate", TOKEN, "monthly", expect=2)
    assert refused["code"] == "credential"
    assert TOKEN not in json.dumps(refused)
    assert not (project / DECISIONS_DIR).exists() or not any((project / DECISIONS_DIR).iterdir())


def test_a_decisions_folder_leading_out_of_the_project_is_refused(
        home: Path, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / DECISIONS_DIR.parent).mkdir(parents=True)
    (project / DECISIONS_DIR).symlink_to(outside)
    refused = _adr(home, project, "Use WAL", expect=2)
    assert "outside" in str(refused["message"]) and "nothing was created" in \
        str(refused["message"])
    assert list(outside.iterdir()) == []


def test_a_docs_path_that_is_a_file_is_refused_with_the_fix(home: Path, project: Path) -> None:
    (project / "docs").write_text("not a folder\n")
    refused = _adr(home, project, "Use WAL", expect=2)
    assert refused["code"] == "invalid_argument"
    assert "docs" in str(refused["message"]) and "nothing was created" in \
        str(refused["message"])
    assert (project / "docs").read_text() == "not a folder\n"


@pytest.mark.slow
def test_concurrent_adrs_never_share_a_number(project: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Two writers that both listed the folder before either created its file took the
    same number (ADR-0001 twice, with different slugs)."""
    # each writer waits a moment after listing for the other to list too: without a
    # lock both list an empty folder; with one the second waits for the first to finish
    barrier = threading.Barrier(2, timeout=0.3)
    real_iterdir = Path.iterdir

    def iterdir(self: Path) -> object:
        found = list(real_iterdir(self))
        if self == project / DECISIONS_DIR:
            # serialized writers: the second never meets the first here
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait()
        return iter(found)

    monkeypatch.setattr(Path, "iterdir", iterdir)
    paths: list[Path] = []
    threads = [threading.Thread(target=lambda t=t: paths.append(
        new_adr(project, t, date(2026, 12, 3)))) for t in ("First choice", "Second choice")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    numbers = sorted(p.name[:8] for p in paths)
    assert numbers == ["ADR-0001", "ADR-0002"], numbers


def test_an_adr_that_cannot_be_written_whole_leaves_no_file_holding_its_number(
        small_fs: Path, home: Path) -> None:  # noqa: F811 - the fixture
    """On a full disk the record was created empty (``open("x")``, then the write failed):
    a file holding ADR-0001 with nothing in it, and the next record took ADR-0002. Now
    the record appears whole and synced, or not at all."""
    project = small_fs / "project"
    (project / DECISIONS_DIR).mkdir(parents=True)
    filler = fill(small_fs)
    failed = waymarks("adr", "new", "Use WAL", env={"WAYMARKS_HOME": str(home),
                                                    "WAYMARKS_SEMANTIC": "off"}, cwd=project)
    assert failed.returncode == 1, (failed.stdout, failed.stderr)
    assert "Traceback" not in failed.stderr and "No space left" in failed.stderr
    assert list((project / DECISIONS_DIR).iterdir()) == []
    filler.unlink()
    created = _adr(home, project, "Use WAL", expect=0)
    assert Path(str(created["path"])).name == "ADR-0001-use-wal.md"
    assert "## Decision" in Path(str(created["path"])).read_text()


def test_an_adr_is_as_readable_as_any_file_made_in_the_project(home: Path, project: Path
                                                               ) -> None:
    """A re-review: created like a session file, the record was 0600, unreadable to the
    checkout's other users; it takes the umask as any file the person makes there."""
    import os

    old = os.umask(0o022)
    try:
        created = _adr(home, project, "Use Postgres for storage", expect=0)
    finally:
        os.umask(old)
    assert Path(str(created["path"])).stat().st_mode & 0o777 == 0o644


def test_adr_new_in_a_subfolder_numbers_in_the_projects_decisions(home: Path,
                                                                   project: Path) -> None:
    """Run from ``src/deep`` of a checkout, ``adr new`` made ``src/deep/docs/engineering/
    decisions/ADR-0001-….md``: a second ADR-0001 beside the project's, in a tree no plan
    from the project's root reads. It goes to the nearest folder up to the checkout's root
    that has ``docs/engineering`` (a package of a monorepo keeps its own), else that root."""
    (project / ".git").mkdir()
    (project / DECISIONS_DIR).mkdir(parents=True)
    (project / DECISIONS_DIR / "ADR-0001-use-wal.md").write_text("---\nid: ADR-0001\n---\n")
    deep = project / "src" / "deep"
    deep.mkdir(parents=True)
    created = Path(str(_adr(home, deep, "Use Postgres", expect=0)["path"]))
    assert created == project / DECISIONS_DIR / "ADR-0002-use-postgres.md"
    assert not (deep / "docs").exists()
    package = project / "packages" / "api"  # its own docs: its own numbering
    (package / DECISIONS_DIR).mkdir(parents=True)
    (package / "lib").mkdir()
    created = Path(str(_adr(home, package / "lib", "Use gRPC", expect=0)["path"]))
    assert created == package / DECISIONS_DIR / "ADR-0001-use-grpc.md"
    bare = project / "tools"  # a checkout without docs/engineering yet: at its root
    (project / "docs").rename(project / "old-docs")
    bare.mkdir()
    created = Path(str(_adr(home, bare, "Use make", expect=0)["path"]))
    assert created == project / DECISIONS_DIR / "ADR-0001-use-make.md"


def test_adr_new_in_a_trusted_project_inside_a_home_checkout_stays_in_the_project(
        home: Path, tmp_path: Path) -> None:
    """A home kept in git (dotfiles) holds every project under it that has no checkout of
    its own: ``adr new`` in the trusted ``~/projects/foo`` made ``~/docs/engineering/
    decisions/ADR-0001-….md``, where no plan from the project reads (plans read the
    trusted folder's docs). A trusted folder on the way up is the project, as plans take it."""
    dotfiles = tmp_path / "user"
    (dotfiles / ".git").mkdir(parents=True)
    foo = dotfiles / "projects" / "foo"
    foo.mkdir(parents=True)
    env = {"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"}
    assert waymarks("trust", ".", env=env, cwd=foo).returncode == 0
    created = Path(str(_adr(home, foo, "Use Postgres for billing", expect=0)["path"]))
    assert created == foo / DECISIONS_DIR / "ADR-0001-use-postgres-for-billing.md"
    assert not (dotfiles / "docs").exists()
    created.write_text(created.read_text(encoding="utf-8").replace(
        "## Decision\n", "## Decision\n\nBilling lives in Postgres, frobnicated nightly.\n"),
        encoding="utf-8")
    plan = waymarks("--json", "plan", "--provider", "ollama", "--prompt",
                    "billing Postgres frobnicated", env=env, cwd=foo)
    assert plan.returncode == 0 and "frobnicated nightly" in plan.stdout
