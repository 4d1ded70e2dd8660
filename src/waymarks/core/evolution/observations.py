"""Work observations: what a turn's own tool results say was done (EVOLUTION items 37-42).

A project's state claim ("the fix is not committed yet") goes stale when a later turn does
the work and nothing learns from it. Here a host's *work turn* (the person's request, the
tool calls and their linked results, the final reply) becomes a bounded, redacted
``progress`` source document for the model step, or a reason why it does not.

The gate (item 37): a work request (the person's text that started the turn), calls with
IDs whose results carry the same IDs, and at least one recognised *work* operation
(:data:`~.operations.WORK_PRIORITY`) from an allowed tool. At most :data:`MAX_SCAN`
messages of the current turn are scanned: its request (found however long the turn is)
and the newest after it, so a long turn loses its oldest operations, never its request.

What must stay true:
- retention by importance (item 38): at most :data:`MAX_KEPT` observations, the most
  important first (ties: newer), then back in chronological order, so late inspections
  never displace an early commit or a failed push;
- bounds (item 39): an operation at most 1,024 B, an output at most 2,048 B as a head and
  a *longer tail* (a failure's ending is where its reason is), the whole document at most
  :data:`MAX_DOCUMENT_BYTES`, measured on the serialised JSON (escapes included) and
  checked after every step that gives way: resource paths, then resource names, then
  observations (lower priorities first, then older), then the request and report; names
  and paths carry no control characters; omitted counts and the scan limit are in the
  document;
- redaction field by field *before* serialising (item 39, F11): every string goes through
  the capture sanitizer on its own (local-only spans withheld, markers removed,
  credentials redacted), so a dangling ``bearer`` in one field cannot swallow the next;
  cut edges drop the partial word, so a credential cut in half is not left as a fragment;
- exclusions (item 40): Waymarks' memory tools, and any operation whose text or arguments
  name Waymarks' own state directory, are never observations; a path is normalised
  against the directory its command runs in (``cd``, ``.``, ``..``) and a ``~`` spelling
  compared with the one the caller passes, textually (no filesystem access);
- a call ID is observed once: a call delivered again with the same ID is skipped;
- interrupted turns (item 41): a final reply that ended in error or was aborted gives
  ``completion: interrupted`` and no assistant report (observed operations are evidence,
  not proof the whole task finished); a report is never proof either way;
- resource hints (item 42) come from arguments only (``cd``, ``git -C``, file paths and
  the checkout roots the caller finds for them), never from output or the working
  directory alone: at most 16 names, 8 with their full path (<= 512 B).

Pure: the caller passes ``root_of`` (a checkout root through ``.git``, or ``None``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from waymarks.core.evolution.capture import sanitize
from waymarks.core.evolution.cues import intent
from waymarks.core.evolution.operations import (
    MAX_OPERATION_BYTES,
    WORK_PRIORITY,
    Operation,
    classify,
    is_memory_tool,
)
from waymarks.core.evolution.shell_hints import parse, resolve
from waymarks.core.lazy_re import lazy
from waymarks.core.privacy import Classification, highest
from waymarks.core.secrets import PLACEHOLDER_PREFIX

MAX_SCAN: Final = 4_096
MAX_KEPT: Final = 8
MAX_OUTPUT_BYTES: Final = 2_048
OUTPUT_HEAD_BYTES: Final = 512
MAX_TEXT_BYTES: Final = 4_096  # the request and the report, each
MAX_DOCUMENT_BYTES: Final = 28_000
MAX_RESOURCES: Final = 16
MAX_FULL_PATHS: Final = 8
MAX_PATH_BYTES: Final = 512
DOCUMENT_VERSION: Final = 1
#: how much of a raw field is looked at before redaction (a bound on the work per field)
_RAW_HEAD: Final = 4 * MAX_OUTPUT_BYTES
_RAW_TAIL: Final = 8 * MAX_OUTPUT_BYTES
_INTERRUPTED: Final = frozenset({"error", "aborted"})
_UNFINISHED: Final = frozenset({"toolUse", "length", "pending"})


@dataclass(frozen=True, slots=True)
class UserText:
    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    call_id: str
    tool: str
    args: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ToolResult:
    call_id: str
    text: str
    is_error: bool
    #: the level of markers the host removed before it kept ``text`` (Claude Code's
    #: observation records: see ``hosts.work_turns``); markers left in ``text`` count too
    level: Classification = "normal"


@dataclass(frozen=True, slots=True)
class AssistantText:
    text: str
    stop: str = "stop"  # Pi's stop reason: stop, toolUse, error, aborted, ...


TurnItem = UserText | ToolCall | ToolResult | AssistantText


@dataclass(frozen=True, slots=True)
class Observation:
    seq: int
    op: Operation
    ok: bool
    output: str  # raw: bounded and redacted when serialised
    level: Classification = "normal"  # of what the host removed from it (ToolResult.level)


@dataclass(frozen=True, slots=True)
class WorkTurn:
    """A turn that passed the gate: what the document is made from."""

    request: str
    observations: tuple[Observation, ...]  # retained, chronological
    completion: str  # completed | interrupted
    report: str | None
    resources: tuple[tuple[str, str | None], ...]  # (name, full path or None)
    omitted: int  # linked work observations not retained


@dataclass(slots=True)
class Scan:
    """What the gate saw, as counts and codes only (diagnostics: never text)."""

    scanned: int = 0
    scan_limited: bool = False
    calls: int = 0
    linked: int = 0
    ignored: dict[str, int] = field(default_factory=dict)
    retained: int = 0
    omitted: int = 0
    completion: str = "none"
    #: the last reply stopped asking for tools (or hit its length): the turn did not finish
    unfinished: bool = False
    reason: str = "captured"  # captured | no_request | no_observation | no_work
    #: what the request is, as :func:`~.cues.intent` says (a code: never the text)
    intent: str = "none"

    def ignore(self, why: str) -> None:
        self.ignored[why] = self.ignored.get(why, 0) + 1

    def to_json(self) -> dict[str, object]:
        return {"scanned": self.scanned, "scanLimited": self.scan_limited,
                "calls": self.calls, "linked": self.linked, "ignored": dict(self.ignored),
                "retained": self.retained, "omitted": self.omitted,
                "completion": self.completion, "unfinished": self.unfinished,
                "reason": self.reason, "intent": self.intent}


def observe(items: Sequence[TurnItem], *, cwd: str | None, state_dir: str,
            root_of: Callable[[str], str | None] = lambda _p: None,
            state_aliases: Sequence[str] = (), scan_limited: bool = False
            ) -> tuple[WorkTurn | None, Scan]:
    """The work turn ``items`` end with (from its last user text on), or ``None`` and
    why, with the counts either way. ``state_aliases``: other spellings of ``state_dir``
    the caller knows (its ``~``-relative form); ``scan_limited``: the host already left
    older items of the turn out (reported like the scan limit)."""
    state_dirs = (state_dir, *state_aliases)
    scan = Scan()
    start = _request_at(items)
    if start < 0:
        scan.scanned = min(len(items), MAX_SCAN)
        scan.scan_limited = len(items) > MAX_SCAN or scan_limited
        scan.reason = "no_request"
        return None, scan
    request = items[start].text  # type: ignore[union-attr]
    scan.intent = intent(request)
    # the request, then the newest items after it: a turn longer than the scan bound keeps
    # its request (what the work was for) and loses its oldest operations instead
    after = items[start + 1:]
    scan.scan_limited = len(after) > MAX_SCAN - 1 or scan_limited
    turn = [items[start], *after[-(MAX_SCAN - 1):]]
    scan.scanned = len(turn)
    results = {item.call_id: item for item in turn if isinstance(item, ToolResult)
               and item.call_id}
    found: list[Observation] = []
    last_reply: AssistantText | None = None
    #: a turn repeats its commands: each is classified (and checked for the state
    #: directory) once
    known: dict[tuple[str, str], tuple[Operation | None, bool]] = {}
    #: a host may deliver the same call twice (a repeated PostToolUse): it is one call
    seen: set[str] = set()
    for seq, item in enumerate(turn):
        if isinstance(item, AssistantText):
            last_reply = item
        if not isinstance(item, ToolCall):
            continue
        if item.call_id:
            if item.call_id in seen:
                scan.ignore("duplicate")
                continue
            seen.add(item.call_id)
        scan.calls += 1
        if is_memory_tool(item.tool):
            scan.ignore("memory_tool")
            continue
        command = item.args.get("command")
        memo = (item.tool, command) if isinstance(command, str) and len(item.args) <= 2 \
            else None
        if memo is not None and memo in known:
            op, owned = known[memo]
        else:
            op = classify(item.tool, item.args, cwd)
            owned = op is not None and _names_state_dir(op, item.args, state_dirs, cwd)
            if memo is not None:
                known[memo] = (op, owned)
        if op is None:
            scan.ignore("unknown_tool")
            continue
        result = results.get(item.call_id) if item.call_id else None
        if result is None:
            scan.ignore("unlinked")
            continue
        if owned:
            scan.ignore("state_dir")
            continue
        scan.linked += 1
        found.append(Observation(seq, op, not result.is_error, result.text, result.level))
    interrupted = last_reply is not None and last_reply.stop in _INTERRUPTED
    scan.completion = "interrupted" if interrupted else "completed"
    scan.unfinished = last_reply is not None and last_reply.stop in _UNFINISHED
    if not found:
        scan.reason = "no_observation"
        return None, scan
    if not any(o.op.priority >= WORK_PRIORITY for o in found):
        scan.reason = "no_work"
        return None, scan
    kept = retain(found)
    scan.retained, scan.omitted = len(kept), len(found) - len(kept)
    report = None if interrupted or last_reply is None else last_reply.text
    return WorkTurn(request, tuple(kept), scan.completion, report,
                    resources(found, root_of), scan.omitted), scan


def _request_at(items: Sequence[TurnItem]) -> int:
    """Where the turn's request is: the last user text that is not blank (``-1``: none).
    Searched from the end over the whole list (the host bounds it), not only inside the
    scan window: a turn longer than the window still has its request."""
    for at in range(len(items) - 1, -1, -1):
        item = items[at]
        if isinstance(item, UserText) and item.text.strip():
            return at
    return -1


def retain(found: Sequence[Observation], keep: int = MAX_KEPT) -> list[Observation]:
    """The ``keep`` most important observations (ties: the newer), in chronological order."""
    ranked = sorted(found, key=lambda o: (o.op.priority, o.seq), reverse=True)[:keep]
    return sorted(ranked, key=lambda o: o.seq)


def _names_state_dir(op: Operation, args: Mapping[str, object], state_dirs: Sequence[str],
                     cwd: str | None) -> bool:
    """Whether the call names Waymarks' own state directory in any spelling the text
    allows: its literal text, a path normalised against the directory its command runs in
    (``cd /home/u && cat .waymarks/x``, ``/home/u/./.waymarks``, ``..``), or the
    ``~``-relative spelling the caller passes (``~/.waymarks``, ``$HOME/.waymarks``).
    Textual only: nothing is looked up on the filesystem."""
    roots = [r for r in (_normal(d, None) for d in state_dirs if d) if r]
    if not roots:
        return False
    texts = [op.text, *(v for v in args.values() if isinstance(v, str))]
    if any(t == r or r + "/" in t or t.endswith(r) for r in roots for t in texts):
        return True  # the plain spelling, anywhere
    command = args.get("command")
    pairs: list[tuple[str, str | None]]
    if op.tool == "bash" and isinstance(command, str):
        pairs = [(w.text, simple.directory or cwd) for simple in parse(command, cwd).commands
                 for w in simple.words]
    else:
        pairs = [(v, cwd) for v in args.values() if isinstance(v, str)]
    pairs += [(c, None) for c in (*op.directories, *op.files)]
    for text, base in pairs:
        for spelling in _spellings(text):
            path = _normal(spelling, base)
            if path is not None and any(path == r or path.startswith(r.rstrip("/") + "/")
                                        for r in roots):
                return True
    return False


def _spellings(word: str) -> list[str]:
    """The path-like parts of one word: itself, the value of ``--opt=VALUE`` or
    ``NAME=VALUE``, and the target of a redirection (``>FILE``, ``2>>FILE``)."""
    out = [word]
    if "=" in word:
        out.append(word.split("=", 1)[1])
    stripped = word.lstrip("0123456789&")
    if stripped.startswith(("<", ">")):
        out.append(stripped.lstrip("<>&|"))
    return out


def _normal(path: str, base: str | None) -> str | None:
    """``path`` absolute and normalised textually (``.``, ``..``, repeated slashes), a
    ``~`` / ``$HOME`` prefix kept as ``~`` (the caller passes that spelling of the state
    directory too); ``None`` when it cannot be said."""
    for home in ("$HOME", "${HOME}"):
        if path == home or path.startswith(home + "/"):
            path = "~" + path[len(home):]
    if path == "~" or path.startswith("~/"):
        rest = resolve("/" + path[2:], None)
        return "~" if rest in (None, "/") else "~" + (rest or "")
    return resolve(path, base)


def resources(found: Sequence[Observation], root_of: Callable[[str], str | None]
              ) -> tuple[tuple[str, str | None], ...]:
    """Checkout roots and directories the operations' arguments name: the most important
    operations first; at most 16, the first 8 with their full path."""
    paths: dict[str, None] = {}  # in order, once each
    roots: dict[str, str | None] = {}

    def root(path: str) -> str | None:
        if path not in roots:
            roots[path] = root_of(path)
        return roots[path]

    for obs in sorted(found, key=lambda o: (-o.op.priority, o.seq)):
        for directory in obs.op.directories:
            paths[root(directory) or directory] = None
        for file in obs.op.files:
            found_root = root(file)
            if found_root:
                paths[found_root] = None
        if len(paths) >= MAX_RESOURCES:
            break
    out: list[tuple[str, str | None]] = []
    for path in paths:
        name = path.rstrip("/").rsplit("/", 1)[-1] or "/"
        full = path if len(out) < MAX_FULL_PATHS and len(path.encode()) <= MAX_PATH_BYTES \
            else None
        out.append((name[:128], full))
        if len(out) >= MAX_RESOURCES:
            break
    return tuple(out)


# -- bounds and redaction --------------------------------------------------------------


def cut_head(data: bytes, limit: int) -> str:
    """The first ``limit`` bytes, the partial word at the cut dropped."""
    if len(data) <= limit:
        return data.decode("utf-8", "ignore")
    text = data[:limit].decode("utf-8", "ignore")
    space = max(text.rfind(" "), text.rfind("\n"), text.rfind("\t"))
    return text[:space] if space > 0 else ""


def cut_tail(data: bytes, limit: int) -> str:
    """The last ``limit`` bytes, the partial word at the cut dropped."""
    if len(data) <= limit:
        return data.decode("utf-8", "ignore")
    text = data[-limit:].decode("utf-8", "ignore")
    cut = [i for i in (text.find(" "), text.find("\n"), text.find("\t")) if i >= 0]
    return text[min(cut) + 1:] if cut else ""


#: a private key's armour lines (the secret rules' ``pem``): a tail cut inside the block
#: holds its END line and none of its BEGIN line
_KEY_BEGIN: Final = lazy(r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")
_KEY_END: Final = lazy(r"-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----")


def clean_tail(data: bytes, limit: int) -> tuple[str, Classification]:
    """The last ``limit`` bytes of ``data`` (:func:`cut_tail`) sanitized as :func:`clean`
    does, a private key's block the cut fell inside redacted from the cut to its END line
    (as a head cut inside one is redacted to its end): the credential rules find a block
    by its BEGIN line, so the rest of a key cut there was stored and sent in clear."""
    tail = cut_tail(data, limit)
    if len(data) > limit:
        end = _KEY_END.search(tail)
        if end is not None and _KEY_BEGIN.search(tail, 0, end.start()) is None:
            tail = f"{PLACEHOLDER_PREFIX}private-key]" + tail[end.end():]
    return clean(tail)


def clean(text: str) -> tuple[str, Classification]:
    """One field sanitized on its own: local-only spans withheld, markers removed,
    credentials redacted (``""`` when nothing may be kept)."""
    done = sanitize(text)
    return ("", "normal") if done is None else done


def bounded_text(text: str, limit: int) -> tuple[str, Classification]:
    """A request, report or operation: redacted, then at most ``limit`` bytes."""
    data = text.encode("utf-8")
    raw = cut_head(data, _RAW_HEAD + limit) if len(data) > _RAW_HEAD + limit else text
    body, level = clean(raw)
    return cut_head(body.encode("utf-8"), limit), level


def preview(text: str, limit: int = MAX_OUTPUT_BYTES, head: int = OUTPUT_HEAD_BYTES
            ) -> tuple[str, Classification]:
    """A tool output: redacted, then its head and a longer tail (a failure's ending is
    kept), with the number of bytes left out between them."""
    data = text.encode("utf-8")
    if len(data) > _RAW_HEAD + _RAW_TAIL:
        first, first_level = clean(cut_head(data, _RAW_HEAD))
        last, last_level = clean_tail(data, _RAW_TAIL)
        level = highest(first_level, last_level)
    else:
        whole, level = clean(text)
        encoded = whole.encode("utf-8")
        if len(encoded) <= limit:
            return whole, level
        first, last = whole, whole
    first_b, last_b = first.encode("utf-8"), last.encode("utf-8")
    marker_room = 40
    kept_head = cut_head(first_b, head)
    kept_tail = cut_tail(last_b, limit - len(kept_head.encode("utf-8")) - marker_room)
    left_out = max(0, len(data) - len(kept_head.encode()) - len(kept_tail.encode()))
    return f"{kept_head}\n[... {left_out} bytes omitted ...]\n{kept_tail}", level


# -- the document ------------------------------------------------------------------------


def document(turn: WorkTurn, targets: Sequence[str], scan: Scan,
             default: Classification = "normal") -> tuple[str, Classification, int]:
    """The progress source document (JSON, at most :data:`MAX_DOCUMENT_BYTES`), its
    classification and how many observations the byte bound dropped. Every field is
    redacted on its own before anything is serialised. ``default``: the level of unmarked
    text (the policy's ``defaultClassification``; the caller keeps nothing at
    ``local-only``), so the document is at least that."""
    level: Classification = default
    request, lv = bounded_text(turn.request, MAX_TEXT_BYTES)
    level = highest(level, lv)
    report = None
    if turn.report is not None:
        report, lv = bounded_text(turn.report, MAX_TEXT_BYTES)
        level = highest(level, lv)
    rows: list[tuple[int, int, dict[str, object]]] = []
    for obs in turn.observations:
        op, lv1 = bounded_text(obs.op.text, MAX_OPERATION_BYTES)
        out, lv2 = preview(obs.output)
        level = highest(level, lv1, lv2, obs.level)
        rows.append((obs.op.priority, obs.seq, {
            "tool": obs.op.tool, "kind": obs.op.label, "priority": obs.op.priority,
            "operation": op, "ok": obs.ok, "output": out}))
    names: list[dict[str, object]] = []
    for name, full in turn.resources:
        shown, lv = clean(_printable(name))
        entry: dict[str, object] = {"name": shown}
        if full is not None:
            path, lv3 = clean(_printable(full))
            entry["path"] = path
            lv = highest(lv, lv3)
        level = highest(level, lv)
        names.append(entry)
    kept_targets = list(targets)
    dropped = 0

    def render() -> str:
        doc = {"version": DOCUMENT_VERSION, "request": request,
               "completion": turn.completion, "report": report,
               "observations": [r for _p, _s, r in sorted(rows, key=lambda x: x[1])],
               "resources": names, "targets": kept_targets,
               "omitted": {"observations": turn.omitted + dropped,
                           "scanLimited": scan.scan_limited, "scanLimit": MAX_SCAN}}
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))

    # what gives way, in order: resource paths, then resource names (hints only), then
    # observations (lower priority first, then older), then the request and report
    text = render()
    while len(text.encode("utf-8")) > MAX_DOCUMENT_BYTES:
        if any("path" in entry for entry in names):
            names = [{"name": entry["name"]} for entry in names]
        elif names:
            names = []
        elif rows:
            rows.remove(min(rows, key=lambda x: (x[0], x[1])))
            dropped += 1
        elif report is not None or len(request.encode("utf-8")) > 1_024:
            request, report = cut_head(request.encode("utf-8"), 1_024), None
        elif request:
            request = ""
        elif kept_targets:  # never in practice: a few short IDs
            kept_targets.pop()
        else:  # the skeleton alone is far below the bound
            break
        text = render()
    return text, level, dropped


def _printable(text: str) -> str:
    """``text`` without C0 control characters or DEL (a name or path: each would take six
    bytes as a JSON escape, and none belongs in a hint)."""
    return text.translate(_CONTROLS)


_CONTROLS: Final = dict.fromkeys([*range(0x20), 0x7F])


def targets_of(text: str) -> tuple[str, ...]:
    """The nominated target IDs a progress document carries (the host wrote them)."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return ()
    found = doc.get("targets") if isinstance(doc, dict) else None
    if not isinstance(found, list):
        return ()
    return tuple(dict.fromkeys(t for t in found if isinstance(t, str)))[:8]
