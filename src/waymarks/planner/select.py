"""Context selection: which pins, memories, retrieved turns and snippets enter a request.

Order and budgets of seed 000:

- persistent pins, priority 950, mandatory within ``max_pinned_tokens``;
- memory, priority 90, within ``max_memory_tokens`` and ``max_results``, competing in
  the order of :mod:`waymarks.planner.memory_order` (named keys, relevance, scope
  authority, recency);
- the personal memory index, priority 88, within ``max_personal_tokens`` (index lines in
  index order until the budget is spent; a line the provider may not see is left out);
- historical retrieval, priority 85; project snippets, priority 80;
- learned claims (provisional, written by a model), priority 79, within
  ``max_learned_tokens``: chosen last, after everything a person confirmed, saved or
  wrote (an Accepted decision record's passage too), so under a tight model limit a
  learned claim never takes their room;
- the current request, mandatory.

Pins are never split: if the applicable, allowed pins do not fit their budget, or the
mandatory parts do not fit the model limit, the plan *falls back* (no synthetic context,
the manifest says why) instead of silently dropping some of them. A prohibited item is
omitted as a whole and recorded by ID, classification and reason only. The manifest
never holds pin content or claim text.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

import msgspec

from waymarks.core.egress import Egress
from waymarks.core.text import normalize
from waymarks.core.tokens import estimate_tokens
from waymarks.planner.budgets import Budgets as Budgets  # re-exported
from waymarks.planner.fill import NO_ROOM, SEPARATOR
from waymarks.planner.learned import LEARNED_PRIORITY, LearnedBlock, choose_learned
from waymarks.planner.memory_order import order_memories
from waymarks.planner.render import (
    MemoryBlock,
    PinBlock,
    TextBlock,
    render_memory,
    render_pin,
    render_text,
    shows_key,
    wrap_personal,
)

if TYPE_CHECKING:
    from waymarks.planner.team import TeamBlock

PIN_PRIORITY: Final = 950
MEMORY_PRIORITY: Final = 90
PERSONAL_PRIORITY: Final = 88
HISTORY_PRIORITY: Final = 85
SNIPPET_PRIORITY: Final = 80
REQUEST_PRIORITY: Final = 1000  # mandatory, always last in order
_NOT_ALLOWED: Final = "classification {} not allowed for this provider"
_CAPPED: Final = "model limit or the host's cap on added context reached"
#: how a fallback because the pins alone are over a budget begins (Plan.pins_left_out)
PINS_NEED: Final = "pins need"
#: pins whose level and rendering are remembered (per destination)
PIN_MEMO: Final = 4096
#: whole pin sets planned (a few destinations, a few sessions)
PINS_MEMO: Final = 16
_T = TypeVar("_T")


class PinInput(msgspec.Struct, frozen=True):
    block: PinBlock
    created_at: int


class MemoryInput(msgspec.Struct, frozen=True):
    block: MemoryBlock
    created_at: int
    matched: bool  # chosen by recall (False: recent-continuity fallback)


class TextInput(msgspec.Struct, frozen=True):
    """A retrieved earlier turn, a project snippet or a personal index line, and why it
    was offered (a fixed phrase and counts: manifests never hold content). Its level is
    the egress's reading of the block (explicit classification raised by markers)."""

    block: TextBlock
    reason: str

    @property
    def id(self) -> str:
        return self.block.id


def first_admitted(inputs: Iterable[TextInput], egress: Egress | None,
                   limit: int) -> list[TextInput]:
    """The first ``limit`` of ``inputs`` (best first) that ``egress``'s destination may
    receive, and those it may not that were met on the way (at most ``limit`` of them: the
    plan lists them as left out, as before): cut before privacy, passages a provider may
    not receive took the places of those it may (four local-only docs passages left a
    normal one out of the plan). Without an egress, the first ``limit``."""
    return first_of(inputs, limit, None if egress is None
                    else lambda item: item.block.refused(egress)[1] is None)


