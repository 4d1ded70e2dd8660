"""Where a refusal or an error goes: standard error, as a usage error does. A write's
refusal ("Rejected (conflict): …", "Refused" now, as every refusal) and a command's own
("Refused (not_found): …") were printed on standard output, so ``waymarks memory add …
> out.txt`` put the refusal in the file and showed the person nothing, and ``privacy
sanitize``'s withheld payload put "Withheld: …" where a pipeline read the payload. The
exit status is unchanged (2 refused, 1 an error); ``--json`` stays one document on
standard output; a report whose status is not 0 (``health``'s ATTENTION, ``import``'s
lines) is still the command's output; an import stopped part way ("Stopped at line N by
an error", "Interrupted") says so on standard error."""

from __future__ import annotations

import json
from pathlib import Path

from tests.inprocess import Ran
from tests.inprocess import waymarks as run_waymarks


def _run(home: Path, project: Path, *args: str, stdin: str | None = None) -> Ran:
    return run_waymarks("--home", str(home), "--cwd", str(project), *args, cwd=project,
                        input=stdin)


def test_refusals_and_errors_go_to_standard_error(home: Path, project: Path) -> None:
    assert _run(home, project, "memory", "add", "--", "The database port is 5433."
                ).returncode == 0
    cases = [
        (("memory", "add", "--", "The database port is 5432."), 2, "Refused (conflict): "),
        (("unpin", "0000aaaa"), 2, "no pin"),
        (("pin", "--nosuch"), 2, "waymarks: No such option"),
        (("pin", "--", ""), 2, "Refused (empty): "),
    ]
    for args, status, said in cases:
        done = _run(home, project, *args)
        assert done.returncode == status, (args, done.stdout, done.stderr)
        assert done.stdout == "", (args, done.stdout)
        assert said.lower() in done.stderr.lower(), (args, done.stderr)
    listed = json.loads(_run(home, project, "--json", "memory").stdout)["items"]
    assert [i["text"] for i in listed] == ["The database port is 5433."]


def test_json_refusals_stay_one_document_on_standard_output(home: Path,
                                                            project: Path) -> None:
    _run(home, project, "memory", "add", "--", "The database port is 5433.")
    done = _run(home, project, "--json", "memory", "add", "--", "The database port is 5432.")
    assert done.returncode == 2 and done.stderr == ""
    shown = json.loads(done.stdout)
    assert (shown["outcome"], shown["code"]) == ("rejected", "conflict")
    assert set(shown) >= {"outcome", "id", "code", "conflicts", "notices", "message"}


def test_a_withheld_payload_says_so_on_standard_error_only(home: Path, project: Path) -> None:
    """A script pipes the sanitized payload on: a withheld one leaves standard output
    empty (it held "Withheld: …", which the next program read as the payload)."""
    done = _run(home, project, "privacy", "sanitize", "--provider", "openai",
                stdin='{"foo": 1}')
    assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
    assert done.stderr.startswith("Withheld: unknown payload shape"), done.stderr


def test_an_import_refused_reports_its_lines_on_standard_output(home: Path,
                                                                project: Path) -> None:
    _run(home, project, "memory", "add", "--", "The database port is 5433.")
    lines = project / "in.jsonl"
    exported = _run(home, project, "export").stdout
    lines.write_text(exported.replace("5433", "5432"), encoding="utf-8")
    done = _run(home, project, "import", str(lines))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "line 1" in done.stdout and "conflict" in done.stdout, done.stdout


def test_health_attention_is_its_report_on_standard_output(home: Path, project: Path) -> None:
    _run(home, project, "pin", "--", "Run the tests first.")
    [folder] = (home / "sessions").iterdir()
    (folder / "2099-01-01T00-00-00-000Z_x.jsonl").symlink_to(project / "missing")
    done = _run(home, project, "health")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout.startswith("ATTENTION: ") and "problem: " in done.stdout, done.stdout


