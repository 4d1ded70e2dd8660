"""A short, real walkthrough of Waymarks: the CLI, a temporary home, a temporary project.

Every step runs the installed ``waymarks`` command as a subprocess and prints what it
printed. The walkthrough ends by deleting the database and checking that the state
rebuilt from the session file is exactly the state before; it exits non-zero if not.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path


class Walkthrough:
    def __init__(self, home: Path, project: Path) -> None:
        self.env = {**os.environ, "WAYMARKS_HOME": str(home)}
        self.project = project

    def run(self, *args: str, note: str = "", expect: int = 0, quiet: bool = False) -> str:
        if note:
            print(f"\n# {note}")
        if not quiet:
            print("$ waymarks " + " ".join(shlex.quote(a) for a in args))
        done = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", *args],
            cwd=self.project, env=self.env, capture_output=True, text=True, check=False,
        )
        output = (done.stdout + done.stderr).rstrip()
        if not quiet:
            print("  " + output.replace("\n", "\n  "))
        if done.returncode != expect:
            raise SystemExit(f"demo: `waymarks {' '.join(args)}` exited {done.returncode}, "
                             f"expected {expect}:\n{output}")
        return done.stdout

    def json(self, *args: str) -> dict:
        """Run a command for its JSON answer without printing it (the walkthrough's own reads)."""
        return json.loads(self.run("--json", *args, quiet=True))


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="waymarks-demo-") as tmp:
        home, project = Path(tmp, "home"), Path(tmp, "project")
        project.mkdir()
        w = Walkthrough(home, project)
        print(f"Home: {home}\nProject: {project}")
        w.run("session", "new", note="A standalone session (the same file format Pi writes)")
        said = w.json("session", "say", "We moved the database to port 5433 last week.")
        print(f"$ waymarks session say 'We moved the database to port 5433 last week.'\n"
              f"  {said['entryId']}")
        w.run("pin", "--", "Run the test suite before every commit.",
              note="Pin an instruction for this session")
        w.run("pin", "--", "run the test suite before every commit",
              note="The same pin again is a duplicate: nothing is appended")
        print("\n# Record a claim with its evidence (the message entry above)")
        first = w.json("memory", "add", "--source", said["entryId"], "--",
                       "The database port is 5433.")
        print(f"$ waymarks memory add --source {said['entryId']} -- 'The database port is "
              f"5433.'\n  Recorded memory {first['id']}")
        w.run("memory", "add", "--", "The database port is 5432.", expect=2,
              note="A contradicting claim is refused with the IDs involved (exit 2)")
        w.run("memory", "supersede", first["id"], "--", "The database port is 5434.",
              note="Supersede it explicitly: the old claim stays, marked superseded")
        w.run("memory", "add", "--", "Telemetry is enabled.")
        w.run("memory", "add", "--", "Telemetry is disabled.", expect=2,
              note="Opposite polarity is a conflict too")
        w.run("pin", "--scope", "project", "--", "Use ruff.", expect=2,
              note="Project scope needs a trusted project")
        w.run("trust", str(project))
        w.run("pin", "--scope", "project", "--", "Use ruff for linting.")
        leaf = w.json("session", "show")["session"]["leafId"]
        w.run("pin", "--scope", "branch", "--", "Try the new parser on this branch only.",
              note="A branch pin applies only while its creation leaf is on the active branch")
        w.run("session", "branch", said["entryId"], "--summary", "back to before the parser",
              note="Branch from an earlier entry, as Pi does")
        w.run("pins")
        w.run("context", "memory add --key deploy-target -- 'Deploys go to \"staging\" first.'",
              note="The same commands as one /context argument string")
        w.run("recall", "--history", "Which database do we use?", "and the port?",
              note="Recall: which memory a prompt is about, quoted as data (precision first)")
        w.run("recall", "What is the weather like?", note="Nothing relevant: nothing recalled")
        pins = w.json("pins")["items"]
        w.run("unpin", pins[0]["id"], "no longer needed")
        w.run("memory", "expire", w.json("memory")["items"][-1]["id"], "staging was retired")
        before = (w.json("pins"), w.json("memory"))
        w.run("memory", note=f"Memory now (leaf before branching was {leaf})")
        (home / "waymarks.db").unlink()
        for suffix in ("-wal", "-shm"):
            Path(str(home / "waymarks.db") + suffix).unlink(missing_ok=True)
        print("\n# Deleted waymarks.db: the next command rebuilds it from the session file")
        after = (w.json("pins"), w.json("memory"))
        if before != after:
            raise SystemExit("demo: state rebuilt from the ledger differs from before")
        print("  state after rebuild == state before deletion")
        w.run("health")
        w.run("rebuild-index")
        w.run("status")
    return 0


if __name__ == "__main__":
    sys.exit(main())