def first_of(inputs: Iterable[_T], limit: int, admits: Callable[[_T], bool] | None
             ) -> list[_T]:
    """The first ``limit`` of ``inputs`` that ``admits``, and those it does not that were
    met on the way (at most ``limit``); with no ``admits``, the first ``limit``."""
    if admits is None:
        return list(itertools.islice(inputs, limit))
    kept: list[_T] = []
    admitted = refused = 0
    for item in inputs:
        if admits(item):
            kept.append(item)
            admitted += 1
            if admitted == limit:
                break
        elif refused < limit:
            kept.append(item)
            refused += 1
    return kept


class ManifestEntry(msgspec.Struct, frozen=True):
    id: str
    kind: str
    decision: str  # "included" | "excluded"
    reason: str
    scope: str | None = None
    classification: str | None = None
    key: str | None = None
    source_session: str | None = None
    source_entry: str | None = None
    score: float | None = None
    tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "decision": self.decision,
                "reason": self.reason, "scope": self.scope,
                "classification": self.classification, "key": self.key,
                "sourceSession": self.source_session, "sourceEntry": self.source_entry,
                "score": None if self.score is None else round(self.score, 4),
                "tokens": self.tokens}


class Message(msgspec.Struct, frozen=True):
    kind: str  # pins | memory | personal | history | snippets | request
    priority: int
    content: str
    tokens: int
    role: str = "user"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "priority": self.priority, "role": self.role,
                "tokens": self.tokens, "content": self.content}


class Plan(msgspec.Struct, frozen=True):
    messages: tuple[Message, ...]
    manifest: tuple[ManifestEntry, ...]
    fallback: str | None = None
    total_tokens: int = 0
    model_limit: int | None = None
    provider: str = ""
    notes: tuple[str, ...] = ()
    #: the host's own tokens it was given (in ``total_tokens``: after a fallback, all of it)
    fixed_tokens: int = 0

    @property
    def pins_left_out(self) -> bool:
        """Whether it fell back because the pins alone are over a budget (the pin budget,
        or the host's cap on added context): a host tells the person then, their pins did
        not go (a fallback for the model's own limit stays silent: its context is full)."""
        return self.fallback is not None and self.fallback.startswith(PINS_NEED)

    def manifest_json(self, skip: int = 0) -> dict[str, Any]:
        """The manifest as JSON; ``skip``: its first entries left out (saved apart)."""
        return {"provider": self.provider, "fallback": self.fallback,
                "totalTokens": self.total_tokens, "fixedTokens": self.fixed_tokens,
                "modelLimit": self.model_limit,
                "blocks": [{"kind": m.kind, "priority": m.priority, "tokens": m.tokens}
                           for m in self.messages],
                "entries": [e.to_json() for e in self.manifest[skip:]],
                "notes": list(self.notes)}


