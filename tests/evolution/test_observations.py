"""Work observations, pure core (EVOLUTION items 37-43): the gate, priority retention, every
bound, field-by-field redaction, exclusions, interrupted turns, the shell lexer and target
nomination."""

from __future__ import annotations

import json

from waymarks.core.evolution.nominate import MAX_TARGETS, nominate
from waymarks.core.evolution.observations import (
    MAX_DOCUMENT_BYTES,
    MAX_KEPT,
    MAX_SCAN,
    AssistantText,
    ToolCall,
    ToolResult,
    TurnItem,
    UserText,
    document,
    observe,
    preview,
    targets_of,
)
from waymarks.core.evolution.operations import classify
from waymarks.core.evolution.rows import ClaimRow
from waymarks.core.evolution.shell_hints import lex, parse

STATE = "/home/u/.waymarks"
TOKEN = "ghp_" + "k" * 36


def bash(call_id: str, command: str, output: str = "ok", error: bool = False
         ) -> list[TurnItem]:
    return [ToolCall(call_id, "bash", {"command": command}),
            ToolResult(call_id, output, error)]


def turn(*calls: list[TurnItem], request: str = "commit and push the fix",
         reply: AssistantText | None = None) -> list[TurnItem]:
    items: list[TurnItem] = [UserText(request)]
    for pair in calls:
        items.extend(pair)
    items.append(reply or AssistantText("All done: committed and pushed."))
    return items


# -- the lexer ---------------------------------------------------------------------------


def test_quoted_paths_keep_their_spaces_and_quotes_join() -> None:
    parsed = parse('cd "/srv/my repo" && git commit -m "fix: x; y"')
    assert parsed.directories == ("/srv/my repo",)
    assert [c.program for c in parsed.commands] == ["cd", "git"]
    assert parsed.commands[1].args() == ["commit", "-m", "fix: x; y"]  # ; inside quotes
    assert parse("cd '/q/it''s' ; make").directories == ("/q/its",)
    assert parse(r"cd /a\ b && ls").directories == ("/a b",)


def test_here_document_bodies_are_data_not_commands() -> None:
    """Regression (review i19 #3): a heredoc body was lexed as commands, so writing notes
    that mention a force push was classified as a push in /srv/prod."""
    notes = "cat > notes.md <<EOF\ncd /srv/prod && git push --force\nEOF\necho saved"
    parsed = parse(notes, "/w")
    assert [c.program for c in parsed.commands] == ["cat", "echo"]
    assert parsed.directories == ()
    op = classify("bash", {"command": notes}, "/w")
    assert op is not None and op.label != "push" and "/srv/prod" not in op.directories
    tabs = 'cat <<-"END" > x\n\tcd /srv/prod\n\tgit push\n\tEND\ngit commit -m y'
    assert [c.program for c in parse(tabs).commands] == ["cat", "git"]
    quoted = "cat <<'E' | tee a\ngit push\nE"
    assert [c.program for c in parse(quoted).commands] == ["cat", "tee"]
    two = "cat <<A <<B\ngit push\nA\ncd /srv\nB\ncd /w/app && git status"
    assert parse(two).directories == ("/w/app",)
    assert [c.program for c in parse("cat <<<'git push' && git push").commands] == \
        ["cat", "git"]  # a here-string is one word, not a body


def test_wrapper_option_values_and_brace_expansion() -> None:
    """Regression (review i19 #8): a wrapper option's value was taken as the program
    (``sudo -u bob git push`` -> other), and ``/a{b,c}`` was taken as a literal path."""
    for line in ("sudo -u bob git push", "nice -n 5 git push", "timeout -s KILL 5 git push",
                 "env -u FOO git push", "sudo -u bob -g staff -E git push",
                 "timeout -k 3 -s TERM 10 git push", "stdbuf -o L git push",
                 "env -u A -u B X=1 git push", "sudo -- git push"):
        op = classify("bash", {"command": line}, "/w")
        assert op is not None and (op.label, op.priority) == ("push", 5), line
        assert parse(line).commands[0].program == "git", line
    for line in ("cd /a{b,c} && git push", "cd /srv/r{1..3} && git push"):
        parsed = parse(line, "/w")
        assert parsed.directories == () and parsed.commands[1].directory is None, line
    assert not lex("echo /a{b,c}")[0][0][1].literal
    assert lex("find . -exec rm {} ;")[0][0][4].literal  # an empty {} expands to nothing


