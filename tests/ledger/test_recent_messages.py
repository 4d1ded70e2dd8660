"""The recent conversation read from the end of a session ledger (recall history on every
prompt): the same messages as splitting the bounded tail into lines and decoding each,
without doing either for every line."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from waymarks.hosts.claude_code import handle
from waymarks.ledger.entries import Message, body_of, decode_line, recent_messages, window_start
from waymarks.ledger.log import SessionLog
from waymarks.service.app import Waymarks


def reference(session: SessionLog, max_bytes: int, max_entries: int) -> list[Message]:
    """The earlier reading: split, keep the last lines, decode each."""
    size = session.offset
    tail = session.tail_bytes(min(size, max_bytes))
    lines = tail.split(b"\n")
    if len(tail) < size:
        lines = lines[1:]
    branch = session.branch_set()
    out = []
    for line in lines[-max_entries:]:
        raw = decode_line(line)
        if raw is None or raw.type != "message" or raw.id is None or raw.id not in branch \
                or raw.timestamp is None:
            continue
        body = body_of(raw)
        if isinstance(body, Message):
            out.append(body)
    return out


@given(st.lists(st.sampled_from([b"", b"a", b"bb", b'"message"', b"x" * 9]), max_size=30),
       st.booleans(), st.integers(1, 12), st.integers(1, 40))
def test_the_window_starts_where_split_says(parts: list[bytes], cut: bool, lines: int,
                                            block: int) -> None:
    data = b"\n".join(parts)
    first = data.find(b"\n") + 1 if cut else 0
    begin = window_start(data, first, lines, block)
    assert data[begin:].split(b"\n") == data[first:].split(b"\n")[-lines:]


def test_recent_messages_equal_the_line_by_line_reading(home: Path, project: Path) -> None:
    sid = str(uuid.uuid4())
    handle("SessionStart", {"session_id": sid, "cwd": str(project),
                            "hook_event_name": "SessionStart", "source": "startup"}, home)
    with Waymarks(home, cwd=str(project), session=sid) as app:
        for n in range(24):
            if n % 3 == 0:
                app.session_say(f"prompt {n}: what about the \"message\" queue?")
            else:
                app.remember(f"The service {n} logs every \"message\" it drops.")
        session = app.current_session()
        assert session is not None
        said = [m.text for m in reference(session, 1 << 20, 1000)]
        assert len(said) == 8  # the claims that quote "message" are not messages
        for max_entries in (1, 2, 3, 5, 8, 13, 30, 1000):
            for max_bytes in (200, 700, 2000, 5000, 1 << 20):
                expected = reference(session, max_bytes, max_entries)
                assert recent_messages(session, max_bytes, max_entries) == expected, (
                    max_bytes, max_entries)
        assert [m.text for m in recent_messages(session, 1 << 20, 4)] == said[-1:]


def _reads(session: SessionLog) -> list[int]:
    """The length of each read of ``session``'s tail from now on."""
    read: list[int] = []
    tail_bytes = session.tail_bytes

    def counted(limit: int, skip: int = 0) -> bytes:
        data = tail_bytes(limit, skip)
        read.append(len(data))
        return data

    session.tail_bytes = counted  # type: ignore[method-assign]
    return read


def test_more_bytes_are_read_only_while_they_may_hold_the_window(home: Path,
                                                                 project: Path) -> None:
    """A prompt's hook asks for more of the tail while too few earlier prompts are found;
    once the last ``max_entries`` lines all lie in what was read, more bytes hold none of
    them: a session of 10k memories and a few prompts read its 4.4 MB tail three times over
    (2, 4, then 4.4 MB, each window counted again) for the answer the first read gave."""
    sid = str(uuid.uuid4())
    handle("SessionStart", {"session_id": sid, "cwd": str(project),
                            "hook_event_name": "SessionStart", "source": "startup"}, home)
    with Waymarks(home, cwd=str(project), session=sid) as app:
        app.session_say("the first prompt, outside the window")
        for n in range(100):
            app.remember(f"The service {n} listens on port {2000 + n}.")
        app.session_say("the last prompt")
        session = app.current_session()
        assert session is not None
        read = _reads(session)
        found = recent_messages(session, 1 << 20, 5, enough=lambda f: len(f) > 3,
                                first_bytes=4096)
        assert [m.text for m in found] == ["the last prompt"]
        assert session.offset > 8 * 4096  # more to read, which the window does not need
        assert read == [4096]
        assert found == reference(session, 1 << 20, 5)
        # a window that reaches past what was read still reads on, to the whole ledger
        read.clear()
        found = recent_messages(session, 1 << 20, 1000, enough=lambda f: len(f) > 3,
                                first_bytes=4096)
        assert [m.text for m in found] == ["the first prompt, outside the window",
                                           "the last prompt"]
        assert sum(read) == session.offset


def _branch_asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The entry IDs the entries index is asked about (whether each is on a branch)."""
    from waymarks.store.entries import EntryIndex

    asked: list[str] = []
    on_branch = EntryIndex.on_branch

    def counted(self: EntryIndex, leaf_id: str, entry_id: str) -> bool:
        asked.append(entry_id)
        return on_branch(self, leaf_id, entry_id)

    monkeypatch.setattr(EntryIndex, "on_branch", counted)
    return asked


def _forty_prompts(home: Path, project: Path) -> None:
    with Waymarks(home, cwd=project) as app:
        for n in range(40):
            app.session_say(f"prompt {n}")


def test_a_twin_hooks_check_asks_the_branch_only_of_the_same_prompt(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A prompt's hook looks for the same prompt recorded since it started (a twin hook,
    a stalled helper's): each message of the window before the session's checkpoint was
    asked of the database whether it is on the branch (a query and a checksum each: 40
    prompts, 40 queries, on every prompt of a long session). Only a message of that text,
    from the person, since then is asked now; the twin is still found, a new prompt
    still recorded."""
    _forty_prompts(home, project)
    asked = _branch_asked(monkeypatch)
    with Waymarks(home, cwd=project) as app:  # (a new process's reading: the index)
        twin = app.session_say("prompt 39", unless_since_ms=0)
        assert len(asked) == 1  # (40 before)
        again = app.session_say("prompt 39", unless_since_ms=0)
        new = app.session_say("prompt 40", unless_since_ms=0)
        session = app.current_session()
        assert session is not None
        said = recent_messages(session, 1 << 20, 1000)
    assert again == twin == said[39].id and new == said[-1].id
    assert [m.text for m in said] == [f"prompt {n}" for n in range(41)]