def build_plan(
    request: str,
    pins: Sequence[PinInput],
    memories: Sequence[MemoryInput],
    *,
    egress: Egress,
    budgets: Budgets = Budgets(),  # noqa: B008 (frozen: immutable)
    history: Sequence[TextInput] = (),
    snippets: Sequence[TextInput] = (),
    personal: Sequence[TextInput] = (),
    model_limit: int | None = None,
    fixed_tokens: int = 0,
    learned: Sequence[LearnedBlock] = (),
    team: Sequence[TeamBlock] = (),
) -> Plan:
    """The ordered synthetic messages for one request, and a manifest of every decision.

    ``egress`` is the destination's: it admits items by level and renders every
    stored text; ``fixed_tokens`` estimates the system prompt and tools the host sends
    anyway.
    """
    provider = egress.provider
    chosen_pins, pin_text, pin_tokens, pin_entries = _pins_part(tuple(pins), egress)
    manifest = list(pin_entries)
    sent = egress.typed(request)  # the one message not from storage: the same rules
    request_tokens = estimate_tokens(sent)
    over = _pins_over(pin_tokens, budgets)
    if over is not None:
        return _fallback(manifest, provider, model_limit, chosen_pins, over, fixed_tokens)
    cap = budgets.max_context_tokens
    mandatory = fixed_tokens + pin_tokens + request_tokens
    if model_limit is not None and mandatory > model_limit:
        return _fallback(manifest, provider, model_limit, chosen_pins,
                         f"system, tools, pins and request need {mandatory} tokens, more "
                         f"than the model limit ({model_limit})", fixed_tokens)
    room = None if model_limit is None else model_limit - mandatory
    if cap is not None:
        room = cap - pin_tokens if room is None else min(room, cap - pin_tokens)
    team_text, room = _team(request, team, egress, room, manifest)
    memory_blocks, room = _choose_memories(order_memories(request, memories), egress,
                                           budgets, room, manifest)
    personal_text, room = _choose_texts(personal, "personal", egress,
                                        budgets.max_personal_tokens, room, manifest, sep="\n",
                                        overhead=_PERSONAL_WRAPPER)
    history_text, room = _choose_texts(history, "history", egress, budgets.max_history_tokens,
                                       room, manifest)
    snippet_text, room = _choose_texts(snippets, "snippet", egress,
                                       budgets.max_snippet_tokens, room, manifest)
    learned_text, room = _learned(learned, pins, memories, egress, budgets, room, manifest)
    messages: list[Message] = []
    if chosen_pins:
        messages.append(Message("pins", PIN_PRIORITY, pin_text, pin_tokens))
    if team_text:
        from waymarks.planner.team import TEAM_PRIORITY

        messages.append(Message("team", TEAM_PRIORITY, team_text, estimate_tokens(team_text)))
    if memory_blocks:
        text = "\n\n".join(memory_blocks)
        messages.append(Message("memory", MEMORY_PRIORITY, text, estimate_tokens(text)))
    if personal_text:
        personal_text = wrap_personal(personal_text)
        messages.append(Message("personal", PERSONAL_PRIORITY, personal_text,
                                estimate_tokens(personal_text)))
    if history_text:
        messages.append(Message("history", HISTORY_PRIORITY, history_text,
                                estimate_tokens(history_text)))
    if snippet_text:
        messages.append(Message("snippets", SNIPPET_PRIORITY, snippet_text,
                                estimate_tokens(snippet_text)))
    if learned_text:
        messages.append(Message("learned", LEARNED_PRIORITY, learned_text,
                                estimate_tokens(learned_text)))
    messages.append(Message("request", REQUEST_PRIORITY, sent, request_tokens))
    if model_limit is not None:
        messages = _within(messages, manifest, model_limit - fixed_tokens)
    if cap is not None:
        messages = _within(messages, manifest, cap + request_tokens, _CAPPED)
        manifest = [msgspec.structs.replace(e, reason=_CAPPED) if e.reason == NO_ROOM else e
                    for e in manifest]
    total = fixed_tokens + sum(m.tokens for m in messages)
    return Plan(tuple(messages), tuple(manifest), None, total, model_limit, provider,
                fixed_tokens=fixed_tokens)


def pins_left_out(pins: Sequence[PinInput], egress: Egress, budgets: Budgets) -> str | None:
    """Why every plan to ``egress`` now falls back for its pins alone (the reason
    :func:`build_plan` gives, :attr:`Plan.pins_left_out`), or ``None``: for a write to
    tell the person when it happens, not the next requests' silence."""
    return _pins_over(_pins_part(tuple(pins), egress)[2], budgets)


def _pins_over(pin_tokens: int, budgets: Budgets) -> str | None:
    if pin_tokens > budgets.max_pinned_tokens:
        return (f"{PINS_NEED} {pin_tokens} tokens, more than the pin budget "
                f"({budgets.max_pinned_tokens}); nothing was split")
    cap = budgets.max_context_tokens
    if cap is not None and pin_tokens > cap:
        return (f"{PINS_NEED} {pin_tokens} tokens, more than the host takes as added "
                f"context ({cap})")
    return None


#: a message's kind -> its items' kind in the manifest
_ITEM_KIND: Final = {"team": "team", "memory": "memory", "personal": "personal",
                     "learned": "learned", "history": "history", "snippets": "snippet"}


