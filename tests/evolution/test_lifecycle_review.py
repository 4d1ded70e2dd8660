"""Defects a review of learned claims' lifecycle (correct, forget, undo, listings)
reproduced with the real CLI; each test failed before its fix."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from waymarks.core.model_port import ModelReply
from waymarks.service.evolution import Evolution
from waymarks.service.learning import set_learning

AT = "2030-01-01T00:00:00.000Z"
SECRET_HOST = "db7.internal.corp"


def _learn_sensitive(home: Path, origin: Path) -> str:
    """A claim learned from a ``sensitive`` span of what the person said."""
    text = (f"Deploy staging with Kamal. [ds4:sensitive]The staging database host is "
            f"{SECRET_HOST}.[/ds4:sensitive]")
    content = f"The staging database host is {SECRET_HOST}"
    with Evolution(home) as evo:
        src = evo.capture(str(origin), "statement", text, session="s-a", key=text)
        assert src is not None
        reply = json.dumps({"claims": [{"kind": "fact", "content": content,
                                        "searchTerms": ["staging", "database", "host"]}]})
        assert evo.apply(src.source_id, ModelReply(reply, "f", "m"), AT).code == "applied"
        return next(c.id for c in evo.claims(["provisional"]) if c.content == content)


def _remote_sees_only_normal(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        '[privacy]\ndefaultProvider = "remote"\nremoteDefaultAllowed = ["normal"]\n')


def _learned_block(cli: Callable[..., dict], prompt: str) -> str:
    """The learned block of a plan where learning is on (off, a plan injects none: what
    a test finds missing would be missing for that reason alone)."""
    cli("learn", "on")
    plan = cli("plan", "--", prompt)
    return "\n".join(m["content"] for m in plan["messages"] if m["kind"] == "learned")


def test_a_correction_keeps_the_level_of_the_claim_it_corrects(
        cli: Callable[..., dict], home: Path, tmp_path: Path) -> None:
    """The corrected claim's source is the person (``manual:…``), which has no captured
    source row, so its level fell to the default: a claim learned from sensitive text,
    once corrected, went to a provider that may see only ``normal`` (plan, recall,
    ``learned_memory``'s show)."""
    _remote_sees_only_normal(home)
    claim = _learn_sensitive(home, tmp_path / "a")
    prompt = "What is the staging database host?"
    assert "db7.internal" not in _learned_block(cli, prompt)
    corrected = cli("evolution", "correct", claim, "--",
                    "The staging database host is db8.internal.corp")
    new = corrected["correctedBy"]
    assert "db8.internal" not in _learned_block(cli, prompt)
    with Evolution(home) as evo:
        evo.sync()
        row = evo.store.view.claim(new)
        assert row is not None and row.source_id.startswith("manual:")
        assert evo.store.source_levels()[row.source_id] == "sensitive"
    again = cli("evolution", "correct", new, "--",
                "The staging database host is db9.internal.corp")
    assert "db9.internal" not in _learned_block(cli, prompt)
    from waymarks.service.app import Waymarks
    from waymarks.service.evolution_inspect import show
    from waymarks.service.planning import egress_for

    shown = show(home, again["correctedBy"], egress=egress_for(Waymarks(home, cwd=str(tmp_path))))
    assert shown is not None and "db9.internal" not in json.dumps(shown)


def _apply(home: Path, origin: Path, said: str, claims: list[dict[str, object]]) -> str:
    set_learning(home, True)  # (where learning is off, no plan injects a learned claim)
    with Evolution(home) as evo:
        src = evo.capture(str(origin), "statement", said, session=f"s-{said[:8]}", key=said)
        assert src is not None
        return evo.apply(src.source_id, ModelReply(json.dumps({"claims": claims}), "f", "m"),
                         AT).code


def test_a_reply_repeating_forgotten_text_keeps_its_other_claims(home: Path,
                                                                 tmp_path: Path) -> None:
    """Forgotten text is never shown to the model, so a later reply may say it again:
    that refused the whole reply (its new claims lost) and paused the source, again on
    every ``waymarks evolve SOURCE``. A correction forgets the old text too, so every
    correction set the same trap. Now only the forgotten claim is refused."""
    origin = tmp_path / "a"
    kamal = {"kind": "decision", "content": "Deployments use Kamal", "searchTerms": ["kamal"]}
    assert _apply(home, origin, "Remember: we deploy with Kamal", [kamal]) == "applied"
    with Evolution(home) as evo:
        [claim] = evo.claims(["provisional"])
        assert evo.forget(claim.id)
    port = {"kind": "fact", "content": "The staging port is 8443", "searchTerms": ["port"]}
    code = _apply(home, origin, "Kamal again; staging listens on 8443", [kamal, port])
    assert code == "applied"
    with Evolution(home) as evo:
        assert [c.content for c in evo.claims(["provisional"])] == ["The staging port is 8443"]
        assert all(s.settled is not None for s in evo.store.sources())


def test_learn_list_does_not_say_nothing_was_learned_beside_forgotten_claims(
        cli: Callable[..., dict], home: Path, tmp_path: Path,
        capsys: object) -> None:
    """With every learned claim forgotten or quarantined, ``learn list`` printed "Nothing
    learned yet." while ``--all`` listed them and ``learn status`` counted them."""
    from waymarks.cli.main import main

    claim = _learn_sensitive(home, tmp_path / "a")
    with Evolution(home) as evo:
        assert evo.forget(claim)
    assert cli("learn", "list")["claims"] == []
    assert main(["learn", "list"]) == 0
    shown = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "Nothing learned yet" not in shown and "1 other(s)" in shown, shown


def test_learning_shows_a_paused_source_as_paused(home: Path, tmp_path: Path) -> None:
    """``evolution learning`` showed a source the queue had paused (``write_rejected``,
    never run again on its own) as ``pending``, as if it were waiting its turn."""
    from waymarks.core.model_port import SourceRef
    from waymarks.service.evolution_inspect import learning
    from waymarks.service.recovery import open_job_store

    with Evolution(home) as evo:
        src = evo.capture(str(tmp_path / "a"), "statement", "Remember: ports are 8443",
                          session="s-b", key="ports")
        assert src is not None
    store = open_job_store(home, datetime.now(UTC))
    try:
        store.add_jobs([SourceRef(src.source_id, str(tmp_path / "a"), "normal", AT)], 1)
        lease = store.lease(src.source_id, "test", 2, 10_000, forced=True)
        assert lease is not None
        assert store.fail(lease, "write_rejected", 3, output=False, pause=True,
                          retry_at=lambda n: 4)
    finally:
        store.close()
    [shown] = [s for s in learning(home)["sources"] if s["sourceId"] == src.source_id]
    assert shown["decision"] == "paused"


def test_a_correction_undone_can_be_made_again(home: Path, tmp_path: Path) -> None:
    """Undoing a correction leaves its claim a tombstone (forgotten); once the corrected
    claim changed again (feedback), the same correction was refused as ``duplicate``,
    with advice to forget the person's original claim, and could never be made."""
    from waymarks.service import evolution_edits as edits
    from waymarks.service.evolution_feedback import feedback

    origin = tmp_path / "a"
    kamal = {"kind": "decision", "content": "Deployments use Kamal", "searchTerms": ["kamal"]}
    assert _apply(home, origin, "Remember: we deploy with Kamal", [kamal]) == "applied"
    with Evolution(home) as evo:
        [claim] = evo.claims(["provisional"])
        fixed = edits.correct(evo, claim.id, "Deployments use Kamal 2")
        assert fixed.ok and fixed.event is not None, fixed
        assert edits.undo(evo, fixed.event).ok
        assert feedback(evo, claim.id, "useful").ok
        again = edits.correct(evo, claim.id, "Deployments use Kamal 2")
        assert again.ok, again
        states = {c.content: c.state for c in evo.claims()}
    assert states == {"Deployments use Kamal": "superseded",
                      "Deployments use Kamal 2": "provisional"}
    from waymarks.service.evolution import rebuild_evolution

    assert rebuild_evolution(home) is not None
    with Evolution(home) as evo:
        assert {c.content: c.state for c in evo.claims()} == states


def test_two_corrections_in_one_millisecond_keep_the_stricter_level(
        home: Path, tmp_path: Path) -> None:
    """A correction's source is ``manual:<time>``: two made in one millisecond (an
    import's times, two machines) share it, and the level the last one read gave both,
    so a correction of a sensitive claim could go out as normal."""
    from waymarks.service import evolution_edits as edits

    class Still:
        def now(self) -> datetime:
            return datetime(2031, 1, 1, tzinfo=UTC)

    secret = _learn_sensitive(home, tmp_path / "a")
    plain = {"kind": "fact", "content": "The staging port is 8443", "searchTerms": ["port"]}
    assert _apply(home, tmp_path / "a", "Remember: staging port 8443", [plain]) == "applied"
    with Evolution(home) as evo:
        other = next(c.id for c in evo.claims(["provisional"]) if "8443" in c.content)
    with Evolution(home, clock=Still()) as evo:  # type: ignore[arg-type]
        first = edits.correct(evo, secret, "The staging database host is db8.internal.corp")
        second = edits.correct(evo, other, "The staging port is 8444")
        assert first.ok and second.ok
        row = evo.store.view.claim(first.data["correctedBy"])
        assert row is not None
        assert evo.store.source_levels()[row.source_id] == "sensitive"


def test_a_call_told_to_wait_is_not_said_to_be_unattempted(
        cli: Callable[..., dict], home: Path, monkeypatch: object) -> None:
    """A 429 answer: the call was made (``calls: 1``) and the source waits out the
    provider's cooldown, but the message said it "was not attempted"."""
    from waymarks.service import evolution_wiring
    from waymarks.service.evolution_queue import Attempt

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[evolution]\nlearn = true\n")

    class Queue:
        def run_once(self, source: object) -> Attempt:
            return Attempt("waiting", "src-1", "cooldown", "openai", "m1", calls=1)

        def close(self) -> None:
            pass

    monkeypatch.setattr(evolution_wiring, "open_for",  # type: ignore[attr-defined]
                        lambda *a, **k: Queue())
    data = cli("evolve", expect=1)
    assert data["calls"] == 1 and "not attempted" not in data["message"], data
    assert data["message"].startswith("src-1 was attempted and now waits")