def test_a_prompts_history_asks_the_branch_only_of_the_prompts_it_passes(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A prompt's hook passes recall the last 24 earlier prompts, and asked the branch of
    every message of the window first (each earlier prompt a query in a new process): the
    branch is asked from the end, of the 25 it needs (the current prompt among them), and
    the history is the same."""
    from waymarks.hosts.claude_code import HISTORY_PROMPTS, recent_prompts

    _forty_prompts(home, project)
    asked = _branch_asked(monkeypatch)
    with Waymarks(home, cwd=project) as app:
        session = app.current_session()
        assert session is not None
        history = recent_prompts(session, "prompt 39")
        assert len(asked) == HISTORY_PROMPTS + 1  # (40 before)
        assert history == [f"prompt {n}" for n in range(39 - HISTORY_PROMPTS, 39)]
        assert recent_messages(session, 1 << 20, 1000, last=3) == \
            reference(session, 1 << 20, 1000)[-3:]


def test_the_last_bytes_alone_answer_when_they_hold_it(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook's history read asks for the last 25 prompts of the last 2 MiB: it reads the
    last :data:`PROBE_BYTES` first, and stops there when they hold the 25 (or the whole
    window of lines); otherwise it reads the first read whole, as before. Either way the
    answer is the one the whole first read gives (the probe switched off: as large as
    that read)."""
    from waymarks.ledger import entries

    output = "".join(f"line {i}: building the gateway image layer\n" for i in range(600))
    with Waymarks(home, cwd=str(project)) as app:
        app.session_say("the oldest prompt, before the tool output")
        for call in range(12):  # ~330 KB of what is no message
            app.append_record("waymarks-tool-observation-v1",
                              {"id": f"toolu_{call}", "tool": "Bash", "response": output})
        for n in range(30):
            app.session_say(f"prompt {n}")
        session = app.current_session()
        assert session is not None and session.offset > entries.PROBE_BYTES
        read = _reads(session)

        def history(max_entries: int, last: int | None) -> list[Message]:
            read.clear()
            return recent_messages(session, 32 << 20, max_entries, first_bytes=2 << 20,
                                   enough=lambda found: len(found) > 6, last=last)

        answers = {case: (history(*case), sum(read))
                   for case in ((4096, 25), (4096, 40), (10, 25), (10, None), (4096, None))}
        probe = entries.PROBE_BYTES
        monkeypatch.setattr(entries, "PROBE_BYTES", 2 << 20)  # the whole first read
        for case, (found, probed) in answers.items():
            assert found == history(*case), case
            whole = sum(read)
            assert whole == session.offset, case  # (the first read: all of this ledger)
            if case in ((4096, 25), (10, 25)):  # the 25 prompts; the 10 lines' window
                assert probed == probe < whole, case
            else:  # fewer than 40 prompts there, or no bound on them: the first read
                assert probed == probe + whole, case  # (what was looked at, and it)
        assert [m.text for m in answers[(4096, 25)][0]] == [f"prompt {n}" for n in range(5, 30)]
        assert len(answers[(4096, 40)][0]) == 31  # the oldest prompt too
        assert [m.text for m in answers[(10, 25)][0]] == [f"prompt {n}" for n in range(21, 30)]


def test_a_line_read_last_time_is_not_decoded_again(
        home: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A prompt's hook reads the conversation twice (its record, its history), and a warm
    helper the same lines prompt after prompt: each message line was decoded every time
    (at 40 prompts ~7 % of a helper's instructions a prompt). The lines the reader's last
    read decoded are kept by their bytes: a second read decodes only the new line, and
    gives what a new reader gives."""
    from waymarks.ledger import entries

    with Waymarks(home, cwd=str(project), session=_started(home, project)) as app:
        for n in range(12):
            app.session_say(f"prompt {n}: which port?")
        session = app.current_session()
        assert session is not None
        decoded: list[bytes] = []
        real = entries.decode_line

        def counted(line: bytes):  # type: ignore[no-untyped-def]
            decoded.append(line)
            return real(line)

        monkeypatch.setattr(entries, "decode_line", counted)
        first = recent_messages(session, 1 << 20, 1000)
        assert len(first) == 12 and len(decoded) == 12
        app.session_say("prompt 12: and the host?")
        decoded.clear()
        again = recent_messages(session, 1 << 20, 1000)
        assert [m.text for m in again] == [*(m.text for m in first), "prompt 12: and the host?"]
        assert len(decoded) == 1 and b"prompt 12" in decoded[0]
        assert again == reference(session, 1 << 20, 1000)


def _started(home: Path, project: Path) -> str:
    """A Claude Code session started in ``project``: its ID."""
    sid = str(uuid.uuid4())
    start = {"session_id": sid, "cwd": str(project), "hook_event_name": "SessionStart",
             "source": "startup"}
    handle("SessionStart", start, home)
    return sid