def _within(messages: list[Message], manifest: list[ManifestEntry], room: int,
            reason: str = NO_ROOM) -> list[Message]:
    """The messages without the optional blocks, lowest priority first, that the model's
    limit has no room for. Items are chosen against the room one by one; a block's
    wrapper and the separators between its items come on top (a personal entry's wrapper
    alone is ~47 tokens), so a plan could total more than the limit it was given. Pins
    and the request are mandatory, and fit (checked before anything was chosen)."""
    kept = list(messages)
    for message in sorted(messages, key=lambda m: m.priority):
        if sum(m.tokens for m in kept) <= room:
            break
        kind = _ITEM_KIND.get(message.kind)
        if kind is None:
            continue
        kept.remove(message)
        for n, entry in enumerate(manifest):
            if entry.kind == kind and entry.decision == "included":
                manifest[n] = msgspec.structs.replace(
                    entry, decision="excluded", reason=f"{reason} (its block with its "
                    "wrapper and separators did not fit)")
    return kept


def _choose_pins(pins: Sequence[PinInput], egress: Egress,
                 manifest: list[ManifestEntry]) -> tuple[list[PinInput], list[str]]:
    """``pins`` arrive in creation order (the projection's ``seq``: the canonical replay
    order, the same after a full rebuild as incrementally); the sort by ``createdAt`` is
    stable, so pins of the same millisecond keep that order. Their random IDs as the
    tiebreak put two pins created in one millisecond in reverse order half the time."""
    chosen: list[PinInput] = []
    rendered: list[str] = []
    for pin in sorted(pins, key=lambda p: p.created_at):
        level = _pin_level(egress, pin.block.content, pin.block.classification)
        entry = dict(id=pin.block.id, kind="pin", scope=pin.block.scope,
                     classification=level, source_session=pin.block.session_id,
                     source_entry=pin.block.entry_id)
        if not egress.admits(level):
            manifest.append(ManifestEntry(decision="excluded", reason=(
                _NOT_ALLOWED.format(level)),
                **entry))  # type: ignore[arg-type]
            continue
        chosen.append(pin)
        text, tokens = _rendered_pin(pin.block, egress)
        rendered.append(text)
        manifest.append(ManifestEntry(
            decision="included", reason="applicable pin",
            tokens=tokens, **entry))  # type: ignore[arg-type]
    return chosen, rendered


@functools.lru_cache(maxsize=PINS_MEMO)
def _pins_part(pins: tuple[PinInput, ...], egress: Egress
               ) -> tuple[tuple[PinInput, ...], str, int, tuple[ManifestEntry, ...]]:
    """The pins chosen, their text and its tokens, and their manifest entries: the same
    for every request while the pins and the destination stay (a frozen, hashable key)."""
    manifest: list[ManifestEntry] = []
    chosen, rendered = _choose_pins(pins, egress, manifest)
    text = "\n\n".join(rendered)
    return tuple(chosen), text, estimate_tokens(text) if chosen else 0, tuple(manifest)


# The same pins are planned into every request, so their level and rendering are memoized:
# both are pure functions of the (frozen) pin and egress, and keyed by all of them, so an
# edited pin (a new ID) or another destination is worked out afresh.
@functools.lru_cache(maxsize=PIN_MEMO)
def _pin_level(egress: Egress, content: str, classification: str | None) -> str:
    return egress.level(content, classification)


@functools.lru_cache(maxsize=PIN_MEMO)
def _rendered_pin(block: PinBlock, egress: Egress) -> tuple[str, int]:
    text = render_pin(block, egress)
    return text, estimate_tokens(text)


#: what wrapping personal entries costs (begin, guidance and end lines around them)
_PERSONAL_WRAPPER: Final = estimate_tokens(wrap_personal("")) + 1


