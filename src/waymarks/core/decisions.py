"""Write decisions: a pin or memory request checked against current state, beside the fold.

:mod:`waymarks.core.rules` says what a mutation *does* to state (live writes and replay
alike); this module says whether a *request* may become a mutation at all, and which.
Each ``decide_*`` function takes the request and a :class:`WriteContext` (the state as it
is while the session lock is held, with the clock reading and an ID source passed in)
and returns either the mutation to append or a typed :class:`Rejected` /
:class:`Duplicate`. The service builds the context and appends; the model-callable tool
runs the very same functions as a dry run before anyone is asked, so neither keeps its
own copy of a length, key, scope or trust rule.

Pure: no I/O, no clock. What must stay true:
- a rejection names its stable ``code`` and says what to do, never echoing a credential;
- nothing about a refused request is left behind (the caller appends only a mutation);
- the order of the checks is the order of the answers, and the tool relies on it: an
  add or a supersede checks its own text, classification and key first (``empty``,
  ``too_long``, ``credential``, ``invalid_argument``), then its target (``not_found``,
  ``not_active``, ``scope_mismatch``), scope and trust (``untrusted``) and branch
  (``off_branch``), and only then active state (a duplicate, ``conflict``); a status
  change checks its status, then its target, then trust, then its reason.

The target a write names, and what a refusal of a closed one says, are
:mod:`waymarks.core.decision_targets`' (re-exported here).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, cast

import msgspec

from waymarks.core.decision_targets import find_target as find_target
from waymarks.core.decision_targets import suggested as suggested
from waymarks.core.decision_types import Decision as Decision
from waymarks.core.decision_types import Duplicate as Duplicate
from waymarks.core.decision_types import Rejected as Rejected
from waymarks.core.decision_types import RejectionCode as RejectionCode
from waymarks.core.decision_types import WriteContext as WriteContext
from waymarks.core.marked_forms import marked_forms
from waymarks.core.marker_near_miss import near_miss_markers
from waymarks.core.model import (
    CLASSIFICATIONS,
    MAX_CLAIM_CHARS,
    MAX_PIN_CHARS,
    MAX_REASON_CHARS,
    MAX_SOURCE_FILE_CHARS,
    MEMORY_SCOPES,
    MEMORY_STATUS_TARGETS,
    PIN_SCOPES,
    PIN_STATUS_TARGETS,
    SCHEMA_VERSION,
    Classification,
    MemoryItem,
    MemoryMutation,
    PinItem,
    PinMutation,
    Scope,
)
from waymarks.core.privacy import (
    classify,
    has_markers,
    level_rank,
    strip_markers,
)
from waymarks.core.rules import (
    ItemState,
    find_contradictions,
    find_duplicate,
    is_auto_key,
    key_apart,
    new_state,
)
from waymarks.core.secrets import credential_kinds
from waymarks.core.text import (
    MAX_KEY_CHARS,
    echoed,
    escaped,
    is_unicode,
    loose_key,
    normalize,
    normalize_key,
    unknown_id,
    visible,
)


def clean_text(text: str, *, what: str, limit: int) -> str | Rejected:
    if not is_unicode(text):
        return Rejected("invalid_argument", f"{what} is not valid Unicode (lone surrogates)")
    stripped = text.strip()
    # what to do, and that nothing was written (it said only what was wrong)
    if not visible(stripped):
        return Rejected("empty", f"{what} must not be empty (nor only invisible characters)"
                        ": give its text; nothing was written")
    if len(stripped) > limit:
        fact = " (one fact a claim)" if what == "Memory claim" else ""
        return Rejected("too_long", f"{what} has {len(stripped)} characters; the limit is "
                        f"{limit}: shorten it{fact}; nothing was written")
    return refuse_credentials(stripped, what) or stripped


def long_key(folded_key: str) -> str | None:
    """Why a key, folded as stored (``normalize_key(key, cut=False)``), is too long; None
    when it is not. One rule for every command given ``--key``: `memory list --key` of a
    longer one cut it and listed the claims of another key (its first 160 characters)."""
    if len(folded_key) <= MAX_KEY_CHARS:
        return None
    return (f"Memory key has {len(folded_key)} characters as stored (folded to a slug); "
            f"the limit is {MAX_KEY_CHARS}: give a shorter key (e.g. --key db-port)")


def refuse_credentials(text: str, what: str) -> Rejected | None:
    """Waymarks stores no credentials: ledgers are plain text and what is stored is shown
    to models. The refusal names the kind of credential, never the value."""
    kinds = credential_kinds(text)
    if not kinds:
        return None
    return Rejected("credential", f"{what} holds what looks like a credential "
                    f"({', '.join(kinds)}); Waymarks does not store credentials. Say where it "
                    "is kept instead (for example: the registry token is the CI secret "
                    "REGISTRY_TOKEN)")


def clean_reason(reason: str | None) -> str | Rejected | None:
    if reason is None or not reason.strip():
        return None
    return clean_text(reason, what="Reason", limit=MAX_REASON_CHARS)


def parse_classification(value: str | None) -> Classification | Rejected | None:
    if value is None:
        return None
    folded = value.strip().lower()
    if folded not in CLASSIFICATIONS:
        return Rejected(
            "invalid_argument", "Classification must be normal, internal, sensitive, or local-only"
        )
    return cast(Classification, folded)


def parse_scope(value: str | None, kind: Literal["pin", "memory"]) -> Scope | Rejected:
    allowed = PIN_SCOPES if kind == "pin" else MEMORY_SCOPES
    if value is not None and not value.strip():  # (it was taken for the default)
        return Rejected("invalid_argument", f"{kind} scope is empty; give one of: "
                        f"{', '.join(allowed)} (or none, for session)")
    scope = (value or "session").strip().lower()
    if scope not in allowed:
        return Rejected("invalid_argument", f"{kind} scope must be one of: {', '.join(allowed)}")
    return cast(Scope, scope)


def decide_pin(
    ctx: WriteContext,
    content: str,
    *,
    scope: str | None,
    classification: str | None,
    source: str | None,
    source_file: str | None,
    supersedes: str | None,
) -> Decision:
    cleaned = _text_and_level(content, "Pin content", MAX_PIN_CHARS, classification)
    if isinstance(cleaned, Rejected):
        return cleaned
    text, level = cleaned
    if source_file is not None:  # stored as given, but checked as any stored text is:
        # it is rendered with the pin into every plan
        checked_path = clean_text(source_file, what="Pin source file",
                                  limit=MAX_SOURCE_FILE_CHARS)
        if isinstance(checked_path, Rejected):
            return checked_path
    previous: ItemState | None = None
    previous_leaf: str | None = None  # the branch pin it replaces applies from there
    if supersedes is not None:
        target = find_target(ctx, "pin", supersedes, ("pin", "--supersedes"))
        if isinstance(target, Rejected):
            return target
        previous = target
        if scope is not None and scope.strip().lower() != previous.item.scope:
            return Rejected("scope_mismatch", "Replacement pin must keep the original scope "
                            f"({previous.item.scope})")
        scope = previous.item.scope
        level = level or previous.item.classification
        if isinstance(previous.item, PinItem):
            previous_leaf = previous.item.branch_leaf_id
        if previous_leaf is not None and previous_leaf not in ctx.branch:
            # its replacement took this branch's leaf: it moved here, and the branch it
            # was pinned for lost it
            return Rejected("off_branch", f"Pin {echoed(supersedes)} is a branch pin of "
                            "another branch (it does not apply here); go back to that "
                            "branch to supersede it, or pin this text here as a new pin")
    parsed_scope = parse_scope(scope, "pin")
    if isinstance(parsed_scope, Rejected):
        return parsed_scope
    if source is not None and not source.strip():  # "" was taken as none, "  " as an ID
        return Rejected("invalid_argument", "the pin's source entry ID is empty; name the "
                        "session entry the pin comes from, or give no source")
    checked = _check_scope_and_sources(ctx, parsed_scope, (source,) if source else (), "Pin")
    if checked is not None:
        return checked
    if parsed_scope == "branch" and ctx.leaf_id is None:
        return Rejected("off_branch", "Branch pin requires an active branch leaf: the session "
                        "has no entries yet (add one with `waymarks session say TEXT`)")
    item = PinItem(
        id=ctx.new_uuid(), scope=parsed_scope, content=text, created_at=ctx.now_ms,
        project_path=ctx.project_path if parsed_scope == "project" else None,
        # a replacement applies where the pin it replaces did, from its leaf (taken from
        # further down the branch, it left the branches forked in between)
        branch_leaf_id=(previous_leaf or ctx.leaf_id) if parsed_scope == "branch" else None,
        classification=level, source_entry_id=source or None, source_file=source_file,
    )
    return _add_or_supersede(ctx, item, previous)


def decide_memory(
    ctx: WriteContext,
    claim: str,
    *,
    scope: str | None,
    classification: str | None,
    key: str | None,
    sources: tuple[str, ...],
    supersedes: str | None = None,
) -> Decision:
    cleaned = _text_and_level(claim, "Memory claim", MAX_CLAIM_CHARS, classification)
    if isinstance(cleaned, Rejected):
        return cleaned
    text, level = cleaned
    folded_key = None
    if key is not None:
        refused = refuse_credentials(key, "Memory key")
        if refused is not None:
            return refused
        if has_markers(key) or near_miss_markers(key):  # folded, a marker classified
            # nothing and the key went to every provider as a slug of the marked text
            return Rejected("invalid_argument", "Memory key must not hold classification "
                            "markers ([ds4:…]); give a plain key, and the level with "
                            "--classification")
        folded_key = normalize_key(key, cut=False)
        if not folded_key:
            return Rejected("invalid_argument", "Memory key needs a letter or a digit (e.g. "
                            "db-port); give none to derive it from the text")
        too_long = long_key(folded_key)
        if too_long is not None:  # cut, two long keys were one (a conflict)
            return Rejected("too_long", f"{too_long}; nothing was written")
    previous: ItemState | None = None
    if supersedes is not None:
        target = find_target(ctx, "memory", supersedes, ("memory", "supersede"))
        if isinstance(target, Rejected):
            return target
        previous = target
        assert isinstance(previous.item, MemoryItem)
        scope = previous.item.scope
        level = level or previous.item.classification
        if not is_auto_key(previous.item):  # a key given to keep it apart is its own
            folded_key = folded_key or previous.item.key
    parsed_scope = parse_scope(scope, "memory")
    if isinstance(parsed_scope, Rejected):
        return parsed_scope
    checked = _check_scope_and_sources(ctx, parsed_scope, sources, "Memory")
    if checked is not None:
        return checked
    item = MemoryItem(
        id=ctx.new_uuid(), scope=parsed_scope, claim=text, created_at=ctx.now_ms,
        project_path=ctx.project_path if parsed_scope == "project" else None,
        key=folded_key, classification=level, source_entry_ids=tuple(dict.fromkeys(sources)),
    )
    return _add_or_supersede(ctx, item, previous)


#: the command that sets each status, as a refusal suggests it
_STATUS_COMMANDS: Final[dict[str, tuple[str, ...]]] = {
    "deleted": ("unpin",), "invalid": ("memory", "invalidate"), "expired": ("memory", "expire")}


def decide_status(
    ctx: WriteContext, kind: Literal["pin", "memory"], ref: str, status: str, reason: str | None
) -> Decision:
    allowed = PIN_STATUS_TARGETS if kind == "pin" else MEMORY_STATUS_TARGETS
    # else appended for good, and refused by every later replay (a list: not even hashed)
    if not isinstance(status, str) or status not in allowed:
        return Rejected("invalid_argument", f"a {kind}'s status cannot be set to "
                        f"{echoed(str(status))}; give {' or '.join(sorted(allowed))}")
    target = find_target(ctx, kind, ref, _STATUS_COMMANDS.get(status, ()))
    cleaned = clean_reason(reason)
    if isinstance(target, Rejected):
        return target
    if target.item.scope == "project" and not ctx.trusted:
        return Rejected("untrusted", f"{escaped(ctx.project_path)} is not trusted; to change its "
                        f"project {kind}s, {ctx.trust_step()}")
    if isinstance(cleaned, Rejected):
        return cleaned
    base = {"schema_version": SCHEMA_VERSION, "mutation_id": ctx.new_uuid(),
            "created_at": ctx.now_ms, "operation": "status", "status": status, "reason": cleaned}
    if kind == "pin":
        return PinMutation(pin_id=target.id, **base)  # type: ignore[arg-type]
    return MemoryMutation(memory_id=target.id, **base)  # type: ignore[arg-type]


def _text_and_level(
    text: str, what: str, limit: int, classification: str | None
) -> tuple[str, Classification | None] | Rejected:
    cleaned = clean_text(text, what=what, limit=limit)
    if isinstance(cleaned, Rejected):
        return cleaned
    level = parse_classification(classification)
    return level if isinstance(level, Rejected) else (cleaned, level)


def _check_scope_and_sources(
    ctx: WriteContext, scope: Scope, sources: tuple[str, ...], what: str
) -> Rejected | None:
    if scope == "project" and not ctx.trusted:
        return Rejected(
            "untrusted",
            f"Project {what.lower()} requires a trusted project: "
            f"{escaped(ctx.project_path)} is not trusted; {ctx.trust_step()}",
        )
    for entry_id in sources:
        if entry_id not in ctx.branch:
            # (`session` is no command of a host's /context: inside Pi, no hint)
            shows = suggested(ctx.prog, "session", "show")
            if ctx.has_entry is not None and not ctx.has_entry(entry_id):
                return Rejected("not_found", unknown_id(
                    "session entry", entry_id, "in this session", shows)
                    if ctx.prog == "waymarks" else
                    f"no session entry '{echoed(entry_id)}' in this session")
            listed = f"; `{shows}` lists the entries on it" if ctx.prog == "waymarks" else ""
            return Rejected("off_branch", f"{what} source entry {echoed(entry_id)} is not on "
                            f"the active branch{listed}")
    return None


def _add_or_supersede(
    ctx: WriteContext, item: PinItem | MemoryItem, previous: ItemState | None
) -> Decision:
    kind: Literal["pin", "memory"] = "pin" if isinstance(item, PinItem) else "memory"
    candidate = new_state(item, ctx.session_id, "", 0)
    duplicate = find_duplicate(ctx.view, candidate)
    if duplicate is None:
        # the same text with other marker tags; a supersede of that item itself (its
        # text without the tags, say) is the person's own change of it
        twin = _marked_duplicate(ctx, candidate)
        if twin is not None and (previous is None or twin.id != previous.id):
            duplicate = twin
    if duplicate is not None and _duplicate_applies(ctx, duplicate):
        if previous is not None and previous.id != duplicate.id:
            # answered as a duplicate (success, nothing appended), the target stayed
            # active and the writer believed it replaced
            return _already_said(ctx.prog, kind, previous.id, duplicate.id)
        if not _stricter(candidate, duplicate, ctx.default_level):
            return Duplicate(duplicate.id, kind)
        if isinstance(duplicate.item, PinItem) and duplicate.item.scope == "branch":
            # superseded, it would apply from this leaf on only, and no more on the
            # branches it was pinned for
            return Rejected("invalid_argument", f"Pin {escaped(duplicate.id)} holds this "
                            "text at a looser level; a branch pin is not tightened by a new "
                            "pin of its text: unpin it "
                            f"(`{suggested(ctx.prog, 'unpin', duplicate.id[:8])}`), "
                            "then pin it with the level")
        # the same text at a stricter level: the stored one is superseded (a duplicate
        # dropped the level with success, and the text kept going to remote models)
        previous = duplicate
        if isinstance(item, MemoryItem):
            kept = _tightened_key(ctx, item, duplicate)
            if isinstance(kept, Rejected):
                return kept
            item = msgspec.structs.replace(item, key=kept)
            candidate = new_state(item, ctx.session_id, "", 0)
    ignore = frozenset({previous.id}) if previous else frozenset()
    if isinstance(item, MemoryItem):
        apart = key_apart(ctx.view, candidate, ignore)
        if apart is not None:  # a derived key shared with a distinct fact (see key_apart)
            item = msgspec.structs.replace(item, key=apart)
            candidate = new_state(item, ctx.session_id, "", 0)
    conflicts = find_contradictions(ctx.view, candidate, _seen_partitions(ctx, candidate),
                                    ignore, ctx.similar)
    if conflicts:
        return _conflict(ctx, conflicts, previous)
    fields = {"schema_version": SCHEMA_VERSION, "mutation_id": ctx.new_uuid(),
              "created_at": ctx.now_ms,
              "operation": "supersede" if previous else "add",
              "previous_id": previous.id if previous else None}
    if isinstance(item, PinItem):
        return PinMutation(item=item, **fields)  # type: ignore[arg-type]
    return MemoryMutation(item=item, **fields)  # type: ignore[arg-type]


def _marked_duplicate(ctx: WriteContext, candidate: ItemState) -> ItemState | None:
    """The active item holding ``candidate``'s text with other marker tags: without any
    (``X`` for ``[ds4:sensitive]X[/ds4:sensitive]``) or marked whole at a level
    (``[ds4:local-only]X.[/ds4:local-only]`` for ``X`` or for ``[ds4:internal]X``). The
    same text: a stricter one supersedes it, as ``--classification`` does, and one at the
    same or a looser level is a duplicate. Compared with their tags they were two texts:
    a marked one was added beside ``X``, which stayed, and ``X`` (or ``X`` marked looser)
    beside a marked one (an older export imported again); either way ``X`` went on to
    the providers the marker kept it from. The forms are compared as :func:`normalize`
    leaves them (case, spaces, the final period: ``X`` beside ``[ds4:local-only] X.
    [/ds4:local-only]``), in one indexed lookup."""
    marked = has_markers(candidate.text)
    bare = normalize(strip_markers(candidate.text)) if marked else candidate.norm
    forms = [*([bare] if marked else []), *marked_forms(bare)]
    forms = [f for f in dict.fromkeys(forms) if f != candidate.norm]
    return next((found for found in ctx.view.active_with_norms(
        candidate.kind, candidate.partition, forms)
        if found.item.scope == candidate.item.scope), None)


def _tightened_key(ctx: WriteContext, item: MemoryItem,
                   stored: ItemState) -> str | Rejected | None:
    """The key of a claim that tightens ``stored`` (its text at a stricter level): the key
    chosen for that fact stays with it (the claim lost it, and a contradiction under that
    key was then accepted), as a supersede keeps it; another key given is refused, since
    tightening is no place to rename the fact. A key :func:`key_apart` gave is nobody's
    choice: it is derived again. A derived one stays too when the new text holds markers:
    derived again, it was made of the tags' words (``ds4-internal-the-api-token``), and a
    contradiction under the fact's key was accepted."""
    theirs = stored.item.key if isinstance(stored.item, MemoryItem) else None
    if not theirs and item.key is None and has_markers(item.claim):
        return stored.key
    if not theirs or (isinstance(stored.item, MemoryItem) and is_auto_key(stored.item)):
        return item.key
    if item.key is None or loose_key(item.key) == loose_key(theirs):
        return theirs
    return Rejected("invalid_argument",
                    f"Memory {escaped(stored.id)} holds this text under the key "
                    f"{echoed(theirs)}; "
                    f"stored again at a stricter level it keeps that key, and the key "
                    f"{echoed(item.key)} was given. Give no key (or {echoed(theirs)}) to "
                    f"tighten it; to keep the text under another key, invalidate it first "
                    f"(`{suggested(ctx.prog, 'memory', 'invalidate', stored.id)}`)",
                    (stored.id,))


