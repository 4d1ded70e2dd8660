"""An error or refusal said on standard error is one line, whatever the argument or path it
repeats holds: ``waymarks pins $'x\\nFORGED'`` said ``Got unexpected extra argument (x``
and then a line ``FORGED)…`` of its own, one a person reads as the tool's (ESC was escaped,
the line break kept); so did a ``--cwd``, ``--home``, ``trust`` or ``pin --file`` path, and
a hook's command line with a mistake (there ESC raw too). The real entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inprocess import waymarks

FORGED = "x\nwaymarks: FORGED\x1b[2J"


def _stderr(tmp_path: Path, *args: str) -> tuple[int, str]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(exist_ok=True)
    done = waymarks(*args, env={"WAYMARKS_HOME": str(home), "HOME": str(tmp_path / "user")},
                    cwd=project)
    return done.returncode, done.stderr


#: a usage error and the environment's are said "waymarks: …"; a refusal (exit 2, a code
#: other than usage) "Refused (CODE): …", as every refusal is
REFUSED = "Refused (invalid_argument): "


@pytest.mark.parametrize(("args", "starts"), [
    (("pins", FORGED), "waymarks: "), (("session", "show", FORGED), "waymarks: "),
    (("--cwd", FORGED, "pins"), REFUSED), (("--home", FORGED, "pins"), REFUSED),
    (("trust", FORGED), REFUSED), (("pin", "--file", FORGED), "waymarks: "),
    (("hook", "claude-code", "UserPromptSubmit", FORGED), "waymarks: ")])
def test_an_error_repeating_an_argument_is_one_line(tmp_path: Path, args: tuple[str, ...],
                                                    starts: str) -> None:
    status, said = _stderr(tmp_path, *args)
    assert status in (1, 2), said
    assert said.startswith(starts) and said.count("\n") == 1, said
    assert "\x1b" not in said
    assert "x\\nwaymarks: FORGED\\u001b[2J" in said


def test_a_missing_choice_lists_the_choices_on_its_one_line(tmp_path: Path) -> None:
    """Click lists a missing argument's choices one per line; said escaped that read
    ``Choose from:\\n\\tbash,…``."""
    status, said = _stderr(tmp_path, "completion")
    assert status == 2
    assert said == ("waymarks: Missing argument '{bash|zsh|fish}'. Choose from: bash, zsh, "
                    "fish; see `waymarks completion --help`\n")