def _choose_memories(
    memories: Sequence[MemoryInput], egress: Egress, budgets: Budgets, room: int | None,
    manifest: list[ManifestEntry],
) -> tuple[list[str], int | None]:
    chosen: list[str] = []
    used = 0
    for memory in memories:
        block = memory.block
        level = egress.level(block.claim, block.classification)
        # seed 000: a manifest names each item's key. One a person or tool gave, as the
        # model is shown it; not a key derived from the claim (its words: a manifest holds
        # none, issue 14), nor one the rendering leaves out (a credential, a marked span),
        # nor that of a claim the model may not receive: never shown, so never named
        key = block.key if block.given_key and egress.admits(level) and shows_key(
            egress, block.claim, block.given_key) else None
        entry = dict(id=block.id, kind="memory", scope=block.scope, classification=level,
                     key=key, source_session=block.session_id, source_entry=block.entry_id,
                     score=block.score)
        if not egress.admits(level):  # never rendered at all
            manifest.append(ManifestEntry(decision="excluded", **entry,  # type: ignore[arg-type]
                                          reason=_NOT_ALLOWED.format(level)))
            continue
        rendered = render_memory(block, egress)
        tokens = estimate_tokens(rendered)
        cost = tokens + (SEPARATOR if chosen else 0)  # the blank line between blocks
        reason = None
        if len(chosen) >= budgets.max_results:
            reason = f"memory.maxResults ({budgets.max_results}) reached"
        elif used + cost > budgets.max_memory_tokens:
            reason = f"memory token budget ({budgets.max_memory_tokens}) reached"
        elif room is not None and cost > room:
            reason = NO_ROOM
        if reason is not None:
            manifest.append(ManifestEntry(decision="excluded", reason=reason, tokens=tokens,
                                          **entry))  # type: ignore[arg-type]
            continue
        chosen.append(rendered)
        used += cost
        room = None if room is None else room - cost
        manifest.append(ManifestEntry(decision="included", reason=block.reason, tokens=tokens,
                                      **entry))  # type: ignore[arg-type]
    return chosen, room


def _team(request: str, team: Sequence[TeamBlock], egress: Egress, room: int | None,
          manifest: list[ManifestEntry]) -> tuple[str, int | None]:
    """Teammates' shared items right after the person's own pins (planner.team). Most
    plans have none (no team ledger): their module is not imported then."""
    if not team:
        return "", room
    from waymarks.planner.team import choose_team

    included, excluded, room = choose_team(request, team, egress, room)
    # a team item's key is the one its file holds, which a share wrote from the claim's
    # words: named only where the model may read the item (as its rendering shows it)
    for block, level, reason, tokens in excluded:
        key = block.key if egress.admits(level) and shows_key(
            egress, block.text, block.given_key) else None
        manifest.append(ManifestEntry(block.id, "team", "excluded", reason, scope="team",
                                      classification=level, key=key, tokens=tokens))
    for block, _rendered, tokens, level in included:
        # the level the egress decided (the stored value named `normal` an item the
        # default classification made sensitive)
        key = block.key if shows_key(egress, block.text, block.given_key) else None
        manifest.append(ManifestEntry(block.id, "team", "included",
                                      f"shared by {block.contributor}", scope="team",
                                      classification=level, key=key, tokens=tokens))
    return "\n\n".join(rendered for _b, rendered, _t, _l in included), room


def _held(pins: Sequence[PinInput], memories: Sequence[MemoryInput]) -> dict[str, str]:
    """The normalized text of the person's own pins and claims this plan weighs, to their
    IDs (a learned copy of one is not planned beside it)."""
    held = {normalize(m.block.claim): m.block.id for m in memories}
    held.update((normalize(p.block.content), p.block.id) for p in pins)
    return held


def offered_learned(learned: Sequence[LearnedBlock], pins: Sequence[PinInput],
                    memories: Sequence[MemoryInput]
                    ) -> tuple[list[LearnedBlock], dict[str, str]]:
    """The learned claims a plan offers to :func:`choose_learned`, best first, and those
    it leaves out (ID -> reason) because the person holds the same sentence as a pin or
    claim of their own, or one that says otherwise (``overridden_by``: what the person
    confirmed stands; the learned claim went out beside it, or alone where theirs was
    classified above what the destination may receive) (``evolution explain`` reads its
    choice from here too)."""
    held = _held(pins, memories) if learned else {}  # (most plans have none learned)
    offered: list[LearnedBlock] = []
    mine: dict[str, str] = {}
    for block in learned:
        own = held.get(normalize(block.content)) or block.held_by
        if own is not None:
            mine[block.id] = f"you hold this claim ({own[:8]})"
        elif block.overridden_by is not None:
            # an item's ID, a personal entry's whole, or a teammate's shared item's
            theirs = block.overridden_by
            shown = theirs if theirs.startswith("personal:") else theirs[:8]
            mine[block.id] = (f"team item {theirs[5:17]} says otherwise"
                              if theirs.startswith("team:") else
                              f"you hold {shown}, which says otherwise")
        elif block.retired_by is not None:
            mine[block.id] = (f"you took {block.retired_by[:8]}, which says this, out of "
                              "effect")
        else:
            offered.append(block)
    return offered, mine


