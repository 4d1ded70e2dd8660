"""A long-lived process settles its heap once its recall index is loaded (service/warm.py):
objects alive then leave the garbage collector's sight; a one-shot recall leaves it alone.
Run in a child process: freezing the heap is process-wide."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import gc, sys
from pathlib import Path
from waymarks.service.app import Waymarks
home, project, keep = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "keep"
app = Waymarks(home, cwd=project, keep_recall_index=keep)
app.session_new()
app.remember("The billing service listens on port 8443.")
freezes = []
freeze = gc.freeze
gc.freeze = lambda: (freezes.append(1), freeze())[1]
app.recall("which port does billing use")
first = gc.get_freeze_count()
app.recall("which port does search use")
print(first, len(freezes))
"""


def frozen(tmp_path: Path, keep: str) -> list[int]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / keep), str(project),
                           keep], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return [int(n) for n in done.stdout.split()]


def test_a_long_lived_process_settles_its_heap_once(tmp_path: Path) -> None:
    objects, freezes = frozen(tmp_path, "keep")
    assert objects > 1000  # imports and the loaded index, at least
    assert freezes == 1  # once: objects made later are collected as usual


def test_a_one_shot_recall_leaves_the_collector_alone(tmp_path: Path) -> None:
    assert frozen(tmp_path, "once") == [0, 0]
