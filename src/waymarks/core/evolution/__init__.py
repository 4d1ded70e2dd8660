"""Memory evolution (seed 004): learned claims, their authority, and their canonical records.

Pure: no I/O, no clock (times are ISO-8601 strings passed in), like the rest of ``core``.

- :mod:`.model` — kinds, states, host-assigned evidence, the source-priority table, claim
  IDs, and the ``waymarks-evolution-v1`` ledger records;
- :mod:`.fold` — the one fold of those records into state, shared by incremental
  projection and rebuild;
- :mod:`.contract` — the model's output contract (EVOLUTION item 50);
- :mod:`.decide` — conservative writes: what a validated reply may change (items 51, 56);
- :mod:`.request` — the consolidation request, built through the egress function (item 49);
- :mod:`.capture` — which user text is a statement worth learning (items 9, 10).

What must stay true: an evolved claim never replaces, hides or outranks a pin or a memory a
person confirmed; those live in another namespace (``items``) that nothing here can write.
"""