def _already_said(prog: str, kind: Literal["pin", "memory"], target: str,
                  holder: str) -> Rejected:
    """The refusal of a supersede whose new text is another active item's."""
    retire = (f"unpin it (`{suggested(prog, 'unpin', target)}`)" if kind == "pin" else
              f"invalidate it (`{suggested(prog, 'memory', 'invalidate', target)}`)")
    return Rejected("invalid_argument",
                    f"{kind.capitalize()} {escaped(holder)} already says this; {kind} "
                    f"{escaped(target)} is not changed. If {escaped(target)} is wrong, "
                    f"{retire}", (holder,))


def _conflict(ctx: WriteContext, conflicts: tuple[str, ...],
              previous: ItemState | None) -> Rejected:
    """The refusal of a claim that contradicts ``conflicts``. A supersede whose other
    conflicts already contradict the claim it replaces meets two active rivals of one
    fact: suggesting to supersede the other sent the writer round in a circle (that one's
    supersede is refused naming the first), so the rivals are to be invalidated first; so
    are other conflicts of a supersede (two restatements of the fact: "supersede the
    other" circled the same way), and all but one of an add's. The one to supersede is a
    project's claim where one is among them (:func:`_kept`): followed, advice to supersede
    a session's restatement and invalidate the project's left the project no claim of the
    fact once the session ended."""
    listed = ", ".join(map(escaped, conflicts))

    def invalidate(ids: Iterable[str]) -> str:
        return ", ".join(f"`{suggested(ctx.prog, 'memory', 'invalidate', c)}`" for c in ids)

    if previous is not None:
        if not set(conflicts) <= set(find_contradictions(
                ctx.view, previous, _seen_partitions(ctx, previous))):
            # (they state the fact as the superseded one does, or another: superseding
            # one of them instead was refused naming the memory superseded here)
            kept = _kept(ctx, (previous.id, *conflicts))
            others = [c for c in (previous.id, *conflicts) if c != kept]
            return Rejected(
                "conflict", f"Memory conflicts with active item(s): {listed}, besides "
                f"{escaped(previous.id)}, the memory this supersedes. Invalidate "
                f"{'them' if kept == previous.id else 'the others'} first "
                f"({invalidate(others)}), then supersede {escaped(kept)}"
                f"{' again' if kept == previous.id else ''}", conflicts)
        return Rejected(
            "conflict",
            f"Memory conflicts with active item(s): {listed}, which already contradict "
            f"{escaped(previous.id)}, the memory this supersedes (two active claims of one "
            f"fact). Invalidate the wrong one first ({invalidate(conflicts)}), then supersede "
            f"{escaped(previous.id)} "
            "again", conflicts)
    kept = _kept(ctx, conflicts)
    rest = invalidate(c for c in conflicts if c != kept)  # (a supersede replaces one)
    return Rejected(
        "conflict",
        f"Memory conflicts with active item(s): {listed}"
        f"{f' (invalidate the others: {rest})' if rest else ''}. Use "
        f"`{suggested(ctx.prog, 'memory', 'supersede', kept)} -- NEW CLAIM` to "
        "replace it", conflicts)


