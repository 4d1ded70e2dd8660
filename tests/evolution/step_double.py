"""A test double of the ``ConsolidationStep`` port (``core/model_port.py``), NOT product
code: sources live in a JSON file (so several real processes can share them), and every
``apply``/``give_up`` is appended to a JSON-lines log the tests read back.

``apply`` follows a tiny contract so tests can steer outcomes through the model's reply:
a reply text of ``"INVALID"`` is ``invalid_output``, ``"REFUSE"`` is an authority refusal
(``write_rejected``), anything else is ``applied``. Applying to a settled source is
``no_change`` (idempotent, as the port requires).
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from waymarks.core.model_port import ModelReply, ModelRequest, SourceRef, StepOutcome


class FileStep:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.sources_file = directory / "sources.json"
        self.log_file = directory / "applies.jsonl"
        if not self.sources_file.exists():
            self.sources_file.write_text("{}", encoding="utf-8")

    # --- test helpers -------------------------------------------------------------------

    def add(self, source_id: str, text: str = "The user prefers tabs.", *,
            classification: str = "normal", origin: str = "/work/a",
            captured_at: str = "2026-12-01T10:00:00.000Z") -> None:
        with self._locked() as sources:
            sources[source_id] = {"text": text, "classification": classification,
                                  "origin": origin, "captured_at": captured_at,
                                  "settled": False}

    def log(self) -> list[dict[str, object]]:
        if not self.log_file.exists():
            return []
        return [json.loads(line) for line in self.log_file.read_text().splitlines()]

    def settled(self, source_id: str) -> bool:
        return bool(json.loads(self.sources_file.read_text())[source_id]["settled"])

    # --- the port ----------------------------------------------------------------------

    def unsettled(self, limit: int) -> list[SourceRef]:
        sources = json.loads(self.sources_file.read_text())
        refs = [SourceRef(sid, s["origin"], s["classification"], s["captured_at"])
                for sid, s in sources.items() if not s["settled"]]
        refs.sort(key=lambda r: (r.captured_at, r.source_id))
        return refs[:limit]

    def request_for(self, source_id: str) -> ModelRequest | None:
        source = json.loads(self.sources_file.read_text()).get(source_id)
        if source is None or source["settled"]:
            return None
        return ModelRequest("Consolidate the source into claims as JSON.", source["text"],
                            512, source["classification"])

    def apply(self, source_id: str, reply: ModelReply, at: str, *,
              secrets: frozenset[str] = frozenset()) -> StepOutcome:
        with self._locked() as sources:
            source = sources[source_id]
            if source["settled"]:
                code = "no_change"
            elif reply.text == "INVALID":
                code = "invalid_output"
            elif reply.text == "REFUSE":
                code = "write_rejected"
            else:
                code = "applied"
                source["settled"] = True
            self._append({"op": "apply", "source": source_id, "code": code,
                          "model": reply.model, "text": reply.text})
        return StepOutcome(code, written=1 if code == "applied" else 0)

    def give_up(self, source_id: str, code: str, at: str) -> None:
        with self._locked() as sources:
            sources[source_id]["settled"] = True
            self._append({"op": "give_up", "source": source_id, "code": code})

    # --- plumbing ----------------------------------------------------------------------

    def _append(self, record: dict[str, object]) -> None:
        with open(self.log_file, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def _locked(self):  # type: ignore[no-untyped-def]
        step = self

        class _Ctx:
            def __enter__(self) -> dict[str, dict[str, object]]:
                self.lock = open(step.directory / ".lock", "a")
                fcntl.flock(self.lock, fcntl.LOCK_EX)
                self.data: dict[str, dict[str, object]] = json.loads(
                    step.sources_file.read_text())
                return self.data

            def __exit__(self, *exc: object) -> None:
                if exc[0] is None:  # replaced whole, so lock-free readers never see half
                    temporary = step.sources_file.with_suffix(f".{os.getpid()}.tmp")
                    temporary.write_text(json.dumps(self.data), encoding="utf-8")
                    os.replace(temporary, step.sources_file)
                fcntl.flock(self.lock, fcntl.LOCK_UN)
                self.lock.close()

        return _Ctx()