def test_env_prefixes_and_wrappers_are_skipped() -> None:
    parsed = parse("FOO=1 BAR='x y' env -i sudo -E git -C /work/app push origin main")
    assert parsed.commands[0].program == "git"
    assert parsed.commands[0].args()[:1] == ["push"]
    assert parsed.commands[0].directory == "/work/app"


def test_substitutions_are_never_followed() -> None:
    for line in ("cd $(git rev-parse --show-toplevel) && git push",
                 "cd `pwd`/x && git push", "cd $HOME/app && git push",
                 'cd "${ROOT}/app" && git push', "git -C $(mktemp -d) push",
                 "cd ~/app && git push"):
        parsed = parse(line, "/base")
        assert parsed.directories == (), line
        assert all(c.directory is None for c in parsed.commands), line


def test_globs_are_never_followed() -> None:
    for line in ("cd /srv/*/app && git push", "cd /srv/app? && make", "cd /s/[ab] && make"):
        assert parse(line).directories == (), line
    words, _ = lex("ls '*.py' *.py")
    assert [w.literal for w in words[0]] == [True, True, False]  # a quoted star is text


def test_relative_paths_need_an_anchor_and_cwd_alone_is_no_directory() -> None:
    assert parse("git push", "/home/u/proj").directories == ()
    assert parse("cd sub && git push", "/home/u/proj").directories == ("/home/u/proj/sub",)
    assert parse("cd sub && git push").directories == ()
    assert parse("cd /a/b/../c").directories == ("/a/c",)


def test_redirections_do_not_split_commands() -> None:
    parsed = parse("pytest -q 2>&1 | tail -5")
    assert [c.program for c in parsed.commands] == ["pytest", "tail"]


def test_the_lexer_is_bounded() -> None:
    words, truncated = lex("true; " * 5000)
    assert truncated and len(words) <= 64


# -- operations ----------------------------------------------------------------------------


def test_priority_table() -> None:
    def prio(command: str) -> tuple[str, int]:
        op = classify("bash", {"command": command}, None)
        assert op is not None
        return op.label, op.priority

    assert prio("git commit -am x") == ("commit", 5)
    assert prio("cd /r && git push origin main") == ("push", 5)
    assert prio("git cherry-pick abc") == ("cherry-pick", 5)
    assert prio("git status") == ("git-status", 4)
    assert prio("python -m pytest -q") == ("test", 4)
    assert prio("npm test") == ("test", 4)
    assert prio("rm -rf build") == ("mutation", 3)
    assert prio("kubectl apply -f x.yaml") == ("deploy", 3)
    assert prio("ls -la") == ("inspection", 0)
    write = classify("Write", {"file_path": "/r/a.py", "content": "x"}, None)
    assert write is not None and (write.tool, write.priority) == ("write", 3)
    assert classify("WebFetch", {"url": "x"}, None) is None  # unknown tools are not trusted


# -- the gate ------------------------------------------------------------------------------


def test_gate_needs_a_request_linked_results_and_a_work_operation() -> None:
    got, scan = observe([ToolCall("c1", "bash", {"command": "git commit -m x"}),
                         ToolResult("c1", "ok", False)], cwd=None, state_dir=STATE)
    assert got is None and scan.reason == "no_request"
    got, scan = observe([UserText("commit it"), ToolCall("c1", "bash",
                                                         {"command": "git commit"})],
                        cwd=None, state_dir=STATE)
    assert got is None and scan.reason == "no_observation" and scan.ignored == {"unlinked": 1}
    got, scan = observe(turn(bash("c1", "ls"), bash("c2", "cat README.md")), cwd=None,
                        state_dir=STATE)
    assert got is None and scan.reason == "no_work"
    got, scan = observe(turn([ToolCall("c1", "WebFetch", {"url": "u"}),
                              ToolResult("c1", "ok", False)]), cwd=None, state_dir=STATE)
    assert got is None and scan.ignored == {"unknown_tool": 1}
    got, scan = observe(turn(bash("c1", "git commit -m x")), cwd=None, state_dir=STATE)
    assert got is not None and scan.reason == "captured" and scan.linked == 1