def _kept(ctx: WriteContext, ids: tuple[str, ...]) -> str:
    """Of claims of one fact, the one to supersede: the project's first (a supersede keeps
    its scope), else the first."""
    return next((c for c in ids if (state := ctx.view.get(c)) is not None
                 and state.partition.startswith("project:")), ids[0])


def _seen_partitions(ctx: WriteContext, candidate: ItemState) -> tuple[str, ...]:
    """Where a new claim may contradict what already applies: its own partition, the
    session's, and the project's when the project is trusted (its claims are recalled here)."""
    partitions = [candidate.partition, f"session:{ctx.session_id}"]
    if ctx.trusted and ctx.project_path:
        partitions.append(f"project:{ctx.project_path}")
    return tuple(dict.fromkeys(partitions))


def _stricter(new: ItemState, stored: ItemState, default: str) -> bool:
    """Whether ``new`` classifies its text above what ``stored`` does (the same text),
    each stored without a level taken at the policy's ``default``."""
    return level_rank(classify(new.text, new.item.classification or default)) > level_rank(
        classify(stored.text, stored.item.classification or default))


def _duplicate_applies(ctx: WriteContext, existing: ItemState) -> bool:
    """A branch pin is only a duplicate of one that applies on this branch."""
    if isinstance(existing.item, PinItem) and existing.item.scope == "branch":
        return existing.item.branch_leaf_id in ctx.branch
    return True


def text_notices(*texts: str | None) -> tuple[str, ...]:
    """What a person should hear about text they stored: look-alike markers classify
    nothing (``[ds4: local-only]`` with a space is plain text)."""
    count = sum(near_miss_markers(t) for t in texts if t)
    if not count:
        return ()
    return (f"{count} thing(s) in the text look like a classification marker but are not "
            "one, so they classify nothing; write them exactly as [ds4:LEVEL]…[/ds4:LEVEL] "
            "(LEVEL: normal, internal, sensitive, local-only), or use --classification",)
