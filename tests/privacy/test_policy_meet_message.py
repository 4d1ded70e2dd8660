"""A trusted project's ``remoteDefaultAllowed = ["internal"]`` beside the home's default
``["normal"]``: together they allow a remote provider nothing, and every command in the
project was refused with "remoteDefaultAllowed: an empty allow list; list at least one
level", blaming a file that lists one. Failed before the fix."""

from __future__ import annotations

from pathlib import Path

from tests.inprocess import waymarks


def test_two_allow_lists_with_no_level_in_common_say_so(home: Path, project: Path) -> None:
    def run(*args: str) -> tuple[int, str]:
        done = waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project)
        return done.returncode, done.stdout + done.stderr

    assert run("trust", ".")[0] == 0
    (project / ".waymarks").mkdir(exist_ok=True)
    (project / ".waymarks" / "config.toml").write_text(
        '[privacy]\nremoteDefaultAllowed = ["internal"]\n', encoding="utf-8")
    code, said = run("plan", "--provider", "openai", "--prompt", "db port")
    assert code != 0 and "Traceback" not in said
    assert "together allow nothing" in said and "empty allow list" not in said
    assert "normal" in said and "internal" in said  # what each allows, to choose from
    assert "[REDACTED" not in said and "WAYMARKS" not in said  # nothing was planned