def _learned(learned: Sequence[LearnedBlock], pins: Sequence[PinInput],
             memories: Sequence[MemoryInput], egress: Egress, budgets: Budgets,
             room: int | None, manifest: list[ManifestEntry]) -> tuple[str, int | None]:
    """Learned claims after confirmed memory, within their own budget (planner.learned).
    One the person holds as a pin or claim of their own is left out: it went into the
    plan twice, and when the person's copy was classified above what the destination may
    receive, the learned copy (at its source's level) went out instead. When the room
    left out anything chosen before (higher priority: the person's, a teammate's, the
    project's docs), no learned claim goes in the room that is left: a short learned
    claim contradicting a long confirmed memory went out in its place."""
    offered, mine = offered_learned(learned, pins, memories)
    manifest.extend(ManifestEntry(b.id, "learned", "excluded", mine[b.id], score=b.score)
                    for b in learned if b.id in mine)
    crowded = room is not None and any(  # only higher-priority items are listed yet
        e.decision == "excluded" and e.reason == NO_ROOM for e in manifest)
    included, excluded, left = choose_learned(offered, egress, budgets.max_learned_tokens,
                                              0 if crowded else room)
    room = room if crowded else left
    for block, level, reason, tokens in excluded:
        manifest.append(ManifestEntry(block.id, "learned", "excluded", reason,
                                      classification=level, score=block.score, tokens=tokens))
    for block, _rendered, tokens, level in included:
        manifest.append(ManifestEntry(block.id, "learned", "included",
                                      "recall matched a learned claim", score=block.score,
                                      classification=level, tokens=tokens))
    return "\n\n".join(rendered for _b, rendered, _t, _l in included), room


def _choose_texts(
    texts: Sequence[TextInput], kind: str, egress: Egress, budget: int, room: int | None,
    manifest: list[ManifestEntry], sep: str = "\n\n", overhead: int = 0,
) -> tuple[str, int | None]:
    """The texts within ``budget`` and ``room``, joined by ``sep``; ``overhead``: what
    the block's wrapper costs once it holds a text (counted against the room)."""
    parts: list[str] = []
    used = 0
    for item in texts:
        reason = None
        level, refused = item.block.refused(egress)
        if refused is not None:
            manifest.append(ManifestEntry(item.id, kind, "excluded", _NOT_ALLOWED.format(
                refused), classification=level))
            continue
        text = render_text(item.block, egress)
        tokens = estimate_tokens(text)
        cost = tokens + (SEPARATOR if parts else 0)
        if used + cost > budget:
            reason = f"{kind} token budget ({budget}) reached"
        elif room is not None and cost + (0 if parts else overhead) > room:
            reason = NO_ROOM
        if reason is not None:
            manifest.append(ManifestEntry(item.id, kind, "excluded", reason,
                                          classification=level, tokens=tokens))
            continue
        room = None if room is None else room - cost - (0 if parts else overhead)
        parts.append(text)
        used += cost
        manifest.append(ManifestEntry(item.id, kind, "included", item.reason,
                                      classification=level, tokens=tokens))
    return sep.join(parts), room


def _fallback(manifest: list[ManifestEntry], provider: str, model_limit: int | None,
              pins: Sequence[PinInput], reason: str, fixed_tokens: int) -> Plan:
    marked = [
        ManifestEntry(e.id, e.kind, "excluded", f"planner fell back: {reason}", e.scope,
                      e.classification, e.key, e.source_session, e.source_entry, e.score,
                      e.tokens) if e.decision == "included" else e
        for e in manifest
    ]
    # it added nothing: its total is the host's own part (it said 0 under a fixed part
    # of 2000, which `tokens` gave as the total)
    return Plan((), tuple(marked), reason, fixed_tokens, model_limit, provider,
                fixed_tokens=fixed_tokens)
