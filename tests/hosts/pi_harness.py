"""Running the real Pi from npm against the fake model server, with the Waymarks extension.

Pi is installed from the npm registry on first use into ``<repo>/.cache/pi/<variant>``
(``WAYMARKS_PI_CACHE`` overrides the root): ``pi16`` is ``@earendil-works/pi-coding-agent``
1.6.0 run by ``node@22`` from npm (it needs Node >= 22.19); ``pi073`` is
``@mariozechner/pi-coding-agent`` 0.73 on the machine's Node 20.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.install_once import install_once

REPO = Path(__file__).resolve().parents[2]
EXTENSION = REPO / "src" / "waymarks" / "hosts" / "pi_extension" / "index.ts"
#: every file of the extension: index.ts and the modules it imports (package data, all)
EXTENSION_FILES = sorted(EXTENSION.parent.glob("*.ts"))
WAYMARKS_BIN = Path(sys.executable).parent / "waymarks"
VARIANTS: dict[str, tuple[list[str], str, bool]] = {
    # name: (npm packages, package directory of the CLI, runs on the npm node@22)
    "pi16": (["node@22", "@earendil-works/pi-coding-agent@1.6.0"],
             "@earendil-works/pi-coding-agent", True),
    "pi073": (["@mariozechner/pi-coding-agent@0.73"], "@mariozechner/pi-coding-agent", False),
}


def copy_extension(work: Path) -> Path:
    """The extension's files copied into ``work`` (beside the ``node_modules`` a test
    links there, which Node resolves ``typebox`` from); its ``index.ts``."""
    for source in EXTENSION_FILES:
        (work / source.name).write_text(source.read_text())
    return work / EXTENSION.name


def cache_root() -> Path:
    return Path(os.environ.get("WAYMARKS_PI_CACHE") or REPO / ".cache" / "pi")


def install(variant: str) -> list[str]:
    """The command that starts Pi (installing it first if needed)."""
    packages, package_dir, on_node22 = VARIANTS[variant]
    prefix = cache_root() / variant
    cli = prefix / "node_modules" / package_dir / "dist" / "cli.js"
    def run_npm() -> None:
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is needed to install Pi for these tests")
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                        "--loglevel", "error", *packages], check=True, timeout=900,
                       capture_output=True)

    install_once(cache_root() / f"{variant}.lock", cli.is_file, run_npm)
    node = prefix / "node_modules" / ".bin" / "node" if on_node22 else Path(
        shutil.which("node") or "node")
    return [str(node), str(cli)]


@dataclass
class PiHome:
    """A private Pi agent directory and Waymarks home, and a project to work in."""

    root: Path
    command: list[str]
    base_url: str
    extra_env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.agent = self.root / "agent"
        self.project = self.root / "project"
        self.waymarks_home = self.root / "waymarks"
        for directory in (self.agent, self.project, self.waymarks_home):
            directory.mkdir(parents=True, exist_ok=True)
        (self.agent / "models.json").write_text(json.dumps({"providers": {"fake": {
            "baseUrl": self.base_url, "api": "openai-completions", "apiKey": "test-key",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "fake-model"}]}}}))

    @property
    def env(self) -> dict[str, str]:
        """The environment Pi runs in (an ``extra_env`` value of "" removes that name)."""
        merged = {**os.environ, "PI_CODING_AGENT_DIR": str(self.agent),
                  "HOME": str(self.root), "WAYMARKS_BIN": str(WAYMARKS_BIN),
                  "WAYMARKS_HOME": str(self.waymarks_home), "PI_SKIP_VERSION_CHECK": "1",
                  "PI_OFFLINE": "1", **self.extra_env}
        return {k: v for k, v in merged.items() if v != ""}

    def argv(self, *args: str, extension: bool = True) -> list[str]:
        loaded = ["-e", str(EXTENSION)] if extension else []
        return [*self.command, *loaded, "--provider", "fake", "--model", "fake-model", *args]

    def run(self, *args: str, extension: bool = True,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(*args, extension=extension), cwd=self.project,
                              env=self.env, capture_output=True, text=True, timeout=timeout)

    def session_files(self) -> list[Path]:
        return sorted((self.agent / "sessions").rglob("*.jsonl"))

    def entries(self) -> list[dict[str, Any]]:
        [path] = self.session_files()
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class PiRpc:
    """Pi in RPC mode: send commands, read events, answer confirmation dialogs.

    A reader thread queues every line Pi prints, so waiting never blocks past a timeout.
    ``confirm``: the answer to every confirmation dialog (``None``: close it unanswered);
    ``args``: more of Pi's arguments (another extension: ``-e FILE``).
    """

    def __init__(self, home: PiHome, confirm: bool | None = True,
                 args: tuple[str, ...] = ()) -> None:
        self.home = home
        self.confirm = confirm
        self.asked: list[dict[str, Any]] = []
        self.notices: list[str] = []
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.process = subprocess.Popen(
            home.argv("--mode", "rpc", *args), cwd=home.project, env=home.env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                self.events.put(event)

    def send(self, command: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def prompt(self, message: str, timeout: float = 60) -> list[dict[str, Any]]:
        """Send a prompt; return its events up to the end of the agent's turn (for a
        /command: up to its first notice)."""
        self.send({"id": f"p{time.monotonic_ns()}", "type": "prompt", "message": message})
        command = message.startswith("/")
        seen = len(self.notices)
        return self._until(timeout, lambda e: (len(self.notices) > seen) if command
                           else e.get("type") == "agent_end")

    def _until(self, timeout: float, done: Any) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            events.append(event)
            if event.get("type") == "extension_ui_request":
                self._answer(event)
            if done(event):
                return events
        raise TimeoutError(f"no end within {timeout} s: {events[-3:]}")

    def _answer(self, event: dict[str, Any]) -> None:
        method = event.get("method")
        if method == "notify":
            self.notices.append(str(event.get("message")))
        elif method == "confirm":
            self.asked.append(event)
            if self.confirm is not None:
                self.send({"type": "extension_ui_response", "id": event["id"],
                           "confirmed": self.confirm})
            else:
                self.send({"type": "extension_ui_response", "id": event["id"],
                           "cancelled": True})

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
