"""The test process's bytecode is kept between runs outside the checkout (tests/bytecode.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bytecode


@pytest.fixture
def leaving_it_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as a shell with ``PYTHONDONTWRITEBYTECODE`` starts it (restored after)."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", None)


@pytest.mark.usefixtures("leaving_it_out")
def test_bytecode_left_out_is_written_to_a_private_folder_of_the_temporary_root(
        tmp_path: Path) -> None:
    kept = bytecode.keep_between_runs(tmp_path)
    folder = tmp_path / f"waymarks-tests-bytecode-{os.getuid()}"
    assert kept == folder and sys.pycache_prefix == str(folder)
    assert sys.dont_write_bytecode is False
    assert folder.is_dir() and folder.stat().st_mode & 0o777 == 0o700


@pytest.mark.usefixtures("leaving_it_out")
def test_a_prefix_the_shell_chose_is_kept(tmp_path: Path) -> None:
    sys.pycache_prefix = str(tmp_path / "chosen")
    assert bytecode.keep_between_runs(tmp_path) == tmp_path / "chosen"
    assert sys.dont_write_bytecode is False
    assert not (tmp_path / f"waymarks-tests-bytecode-{os.getuid()}").exists()


@pytest.mark.parametrize("made", ["shared", "link", "file"])
@pytest.mark.usefixtures("leaving_it_out")
def test_a_folder_not_private_to_this_user_is_left_alone_and_nothing_written(
        tmp_path: Path, made: str) -> None:
    folder = tmp_path / f"waymarks-tests-bytecode-{os.getuid()}"
    if made == "shared":  # another user's /tmp/… could be written by them: same rule
        folder.mkdir()
        folder.chmod(0o777)
    elif made == "link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        folder.symlink_to(tmp_path / "elsewhere")
    else:
        folder.write_text("")
    assert bytecode.keep_between_runs(tmp_path) is None
    assert sys.dont_write_bytecode is True and sys.pycache_prefix is None


def test_a_run_that_writes_bytecode_is_left_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    assert bytecode.keep_between_runs(tmp_path) is None
    assert sys.pycache_prefix is None and list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.environ.get("BYTECODE_PROBE"), reason="run by the test below")
def test_bytecode_probe() -> None:
    """A test module the inner pytest below imports, its asserts rewritten."""
    assert bytecode.KEPT is not None


@pytest.mark.slow  # a pytest of its own, every module compiled into a fresh folder
def test_a_shell_leaving_bytecode_out_gets_the_rewritten_tests_kept_for_the_next_run(
        tmp_path: Path) -> None:
    """The team's shell sets ``PYTHONDONTWRITEBYTECODE``: pytest rewrote the asserts of
    every test module again on every run (21 of the 28 s of CPU collecting the fast lane
    took). The rewritten modules and Waymarks' own compiled ones are now in the temporary
    root's folder, where the next run reads them; the checkout gets none."""
    root = tmp_path / "root"
    root.mkdir()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DEBUG_TEMPROOT": str(root),
           "BYTECODE_PROBE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    here = Path(__file__).resolve()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p",
                           "no:cacheprovider", f"--basetemp={tmp_path / 'inner'}",
                           f"{here.name}::test_bytecode_probe"],
                          cwd=here.parent, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    kept = root / f"waymarks-tests-bytecode-{os.getuid()}"
    mirror = kept / here.parent.relative_to(here.anchor)
    tag = f"{sys.implementation.cache_tag}-pytest-{pytest.__version__}"
    assert (mirror / f"{here.stem}.{tag}.pyc").is_file(), sorted(mirror.iterdir())
    app = Path(sys.modules["waymarks.service.app"].__file__ or "")
    assert (kept / app.parent.relative_to(app.anchor)
            / f"app.{sys.implementation.cache_tag}.pyc").is_file()