def test_an_import_stopped_by_an_error_says_so_on_standard_error(home: Path, project: Path,
                                                                 tmp_path: Path) -> None:
    """A file-size limit (EFBIG) stops an import part way, as a full disk does: "Stopped
    at line N by an error: …" was printed on standard output (`import f > log` hid it)."""
    import os
    import resource
    import subprocess
    import sys

    source = tmp_path / "big.jsonl"
    source.write_text("".join(json.dumps(
        {"kind": "memory", "scope": "session", "status": "active", "key": f"g{n}",
         "text": f"Entry {n} concerns gadget{n} " + "x" * 1500}) + "\n" for n in range(1, 401)))
    env = {**os.environ, "WAYMARKS_HOME": str(home), "WAYMARKS_CC_HELPER": "off",
           "WAYMARKS_CLI_HELPER": "off", "WAYMARKS_SEMANTIC": "off"}
    done = subprocess.run(
        [sys.executable, "-m", "waymarks.cli.main", "import", str(source)], cwd=project,
        env=env, capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (409_600, 409_600)))
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout == "", done.stdout
    assert done.stderr.startswith("Stopped at line "), done.stderr
    assert "line(s) written (lines 1-" in done.stderr and "Traceback" not in done.stderr


def test_a_refusal_is_said_in_one_word_whatever_refused_it(home: Path, project: Path) -> None:
    """One outcome had two names: a write's refusal was "Rejected (CODE): …" and a
    command's own "Refused (CODE): …", so an unknown ID was "Rejected (not_found)" from
    ``unpin`` and "Refused (not_found)" from ``personal show``, an untrusted project
    "Rejected (untrusted)" from ``pin`` and "Refused (untrusted)" from ``team include``.
    Every refusal is "Refused (CODE): …" now (the inspector's word too); ``--json`` keeps
    its documented ``"outcome": "rejected"``."""
    assert _run(home, project, "memory", "add", "--", "The database port is 5433."
                ).returncode == 0
    cases = [
        ("memory", "add", "--", "The database port is 5432."),  # a write's (conflict)
        ("pin", "--", ""),
        ("pin", "--scope", "project", "--", "Use ruff."),
        ("unpin", "0000aaaa"),
        ("memory", "supersede", "0000aaaa", "--", "The database port is 5434."),
        ("personal", "show", "no-such-entry"),  # a command's own
        ("team", "include", "bob-1a2b3c4d"),
    ]
    for args in cases:
        done = _run(home, project, *args)
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout, done.stderr)
        assert done.stderr.startswith("Refused ("), (args, done.stderr)
        assert "Rejected" not in done.stderr, (args, done.stderr)
        shown = json.loads(_run(home, project, "--json", *args).stdout)
        assert shown["outcome"] == "rejected", (args, shown)


def test_a_refusal_the_service_raised_is_said_as_every_refusal(home: Path,
                                                               project: Path) -> None:
    """A refusal raised by the service (exit 2, a code other than ``usage``) was said
    ``waymarks: MESSAGE``, as a usage error is, while the same kind of refusal decided by
    a command was ``Refused (CODE): MESSAGE`` (``session say ''``: "waymarks: Message
    text must not be empty", ``pin -- ''``: "Refused (empty): …"). Both are said the
    documented way now; a usage error keeps ``waymarks: ``."""
    assert _run(home, project, "session", "say", "--", "Hello").returncode == 0
    cases = [
        (("session", "say", "--", ""), "Refused (empty): Message text must not be empty"),
        (("session", "branch", "nope"), "Refused (not_found): no entry 'nope' in session"),
        (("trust", str(project / "missing")), "Refused (invalid_argument): "),
        (("--session", "nope", "pins"), "Refused (bad_session): no session 'nope'"),
        (("notes", "add", "--", "a\x1b[2Jb"), "Refused (invalid_argument): the note holds"),
        (("pin", "--nosuch"), "waymarks: No such option"),
    ]
    for args, said in cases:
        done = _run(home, project, *args)
        assert done.returncode == 2 and done.stdout == "", (args, done.stdout, done.stderr)
        assert done.stderr.startswith(said) and done.stderr.count("\n") == 1, (args,
                                                                                done.stderr)