def test_only_the_current_turn_and_at_most_4096_messages_are_scanned() -> None:
    old = turn(bash("c0", "git push"), request="an older request")
    filler = [AssistantText("thinking")] * (MAX_SCAN + 10)
    got, scan = observe([*old, UserText("commit now"), *filler,
                         *bash("c1", "git commit -m x")], cwd=None, state_dir=STATE)
    # the turn is longer than the scan window: its request is still found, the window is
    # the request and the newest items after it, and the older turn's push is not seen
    assert got is not None and got.request == "commit now"
    assert scan.scan_limited and scan.scanned == MAX_SCAN and scan.reason == "captured"
    assert [o.op.label for o in got.observations] == ["commit"]
    got, scan = observe([*old, *turn(bash("c1", "git commit -m x"), request="commit now")],
                        cwd=None, state_dir=STATE)
    assert got is not None and [o.op.label for o in got.observations] == ["commit"]
    assert got.request == "commit now"


def test_a_turn_longer_than_the_scan_bound_keeps_its_request_and_loses_its_oldest_calls(
) -> None:
    """Regression (issue 19): a turn of more than 4,096 items lost its work request (the
    window was the newest 4,096), so a long turn of real work captured nothing."""
    early = bash("c-early", "git commit -m early")
    pairs = [bash(f"t{i}", "python -m pytest -q") for i in range(MAX_SCAN // 2)]
    items = [UserText("fix the build, commit and push"), *early,
             *[x for pair in pairs for x in pair], AssistantText("Done.")]
    assert len(items) > MAX_SCAN + 1
    got, scan = observe(items, cwd=None, state_dir=STATE)
    assert got is not None and got.request == "fix the build, commit and push"
    assert scan.scan_limited and scan.scanned == MAX_SCAN
    # the window after the request is the newest MAX_SCAN - 1 items: the early commit and
    # the oldest test runs fell out of it (they are not counted as linked either)
    assert scan.calls == (MAX_SCAN - 2) // 2
    assert all(o.op.label != "commit" for o in got.observations)
    # exactly at the bound nothing is cut and nothing is reported as limited
    fits = [UserText("run the tests"), *[x for pair in pairs[:(MAX_SCAN - 2) // 2]
                                         for x in pair], AssistantText("ok")]
    assert len(fits) == MAX_SCAN
    got, scan = observe(fits, cwd=None, state_dir=STATE)
    assert got is not None and not scan.scan_limited and scan.scanned == MAX_SCAN
    # a blank user text is not the request: the one before it is
    got, scan = observe([UserText("commit it"), *bash("c1", "git commit -m x"),
                         UserText("  "), AssistantText("ok")], cwd=None, state_dir=STATE)
    assert got is not None and got.request == "commit it"


def test_the_snapshot_names_the_requests_intent_never_its_text() -> None:
    """Item 46: the capture snapshot carries the request's intent as a code."""
    cases = {"Remember: we always squash commits, then commit this": "explicit",
             "We decided to use Postgres 16; migrate and commit": "natural",
             "commit and push the fix": "none",
             "What did we decide about the port?": "recall_question",
             "Should the api use a pool?": "question",
             "continue": "vague",
             "For now skip the lint step and commit": "one_off"}
    for request, expected in cases.items():
        _got, scan = observe(turn(bash("c1", "git commit -m x"), request=request),
                             cwd=None, state_dir=STATE)
        assert scan.intent == expected, request
        assert scan.to_json()["intent"] == expected
        assert request not in json.dumps(scan.to_json())
    _got, scan = observe([*bash("c1", "git commit -m x")], cwd=None, state_dir=STATE)
    assert scan.reason == "no_request" and scan.intent == "none"


# -- retention -----------------------------------------------------------------------------


def test_twelve_late_inspections_do_not_displace_an_early_commit_and_failed_push() -> None:
    calls = [bash("c1", "git commit -m fix", "[main abc123] fix"),
             bash("c2", "git push origin main", "error: failed to push some refs", True)]
    calls += [bash(f"i{i}", f"cat file{i}.txt") for i in range(12)]
    got, scan = observe(turn(*calls), cwd=None, state_dir=STATE)
    assert got is not None
    labels = [o.op.label for o in got.observations]
    assert labels[:2] == ["commit", "push"] and len(labels) == MAX_KEPT
    assert [o.ok for o in got.observations[:2]] == [True, False]
    assert scan.omitted == 14 - MAX_KEPT
    seqs = [o.seq for o in got.observations]
    assert seqs == sorted(seqs)  # chronological again
    kept_inspections = [o.op.text for o in got.observations[2:]]
    assert kept_inspections == [f"cat file{i}.txt" for i in range(6, 12)]  # ties: newer


# -- bounds --------------------------------------------------------------------------------


def test_output_preview_keeps_the_failure_ending() -> None:
    text = "line of noise\n" * 3000 + "FATAL: push rejected (remote is read-only)"
    shown, _level = preview(text)
    assert len(shown.encode()) <= 2048
    assert shown.endswith("FATAL: push rejected (remote is read-only)")
    assert "bytes omitted" in shown and shown.startswith("line of noise")


def test_operation_and_document_bounds() -> None:
    huge_op = "git commit -m '" + "x " * 5000 + "'"
    calls = [bash("c1", huge_op, "y " * 50_000)]
    calls += [bash(f"t{i}", f"pytest tests/t{i}.py " + "-k case " * 300, f"failure {i} " * 5000,
                   True)
              for i in range(7)]
    got, scan = observe(turn(*calls, request="r " * 10_000), cwd=None, state_dir=STATE)
    assert got is not None
    text, _level, dropped = document(got, ["a" * 24] * 8, scan)
    assert len(text.encode()) <= MAX_DOCUMENT_BYTES
    doc = json.loads(text)
    assert all(len(o["operation"].encode()) <= 1024 for o in doc["observations"])
    assert all(len(o["output"].encode()) <= 2048 for o in doc["observations"])
    assert len(doc["request"].encode()) <= 4096
    # lower priorities went first: the commit (5) survives the byte bound
    assert doc["observations"][0]["kind"] == "commit"
    assert doc["omitted"]["observations"] == dropped and dropped > 0
    assert doc["omitted"]["scanLimit"] == MAX_SCAN
    assert targets_of(text) == ("a" * 24,)


def test_the_document_bound_counts_resources_and_holds_after_every_step() -> None:
    """Regression (review i19 #2): control characters in directories expanded to JSON
    escapes outside the bound, every commit was dropped for them, and the fallback was
    not checked (36,653 B, then the source was withheld)."""
    calls = [bash(f"c{k}", f"cd '/t/{chr(1) * 250}/{chr(1) * 240}{k:02d}' && git commit -m x")
             for k in range(16)]
    got, scan = observe(turn(*calls), cwd="/w", state_dir=STATE)
    assert got is not None and len(got.resources) == 16
    text, _level, dropped = document(got, ["a" * 40] * 8, scan)
    assert len(text.encode()) <= MAX_DOCUMENT_BYTES
    doc = json.loads(text)
    assert all(chr(1) not in json.dumps(r) and "\\u0001" not in json.dumps(r)
               for r in doc["resources"])
    assert dropped == 0 and len(doc["observations"]) == MAX_KEPT  # every commit kept
    assert all(o["kind"] == "commit" for o in doc["observations"])
    # paths and names give way before any observation
    big = [bash(f"c{k}", f"cd /srv/{'d' * 500}{k} && git commit -m '{'m ' * 600}'",
                "é " * 2_000) for k in range(8)]
    big += [bash(f"r{k}", f"cd /srv/{'r' * 120}{k} && git status", "ok") for k in range(8)]
    got, scan = observe(turn(*big, request="r " * 3_000, reply=AssistantText("d " * 3_000)),
                        cwd="/w", state_dir=STATE)
    assert got is not None and any(full for _name, full in got.resources)
    text, _level, dropped = document(got, ["a" * 40] * 8, scan)
    doc = json.loads(text)
    assert len(text.encode()) <= MAX_DOCUMENT_BYTES
    assert all("path" not in r for r in doc["resources"])
    if dropped:
        assert doc["resources"] == []
    # nothing a turn can hold takes the document past the bound, escapes included
    controls = chr(2) * 4_000
    worst = [bash(f"w{k}", f"git commit -m '{controls}'", controls) for k in range(8)]
    got, scan = observe(turn(*worst, request=controls, reply=AssistantText(controls)),
                        cwd="/w", state_dir=STATE)
    assert got is not None
    text, _level, _dropped = document(got, ["a" * 40] * 8, scan)
    assert len(text.encode()) <= MAX_DOCUMENT_BYTES
    assert targets_of(text) == ("a" * 40,)


def test_redaction_is_field_by_field_before_serialising() -> None:
    calls = [bash("c1", f"git push https://x:{TOKEN}@github.com/o/r", f"token {TOKEN}"),
             bash("c2", "git commit -m done", "[main 1a2b3c] done")]
    got, scan = observe(turn(*calls, request="push it\nAuthorization: bearer"), cwd=None,
                        state_dir=STATE)
    assert got is not None
    text, _level, _dropped = document(got, [], scan)
    assert TOKEN not in text
    doc = json.loads(text)
    # a dangling "bearer" at the end of the request does not swallow the next fields (F11)
    assert doc["observations"][1]["operation"] == "git commit -m done"
    assert doc["observations"][1]["output"] == "[main 1a2b3c] done"


def test_local_only_spans_are_withheld() -> None:
    calls = [bash("c1", "git commit -m x", "ok [ds4:local-only]build host omega-4"
                  "[/ds4:local-only] done")]
    got, scan = observe(turn(*calls), cwd=None, state_dir=STATE)
    assert got is not None
    text, _level, _dropped = document(got, [], scan)
    assert "omega-4" not in text


# -- exclusions and interrupted turns ------------------------------------------------------


def test_memory_tools_and_the_state_directory_are_excluded() -> None:
    items = turn([ToolCall("m1", "memory_recall", {"query": "x"}), ToolResult("m1", "r", False)],
                 [ToolCall("m2", "mcp__waymarks__context_persistence", {"action": "pin"}),
                  ToolResult("m2", "ok", False)],
                 bash("s1", f"rm -rf {STATE}/waymarks.db"),
                 [ToolCall("s2", "Write", {"file_path": f"{STATE}/x", "content": "y"}),
                  ToolResult("s2", "ok", False)])
    got, scan = observe(items, cwd=None, state_dir=STATE)
    assert got is None and scan.ignored == {"memory_tool": 2, "state_dir": 2}



def test_the_state_directory_is_excluded_in_any_spelling() -> None:
    """Regression (review i19 #5): the exclusion was literal text, so a ``~``, relative or
    ``.``/``..`` spelling of the state directory slipped through as a work observation."""
    for command, cwd in [("cat ~/.waymarks/evolution/ledger.jsonl && git commit -am x", "/w"),
                         ("cat $HOME/.waymarks/x && git commit -am x", "/w"),
                         ("cd /home/u && cat .waymarks/x && git commit -am x", "/w"),
                         ("cat .waymarks/x && git commit -am x", "/home/u"),
                         ("cd /home/u/src && cat ../.waymarks/x && git commit -am x", None),
                         ("git -C /home/u/.waymarks/../.waymarks commit -m x", "/w"),
                         ("cat /home/u/./.waymarks/x; git commit -am x", "/w"),
                         ("cat //home/u//.waymarks/x; git commit -am x", "/w"),
                         ("git commit -am x > ~/.waymarks/log", "/w"),
                         ("git --git-dir=/home/u/.waymarks/.git commit -m x", "/w")]:
        got, scan = observe(turn(bash("c1", command)), cwd=cwd, state_dir=STATE,
                            state_aliases=("~/.waymarks",))
        assert got is None and scan.ignored == {"state_dir": 1}, command
    edit = [ToolCall("e1", "Edit", {"file_path": "../u/./.waymarks/x"}),
            ToolResult("e1", "ok", False)]
    _got, scan = observe(turn(edit, bash("c1", "git commit -am x")), cwd="/home/w",
                         state_dir=STATE)
    assert scan.ignored == {"state_dir": 1}
    # a sibling directory that only starts with the same name is not the state directory
    got, scan = observe(turn(bash("c1", "cd /home/u/.waymarks-site && git commit -am x")),
                        cwd="/w", state_dir=STATE, state_aliases=("~/.waymarks",))
    assert got is not None and scan.ignored == {}

def test_a_call_delivered_twice_is_observed_once() -> None:
    """Regression (review i19 #6): a repeated PostToolUse with the same call ID was
    recorded as two observations."""
    push = bash("same", "git push", "rejected", True)
    got, scan = observe(turn(push, push, bash("other", "git commit -m x")), cwd=None,
                        state_dir=STATE)
    assert got is not None
    assert (scan.calls, scan.linked, len(got.observations)) == (2, 2, 2)
    assert [o.op.label for o in got.observations] == ["push", "commit"]
    assert scan.ignored == {"duplicate": 1}


def test_an_interrupted_turn_keeps_observations_and_drops_the_report() -> None:
    items = turn(bash("c1", "git commit -m x"), reply=AssistantText("Pushed!", "aborted"))
    got, scan = observe(items, cwd=None, state_dir=STATE)
    assert got is not None and got.completion == "interrupted" and got.report is None
    assert scan.completion == "interrupted"
    text, _level, _dropped = document(got, [], scan)
    assert "Pushed!" not in text and json.loads(text)["completion"] == "interrupted"
    got, _scan = observe(turn(bash("c1", "git commit -m x"),
                              reply=AssistantText("x", "error")), cwd=None, state_dir=STATE)
    assert got is not None and got.completion == "interrupted"
    got, _scan = observe(turn(bash("c1", "git commit -m x")), cwd=None, state_dir=STATE)
    assert got is not None and got.report == "All done: committed and pushed."


# -- resource hints ----------------------------------------------------------------------


def test_resources_come_from_arguments_never_output_or_cwd() -> None:
    roots = {"/w/app/src/a.py": "/w/app"}
    items = turn(bash("c1", "cd /w/app && git commit -m x", "see /w/other for more"),
                 [ToolCall("e1", "edit", {"path": "/w/app/src/a.py"}),
                  ToolResult("e1", "ok", False)],
                 bash("c2", "git push"))
    got, _scan = observe(items, cwd="/w/cwdproject", state_dir=STATE,
                         root_of=lambda p: roots.get(p, "/w/app" if p == "/w/app" else None))
    assert got is not None
    assert got.resources == (("app", "/w/app"),)


def test_resource_counts_are_bounded() -> None:
    calls = [bash(f"c{i}", f"git -C /r/p{i} commit -m x") for i in range(20)]
    got, _scan = observe(turn(*calls), cwd=None, state_dir=STATE)
    assert got is not None and len(got.resources) == 16
    assert sum(1 for _n, full in got.resources if full) == 8


# -- nomination ----------------------------------------------------------------------------


def claim(cid: str, content: str, *, kind: str = "project_state", origin: str = "/o",
          state: str = "provisional", at: str = "2026-01-01T00:00:00Z",
          accuracy: tuple[str, str, str] | None = None) -> ClaimRow:
    return ClaimRow(cid, origin, kind, content, state, "user_statement", "model", "s", at, 1,
                    accuracy=accuracy)


def test_nomination_scores_and_eligibility() -> None:
    claims = [claim("path", "The /w/app release branch is not pushed yet"),
              claim("name", "app: the login fix is committed"),
              claim("topic", "The login fix is not committed yet", at="2025-01-01T00:00:00Z"),
              claim("fact", "app uses pnpm", kind="fact"),
              claim("other", "app is deployed", origin="/elsewhere"),
              claim("gone", "app is pending", state="forgotten"),
              claim("wrong", "app is pending", accuracy=("incorrect", "s", "t")),
              claim("unrelated", "The docs site uses Hugo")]
    got = nominate(claims, "/o", "commit the login fix", [("app", "/w/app")])
    by_id = {n.claim_id: n for n in got}
    assert set(by_id) == {"path", "name", "topic"}
    assert by_id["path"].score == 60 + 20
    assert by_id["name"].score == 50 + 2 * 2  # login, fix
    assert by_id["topic"].reasons[0] == "topic" and by_id["topic"].score == 2 * 2 + 20
    assert [n.claim_id for n in got] == ["path", "name", "topic"]


def test_same_basename_other_path_cannot_qualify_by_topic() -> None:
    claims = [claim("clash", "/srv/old/app: the login fix is not committed")]
    assert nominate(claims, "/o", "commit the login fix", [("app", "/w/app")]) == []
    # without the resource the topic alone may nominate it
    assert [n.claim_id for n in nominate(claims, "/o", "commit the login fix", [])] == ["clash"]


def test_nomination_is_bounded_and_ties_go_to_the_oldest() -> None:
    claims = [claim(f"c{i:02}", "app work is pending", at=f"2026-01-{i + 1:02}T00:00:00Z")
              for i in range(12)]
    got = nominate(claims, "/o", "work", [("app", "/w/app")])
    assert len(got) == MAX_TARGETS and [n.claim_id for n in got][:2] == ["c00", "c01"]


def test_tool_output_never_nominates() -> None:
    claims = [claim("c", "The billing service is not deployed")]
    items = turn(bash("c1", "git commit -m x", "billing service deployed billing"))
    got, _scan = observe(items, cwd=None, state_dir=STATE)
    assert got is not None
    assert nominate(claims, "/o", got.request, got.resources) == []


def test_an_unfinished_last_reply_is_flagged() -> None:
    items = turn(bash("c1", "git commit -m x"), reply=AssistantText("", "toolUse"))
    got, scan = observe(items, cwd=None, state_dir=STATE)
    assert got is not None and scan.unfinished and scan.to_json()["unfinished"] is True
    _got, scan = observe(turn(bash("c1", "git commit -m x")), cwd=None, state_dir=STATE)
    assert not scan.unfinished
