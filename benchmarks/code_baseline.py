"""Run a benchmark against another commit's code in the same run (``--baseline REF``).

The ``src`` tree of ``REF`` is exported with ``git archive`` into a temporary folder (no
worktree, nothing in the repository changes) and a child process is started with that
folder first on ``PYTHONPATH``, so ``import waymarks`` loads the baseline's modules while
the benchmark script itself (its generator, its timing) stays the current one.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def export_source(ref: str, into: Path) -> Path:
    """``REF``'s ``src`` folder under ``into``; returns the folder to put on the path."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def env_with(source: Path | None) -> dict[str, str]:
    """The environment of a child that imports waymarks from ``source`` (``None``: the
    current code)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(source), *filter(None, [env.get("PYTHONPATH")])])
    return env


def checked_tree(parser: argparse.ArgumentParser, option: str, given: str | None, *,
                 top: bool = False) -> str | None:
    """``given``, an option's directory of another tree's code, or a usage error (exit 2,
    nothing run) when the package is not in it: ``DIR/src/waymarks`` with ``top`` (the
    tree's top directory: ``--compare-src``), else ``DIR/waymarks`` (the tree's ``src``:
    ``--baseline-src``). Such a directory put no package on the children's path, and they
    imported the installed code: "both trees" were this one."""
    if given is None:
        return None
    wanted = "src/waymarks" if top else "waymarks"
    if not (Path(given) / wanted).is_dir():
        other = Path(given) / ("waymarks" if top else "src/waymarks")
        hint = (" (that is its src/ folder: give its parent)" if top else
                f" (give {Path(given) / 'src'})") if other.is_dir() else ""
        what = ("the tree's top directory (the one holding src/)" if top else
                "the tree's src/ folder (the one holding waymarks/)")
        parser.error(f"{option} {given}: no {wanted} in it; give {what}{hint}")
    return given


def commit_of(ref: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", ref], check=True,
                          capture_output=True, text=True).stdout.strip()


def temporary() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="waymarks-baseline-")


def load() -> list[float]:
    """The 1, 5 and 15 minute load averages (others' work inflates wall times)."""
    return [round(x, 2) for x in os.getloadavg()]


@contextmanager
def source_of(ref: str | None) -> Iterator[Path | None]:
    """``REF``'s exported ``src`` for the block (``None`` without a ref)."""
    if ref is None:
        yield None
        return
    with temporary() as tmp:
        yield export_source(ref, Path(tmp))


def child_json(script: str, argv: list[str], source: Path | None) -> dict[str, Any]:
    """The JSON a child run of ``script`` prints, with ``source``'s code (``None``: the
    current code)."""
    out = subprocess.run([sys.executable, script, *argv], check=True, capture_output=True,
                         text=True, env=env_with(source))
    return dict(json.loads(out.stdout))


def described(ref: str | None) -> dict[str, str] | None:
    """What a report says of its baseline."""
    return None if ref is None else {"ref": ref, "commit": commit_of(ref)}


def sized_parser(doc: str, sizes: str) -> argparse.ArgumentParser:
    """The arguments of a benchmark run per store size in child processes: ``--sizes``,
    ``--seed``, ``--baseline REF`` and the hidden ``--one SIZE`` of a child."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sizes", default=sizes)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", default=None,
                        help="a git ref whose code runs each size too, in the same run")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    return parser


def sized_report(script: str, name: str, args: argparse.Namespace,
                 extra: Sequence[str] = (), rounds: int | None = None) -> dict[str, Any]:
    """Each size of ``args.sizes`` run by ``script`` in a child (``--one SIZE --seed N``
    and ``extra``), with the current code and, given ``--baseline``, right after with
    that ref's: the report a sized benchmark prints. ``rounds``: the script's child
    times its work in that many rounds (``alternate.turns``), and with a baseline the two
    children take them in turns (``alternate.in_turns``); each entry then adds
    ``round_gaps``."""
    import alternate

    results = []
    with source_of(args.baseline) as source:
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            argv = ["--one", str(size), "--seed", str(args.seed), *extra]
            if rounds is None:
                entry = {"current": child_json(script, argv, None)}
                if source is not None:
                    entry["baseline"] = child_json(script, argv, source)
            else:
                trees = {"current": ([sys.executable, script, *argv], env_with(None))}
                if source is not None:
                    trees["baseline"] = ([sys.executable, script, *argv], env_with(source))
                entry = dict(alternate.in_turns(trees, rounds))
                if source is not None:
                    entry["round_gaps"] = alternate.round_gaps(entry["current"],
                                                               entry["baseline"])
            results.append(entry)
    return {"benchmark": name, "python": sys.version.split()[0],
            "baseline": described(args.baseline), "results": results,
            **({} if rounds is None else {"rounds": rounds,
                                          "in_turns": args.baseline is not None})}


def same_answers(report: dict[str, Any], key: str) -> None:
    """Take each size's ``answers`` out of ``report``; where the baseline ran too, set
    ``key`` to whether both versions gave the same ones."""
    for entry in report["results"]:
        answers = entry["current"].pop("answers")
        if "baseline" in entry:
            entry[key] = answers == entry["baseline"].pop("answers")


def print_report(report: dict[str, Any]) -> int:
    """Print ``report`` as indented JSON: a benchmark's output (exit status 0)."""
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0
