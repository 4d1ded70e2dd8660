"""``waymarks pi install | uninstall``: make Pi load the Waymarks extension.

Install writes one small file, ``<agent dir>/extensions/waymarks.ts`` (Pi discovers every
``*.ts`` there), which points Pi at this installation: it sets ``WAYMARKS_BIN`` to this
interpreter's ``waymarks`` (unless the environment already names one) and loads the
extension from ``integrations/pi/index.ts``. Uninstall removes exactly that file, and only
if it is the one Waymarks wrote. The agent directory is ``PI_CODING_AGENT_DIR``, else
``~/.pi/agent``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

MARK = "// written by `waymarks pi install`; `waymarks pi uninstall` removes it"
EXTENSION = Path(__file__).resolve().parents[3] / "integrations" / "pi" / "index.ts"


def agent_dir(explicit: str | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(env).expanduser() if env else Path.home() / ".pi" / "agent"


def loader_path(directory: Path) -> Path:
    return directory / "extensions" / "waymarks.ts"


def loader_text(extension: Path = EXTENSION) -> str:
    binary = Path(sys.executable).parent / "waymarks"
    return "\n".join([
        MARK,
        f"process.env.WAYMARKS_BIN ??= {json.dumps(str(binary))};",
        f"export {{ default }} from {json.dumps(str(extension))};", ""])


def install(directory: Path) -> tuple[Path, bool]:
    """Write (or refresh) the loader; returns its path and whether anything changed."""
    if not EXTENSION.is_file():
        raise FileNotFoundError(f"{EXTENSION} is missing: install Waymarks from its repository "
                                "checkout (the Pi extension ships beside the Python package)")
    path = loader_path(directory)
    text = loader_text()
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return path, False
    if path.exists() and not path.read_text(encoding="utf-8").startswith(MARK):
        raise FileExistsError(f"{path} exists and was not written by Waymarks; move it away "
                              "first")
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".ts.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)
    return path, True


def uninstall(directory: Path) -> tuple[Path, bool]:
    path = loader_path(directory)
    if not path.is_file():
        return path, False
    if not path.read_text(encoding="utf-8").startswith(MARK):
        raise FileExistsError(f"{path} was not written by Waymarks; leaving it alone")
    path.unlink()
    return path, True
