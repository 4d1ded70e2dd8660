"""The plan use case: what to add to one model request, and a manifest of why.

Pins that apply on the active branch are mandatory; memory comes from the recall engine
(only claims the request is about); when nothing matches, at most three recent explicit
claims give continuity. Everything passes the provider's privacy policy first. The last
manifest is kept in the projection database for ``manifest``/``included``/``excluded``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from waymarks.core.egress import Egress, made_id
from waymarks.core.privacy import Classification, highest
from waymarks.core.provider_ids import provider_id_problem
from waymarks.core.records import replace
from waymarks.core.text import echoed
from waymarks.service.config import Settings
from waymarks.service.outcomes import ServiceError
from waymarks.service.recovery import recovering
from waymarks.service.team_here import team_blocks_here as _team_blocks
from waymarks.service.views import ItemView

if TYPE_CHECKING:
    # the planner is imported where a plan is made, not here: every request needs
    # egress_for, a one-shot recall never plans
    from waymarks.planner.learned import LearnedBlock
    from waymarks.planner.render import MemoryBlock, TextBlock
    from waymarks.planner.select import ManifestEntry, MemoryInput
    from waymarks.planner.select import Plan as Plan  # re-exported for the layers above
    from waymarks.planner.select import TextInput as TextInput
    from waymarks.planner.team import TeamBlock
    from waymarks.recall.scoring import Candidate
    from waymarks.service.app import Waymarks
    from waymarks.service.own_claims import OwnClaims

CONTINUITY_ITEMS = 3

class TextSource(Protocol):
    """Where retrieved context comes from: earlier turns compaction removed from the live
    context ("historical retrieval", priority 85) or project snippets (priority 80, filled
    by the engineering-docs work). Each returns its candidates for one request, best first;
    a source that offers only its best few counts those ``egress``'s destination may
    receive (:func:`first_admitted`)."""

    def candidates(self, app: Waymarks, prompt: str,
                   egress: Egress | None = None) -> Sequence[TextInput]: ...


class NoText:
    """The empty source: nothing to retrieve (the default for both kinds until a host or
    the engineering-docs source provides one)."""

    def candidates(self, app: Waymarks, prompt: str,
                   egress: Egress | None = None) -> Sequence[TextInput]:
        return ()


NO_TEXT = NoText()


def doc_snippet(source: str, status: str | None, text: str,
                levels: frozenset[Classification], reason: str) -> TextInput:
    """A passage of project docs as the planner takes it (rendered as quoted data);
    ``levels``: every level of the spans around and within it in its file, and its file's
    highest (it goes only where each may go; its highest is its classification)."""
    from waymarks.planner.render import TextBlock
    from waymarks.planner.select import TextInput

    return TextInput(TextBlock("doc", source, text, source, status, highest(*levels),
                               levels), reason)


def first_admitted(inputs: Iterable[TextInput], egress: Egress | None,
                   limit: int) -> list[TextInput]:
    """:func:`waymarks.planner.select.first_admitted`, for the sources above the service
    (the planner is imported where a plan is made, not with this module)."""
    from waymarks.planner.select import first_admitted as first

    return first(inputs, egress, limit)


def personal_line(slug: str, name: str, description: str,
                  classification: str | None) -> TextInput:
    """One line of the personal memory index as the planner takes it."""
    from waymarks.planner.render import TextBlock
    from waymarks.planner.select import TextInput

    line = f"{name} — {description}" if description else name  # no description: the name
    return TextInput(TextBlock("personal", f"personal:{slug}", line,
                               slug, None, classification), "personal memory index")


def settings_for(app: Waymarks) -> Settings:
    return app.settings()


def destination(settings: Settings, provider: str | None) -> str:
    """The provider text goes to: the one named, else the configured default. A blank name
    names none and is refused (it used to get the default policy without a word), as is
    one holding a control, bidi or zero-width character (``x\\x1b[2J`` was planned for)."""
    if provider is None:
        return settings.default_provider
    if not provider.strip():
        raise ServiceError("invalid_argument", "an empty provider ID names no provider: name "
                           "one (e.g. --provider ollama), or leave it out for the configured "
                           "defaultProvider")
    if (problem := provider_id_problem(provider)) is not None:  # core/provider_ids.py
        raise ServiceError("invalid_argument", f"the provider ID '{echoed(provider)}' "
                           f"{problem}; name the provider as [privacy] spells it (e.g. "
                           "--provider ollama)")
    return provider


def egress_for(app: Waymarks, provider: str | None = None,
               settings: Settings | None = None, *, history: bool = False) -> Egress:
    """The egress for ``provider`` (when none is named: the model of the host this
    process serves, :attr:`Waymarks.host_provider`, else the configured default):
    every adapter that sends stored text toward a model gets its egress here. With
    ``history``, for text that stays in the host's conversation and goes to every later
    model as well (:meth:`ProviderPolicy.for_history`)."""
    settings = settings or settings_for(app)
    policy = settings.policy.for_history() if history else settings.policy
    return Egress.to(policy, host_destination(app, provider, settings))


def admitted(app: Waymarks, candidates: list[Candidate], egress: Egress,
             known: Mapping[str, str | None]) -> list[Candidate]:
    """The recall candidates the destination may see (explicit classification raised by
    markers), each with its explicit classification for rendering. ``known``: the
    classifications read with the candidates; the others (the semantic side's) are
    read here."""
    if not candidates:
        return candidates
    missing = [c.id for c in candidates if c.id not in known]
    explicit = {**known, **app.projection.classifications(missing)} if missing else known
    kept = []
    memo, default = _LEVELS, egress.default_level
    for c in candidates:
        level = explicit.get(c.id)
        key = (c.id, level, default)
        found = memo.get(key)
        if found is None or found[0] != c.text:
            if len(memo) >= LEVEL_MEMO:
                memo.clear()
            found = memo[key] = (c.text, egress.level(c.text, level))
        if egress.admits(found[1]):
            kept.append(c if c.classification == level else replace(c, classification=level))
    return kept


#: an item's level by (ID, explicit classification, default level), with the text it was
#: read from (a plan admits ~100 candidates, and a long-lived process sees the same ones
#: on every prompt: their classification was a sixth of a plan at 1k claims)
LEVEL_MEMO: Final = 16_384
_LEVELS: Final[dict[tuple[str, str | None, str], tuple[str, str]]] = {}


def admission(app: Waymarks, candidates: list[Candidate], egress: Egress,
              known: Mapping[str, str | None], withheld: bool = False
              ) -> tuple[list[Candidate], frozenset[str]]:
    """The candidates to score for ``egress``'s destination, and the IDs of those among
    them it may not see: :func:`admitted` and none; ``withheld`` (a plan, which records
    them in its manifest as left out), every candidate, and the IDs of the withheld ones.
    Recall judges the others among themselves (a withheld claim that outranked one the
    destination may see cut it from the plan, while recall for it gave it); a withheld
    one as if it were allowed (:func:`~waymarks.recall.scoring.score_all`)."""
    kept = admitted(app, candidates, egress, known)
    if not withheld or len(kept) == len(candidates):
        return kept, frozenset()
    ids = {c.id for c in kept}
    left = [c for c in candidates if c.id not in ids]
    return [*kept, *left], frozenset(c.id for c in left)


def host_destination(app: Waymarks, provider: str | None, settings: Settings) -> str:
    """The provider text goes to (:func:`egress_for`): the one named, else the host's
    model's; a host whose model is unknown (:data:`UNKNOWN_HOST_MODELS`) sends to the
    configured default only when that is remote, by the home's configuration and by the
    one in force (:attr:`Settings.home_default_local`)."""
    host = app.host_provider
    if host in UNKNOWN_HOST_MODELS and not settings.home_default_local \
            and not settings.policy.is_local(settings.default_provider):
        host = None  # an unknown model: the default provider, a remote one (the home's
        # say: a project's file may not make a local default remote here)
    return destination(settings, provider if provider is not None else host)


#: the provider the text a Claude Code hook or its MCP server adds goes to (Claude Code's
#: model; a person who runs it against a local model lists it in ``localProviders``)
CLAUDE_CODE_PROVIDER = "anthropic"
#: the provider of a plain MCP server's client's model: the default provider, unless that
#: is a local one (the client's model is not known to be local: a local default let
#: local-only text out), then this one; decided per request, as the settings say then
MCP_CLIENT_PROVIDER = "mcp-client"
#: the same for Pi while it has named no model (its ``provider`` absent: a local default
#: sent local-only text, unredacted credentials, to whatever model Pi then used)
PI_UNKNOWN_PROVIDER = "pi-model"
#: and for a prompt the person pastes into an agent (``notes promote``): a local default
#: put local-only lessons into it
PASTED_PROVIDER = "pasted"
UNKNOWN_HOST_MODELS = frozenset({MCP_CLIENT_PROVIDER, PI_UNKNOWN_PROVIDER, PASTED_PROVIDER})


#: manifest entries whose ID may be made of their text (a docs passage: its path and
#: heading; a personal entry: its slug; a team item: whatever the teammate's file says),
#: not an opaque one
_NAMED_BY_TEXT = frozenset({"snippet", "personal", "team"})


def _named(home: Path, entry: ManifestEntry) -> ManifestEntry:
    """``entry`` as the manifest and the log name it ("IDs, classifications and reasons,
    never text"): an ID that holds a credential, a marker or a control character (a pin's
    or a claim's from a hand-edited ledger line, a heading holding a token), or one made
    of a local-only item's text, is its digest (a local-only entry's slug, made of its
    words, went into the manifest while the log had its digest; a ledger ID holding a
    token or a local-only span into both), keyed by this home's secret
    (:func:`.name_key.name_key`): without a key, anyone reading the log could test
    guesses of the words offline. An ID Waymarks made costs one pattern match."""
    ident = entry.id
    by_text = entry.kind in _NAMED_BY_TEXT
    if made_id(ident) and not (by_text and entry.classification == "local-only"):
        # the common case, as it is: no credential rule matches an ID of that shape, nor
        # does it hold a marker (a team item's, as a share writes it, was scanned for
        # both, every item of 20k on every plan)
        return entry
    from waymarks.core.privacy import has_markers
    from waymarks.core.secrets import find_secrets

    if (by_text and entry.classification == "local-only") or not ident.isprintable() \
            or has_markers(ident) or find_secrets(ident):
        from waymarks.core.digests import blake2b
        from waymarks.service.name_key import name_key

        key = name_key(home)
        if key is None:  # a home that cannot keep a key: named by kind alone
            return replace(entry, id=f"{entry.kind}:withheld")
        digest = blake2b(ident.encode("utf-8", "surrogatepass"), digest_size=8,
                         key=key).hexdigest()
        return replace(entry, id=f"{entry.kind}:digest-{digest}")
    return entry


def history_turns() -> int:
    """How many earlier turns recall plans a request with (``MAX_HISTORY_TURNS``): what
    a host reads its conversation back for (hosts do not import the recall package)."""
    from waymarks.recall.plan import MAX_HISTORY_TURNS

    return MAX_HISTORY_TURNS


def prompt_read(prompt: str) -> tuple[str, int]:
    """What a host's plan reads of ``prompt``, and the tokens of the rest. Recall reads a
    prompt's first ``MAX_PROMPT_BYTES`` (:mod:`waymarks.recall.plan`); the plan's other
    sources (docs, named keys, learned memory, the order of memories) read it whole: a
    4 MiB prompt took seconds to plan (past the Claude Code client's wait for its
    helper, which then planned it again in its own process). The rest still takes the
    model's room: the caller adds its tokens to what is fixed."""
    from waymarks.core.text import clip_utf8
    from waymarks.core.tokens import estimate_tokens
    from waymarks.recall.plan import MAX_PROMPT_BYTES

    read = clip_utf8(prompt, MAX_PROMPT_BYTES)
    return read, 0 if read == prompt else estimate_tokens(prompt) - estimate_tokens(read)


@recovering
def plan_request(
    app: Waymarks, prompt: str, *, provider: str | None = None,
    model_limit: int | None = None, history: Sequence[str] = (), fixed_tokens: int = 0,
    retrieved: TextSource | None = None, snippets: TextSource = NO_TEXT,
    personal: TextSource = NO_TEXT, context_cap: int | None = None,
) -> Plan:
    """``snippets``: project snippets (engineering docs); ``personal``: the lines of the
    person's memory index. Adapters pass the sources they have (``waymarks.personal``).
    ``context_cap``: the most added context the host takes (tokens, pins included; see
    :attr:`~waymarks.planner.budgets.Budgets.max_context_tokens`).
    One request: everything is read once (:meth:`Waymarks.begin`). A prompt Waymarks
    started as the person's turn (Pi's ``/remember`` and ``/notes promote``) is no turn of
    the conversation: in ``history`` it was the earlier subject, so a follow-up after it
    ("and the port?") recalled nothing."""
    from waymarks.core.own_prompts import is_own_prompt

    history = [turn for turn in history if not is_own_prompt(turn)]
    with app.begin():
        return _plan(app, prompt, provider=provider, model_limit=model_limit,
                     history=history, fixed_tokens=fixed_tokens, retrieved=retrieved,
                     snippets=snippets, personal=personal, context_cap=context_cap)


def _plan(app: Waymarks, prompt: str, *, provider: str | None, model_limit: int | None,
          history: Sequence[str], fixed_tokens: int, retrieved: TextSource | None,
          snippets: TextSource, personal: TextSource, context_cap: int | None) -> Plan:
    from waymarks.planner.select import build_plan
    from waymarks.service.history import COMPACTED_TURNS  # (not on a recall's path)
    from waymarks.service.logs import log_event

    settings = settings_for(app)
    egress = egress_for(app, provider, settings)
    destination = egress.provider
    pins = app.pin_inputs.inputs(app.items("pin"))
    memories = _memories(app, prompt, history, provider, egress)
    notes: list[str] = []  # a damaged evolution ledger: planned without learned memory
    budgets = settings.budgets if context_cap is None else replace(
        settings.budgets, max_context_tokens=context_cap)
    lines = personal.candidates(app, prompt, egress)
    team = _team_blocks(app)
    plan = build_plan(prompt, pins, memories, egress=egress, budgets=budgets,
                      model_limit=model_limit,
                      fixed_tokens=fixed_tokens,
                      history=(retrieved or COMPACTED_TURNS).candidates(app, prompt, egress),
                      snippets=snippets.candidates(app, prompt, egress),
                      personal=lines,
                      learned=_learned(app, prompt, history, egress, notes,
                                       [line.block for line in lines], team),
                      team=team)
    plan = replace(plan, manifest=tuple(_named(app.home, e) for e in plan.manifest),
                   notes=(*plan.notes, *notes))
    _remember_learned_choice(plan.manifest)  # `evolution explain`: what this plan chose
    from waymarks.service.manifest_saving import remember_manifest

    remember_manifest(app, plan)
    session = app.current_session()
    log_event(app.home, app.clock.now(), "plan",
              session=session.session_id if session else None, provider=destination,
              included=[e.id for e in plan.manifest if e.decision == "included"],
              excluded=[{"id": e.id, "reason": e.reason} for e in plan.manifest
                        if e.decision == "excluded"],
              fallback=plan.fallback, tokens=plan.total_tokens)
    return plan


def _remember_learned_choice(manifest: Sequence[ManifestEntry]) -> None:
    """Note the plan's choice among the learned claims this process recalled last
    (:func:`~waymarks.service.evolution_recall.remember_plan`). A process that never
    imported that module never recalled one, and has nothing to note: a prompt's hook on
    a home that never learned anything does not import it (~0.4 ms)."""
    recall = sys.modules.get("waymarks.service.evolution_recall")
    if recall is not None:
        recall.remember_plan(manifest)


def _learned(app: Waymarks, prompt: str, history: Sequence[str], egress: Egress,
             notes: list[str], personal: Sequence[TextBlock] = (),
             team: Sequence[TeamBlock] = ()) -> list[LearnedBlock]:
    """The plan's learned claims: none where learning is off for this directory (the
    home's ``learn off``, or the project's ``[evolution] learn = false``). Learning is a
    mode the person turns on; turned off, it stopped capture and calls while every plan
    (the Claude Code hook's, Pi's, ``waymarks plan``) went on injecting what it had
    learned. What was learned stays stored, listed and recallable on request."""
    if not _learning(app):
        return []
    from waymarks.service.evolution_recall import (
        HOOK_CORPUS_CLAIMS,
        HOOK_FOLD_BYTES,
        learned_blocks,
    )
    from waymarks.service.own_claims import OwnClaims
    from waymarks.store.projection import BUSY_TIMEOUT_MS

    # the person's own pin or claim in effect here that a learned claim's text contradicts
    # (by a local write's signature rules: the same subject and attribute with another
    # value, the opposite state), and their claim saying it that they took out of effect
    # (invalid, expired, superseded). Such a learned claim is not planned: it went in
    # beside the confirmed one, or alone, as the answer, when that one was classified
    # above what the destination may receive; or in the place of the one they retired
    own = OwnClaims(app)
    contradicted = _contradicted(own, personal, team)
    # a caller that waits briefly (a hook: Claude Code kills it at 10 s) leaves a long
    # fold to a process with the time (the helper), rather than die with it uncommitted
    hurried = app.busy_timeout_ms < BUSY_TIMEOUT_MS
    return learned_blocks(app.home, prompt, history, egress, notes=notes,
                          contradicted=contradicted, retired=own.retired,
                          said=own.said, fold_limit=HOOK_FOLD_BYTES if hurried else None,
                          # (a process that keeps no corpus builds none it would not keep)
                          build_limit=HOOK_CORPUS_CLAIMS if hurried and
                          not app.keep_recall_index else None)


def _contradicted(own: OwnClaims, personal: Sequence[TextBlock],
                  team: Sequence[TeamBlock]) -> Callable[[str], str | None]:
    """What a learned claim's text contradicts of the person's: a pin or claim of theirs,
    or a line of their personal memory index the plan offers, theirs as much as a pin (a
    learned "port 8080" went out beside their entry saying 5432); or of what their team
    shared, which a person confirmed too (``team:ID``)."""
    from waymarks.service.own_claims import OwnSignatures, TeamSaid

    index, shared = OwnSignatures(personal), TeamSaid(team)
    return lambda text: (own.contradicted(text) or index.contradicted(text)
                         or shared.contradicted(text))


def _learning(app: Waymarks) -> bool:
    """Whether a plan in ``app``'s directory injects learned claims (a home that never
    learned anything costs the ledger's ``stat``, not a read of the configuration)."""
    from waymarks.service.learning_ledger import has_ledger

    if not has_ledger(app.home):
        return False
    from waymarks.service.learning import learning_enabled

    return learning_enabled(app.home, app.cwd)


@recovering
def explain_injection(app: Waymarks, query: str,
                      personal: TextSource = NO_TEXT) -> dict[str, Any]:
    """``evolution explain QUERY``: learned injection for ``query`` previewed for this
    process's destination, ``selected`` being what a plan includes: a learned claim whose
    sentence the plan's pins or recalled claims hold is left out (before, it was named
    selected), then the learned budget applies."""
    from waymarks.service.evolution_inspect import explain
    from waymarks.service.own_claims import OwnClaims

    with app.begin():
        settings = settings_for(app)
        egress = egress_for(app, settings=settings)
        own = OwnClaims(app)
        lines = [line.block for line in personal.candidates(app, query, egress)]
        return explain(app.home, query, egress=egress,
                       held=(app.pin_inputs.inputs(app.items("pin")),
                             _memories(app, query, (), None, egress)),
                       budget=settings.budgets.max_learned_tokens,
                       learning=_learning(app),
                       contradicted=_contradicted(own, lines, _team_blocks(app)),
                       retired=own.retired, said=own.said)


#: what the person can do when the pins alone are over the pin budget (a write's note,
#: a host's warning: one wording)
PINS_FIX = ("unpin one (`waymarks pins` lists them) or raise [context] maxPinnedTokens in "
            "the home's config.toml (a project's .waymarks/config.toml may only lower it)")


@recovering
def pins_left_out(app: Waymarks) -> str | None:
    """Why every plan to this process's destination (:func:`egress_for`) now adds nothing:
    the pins that apply need more than the pin budget (the planner's own check and
    estimate, so the two agree); ``None`` while they fit."""
    from waymarks.planner.select import pins_left_out

    settings = settings_for(app)
    return pins_left_out(app.pin_inputs.inputs(app.items("pin")),
                         egress_for(app, settings=settings), settings.budgets)


@recovering
def last_manifest(app: Waymarks) -> dict[str, Any] | None:
    """The last plan's manifest saved; on a full disk the note says it is the last one saved
    before the disk filled (a plan since saved none: it passed for theirs)."""
    manifest = app.projection.last_manifest()
    if app.read_only:
        from waymarks.service.projection_fill import stale_too

        stale_too(app, "the manifest shown is the last plan saved before the disk filled; a "
                  "plan made since is not in it")
    return manifest


def _memories(app: Waymarks, prompt: str, history: Sequence[str],
              provider: str | None, egress: Egress) -> list[MemoryInput]:
    from waymarks.planner.select import MemoryInput

    # the planner applies the privacy policy itself, so that a prohibited memory is still
    # judged and then recorded by ID in the manifest rather than silently missing from it;
    # the claims the provider may receive are judged among themselves (a withheld claim
    # that outranked one cut it from the plan, while recall gave it)
    result = app.recall(prompt, history, provider=provider, eligible_only=True,
                        withheld=True)
    wanted = [s.candidate.id for s in result.eligible]
    views = {v.id: v for v in app.items("memory", ids=wanted) if v.applies} if wanted else {}
    matched = [
        MemoryInput(_memory_block(views[s.candidate.id], s.rank,
                                  f"recall matched {len(s.matched)} features"),
                    views[s.candidate.id].created_at, True)
        for s in result.eligible if s.candidate.id in views
    ]
    matched += _keyed(app, prompt, exclude=views)
    if matched:
        return matched
    # only explicit items exist so far; model-derived claims will never get this fallback.
    # The three most recent the destination may receive (with those it may not met on the
    # way, for the manifest): cut first, three local-only claims left out a normal one
    from waymarks.planner.select import first_of

    recent = [v for v in app.items("memory", recent_active=CONTINUITY_ITEMS * 4,
                                   may_apply=True) if v.applies]
    return first_of((MemoryInput(_memory_block(v, 0.0, "recent continuity (no memory matched)"),
                                 v.created_at, False) for v in recent), CONTINUITY_ITEMS,
                    lambda m: egress.admits(egress.level(m.block.claim, m.block.classification)))


def _keyed(app: Waymarks, prompt: str, exclude: dict[str, ItemView]) -> list[MemoryInput]:
    """Active claims whose explicit key (``--key``) the request names that recall did not
    offer: the planner puts such a claim first, but one whose words are not the request's
    (``--key release-pipeline`` on "Releases go through GitHub Actions.") fell under
    recall's relative cutoff beside one that repeats the words, and never reached the
    plan. A key derived from a claim's own words is left to recall, which reads them."""
    from waymarks.planner.memory_order import key_named, request_terms
    from waymarks.planner.select import MemoryInput

    session = app.current_session()  # none: the project's claims (as for `items`)
    session_id = session.session_id if session else ""
    # (one probe: a store without `--key` holds no claim a request could name by its key,
    # and its words are neither slugged nor looked up)
    if not app.projection.has_given_keys("memory", session_id, app.cwd):
        return []
    keys = named_keys(prompt)
    if not keys:
        return []
    ids = [i for i in app.projection.ids_with_keys("memory", session_id, app.cwd, keys,
                                                   active_only=True)
           if i not in exclude]
    if not ids:  # (the request's words are read only for a claim found: the planner's
        return []  # order reads them too, and a store without `--key` finds none)
    terms = request_terms(prompt)
    return [MemoryInput(_memory_block(v, 0.0, "the request names its key"), v.created_at,
                        True)
            for v in app.items("memory", ids=ids)
            if v.applies and v.status == "active" and v.given_key
            and key_named(v.key, terms)]


#: how many word runs of a request are looked up as keys (a long prompt's first ones)
NAMED_KEY_RUNS = 256
#: the longest key looked up, in words (an explicit key is a short name)
NAMED_KEY_WORDS = 4


#: what ends or opens a word in a sentence, not a key (``pipeline.``, ``(release)``)
_EDGES = ".,;:!?()[]{}\"'`<>"


def named_keys(prompt: str) -> list[str]:
    """The keys a request could name: each run of up to four of its words, slugged as a
    key is (``release pipeline``, ``release-pipeline`` alike), at most 256."""
    from waymarks.core.text import normalize_key

    # word by word (the whole prompt slugged at once kept a sentence's last dot on its
    # word and stopped at a key's 160 characters), each slugged as a key's words are: a
    # run of them joined by dashes is that run's key
    words = [w for token in prompt.split()
             for w in normalize_key(token.strip(_EDGES)).split("-") if w]
    found: dict[str, None] = {}
    for start in range(len(words)):
        for end in range(start + 1, min(len(words), start + NAMED_KEY_WORDS) + 1):
            found["-".join(words[start:end])] = None
            if len(found) >= NAMED_KEY_RUNS:
                return list(found)
    return list(found)


def _memory_block(view: ItemView, score: float, reason: str) -> MemoryBlock:
    from waymarks.planner.render import MemoryBlock

    return MemoryBlock(view.id, view.scope, view.text, view.session_id, view.entry_id, score,
                       reason, view.key, view.supersedes, view.conflicts_with,
                       view.source_entry_ids, view.classification, view.given_key)
