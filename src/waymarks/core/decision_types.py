"""What a write decision returns (:mod:`waymarks.core.decisions`): the mutation to append,
a :class:`Duplicate` or a :class:`Rejected` with its stable code, and the
:class:`WriteContext` a decision reads. Apart from the rules so that what callers branch on
(the service, the tool, the hosts, scripts through ``--json``) is read in one short place.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Literal

import msgspec

from waymarks.core.model import Mutation
from waymarks.core.rules import ItemState, StateView
from waymarks.core.text import shell_command

#: the stable codes a refused write carries (scripts and the tool branch on them)
RejectionCode = Literal[
    "conflict",
    "not_found",
    "ambiguous",
    "not_active",
    "untrusted",
    "invalid_argument",
    "too_long",
    "empty",
    "off_branch",
    "scope_mismatch",
    "no_session",
    "target_changed",
    "credential",
    "foreign_session",
    "source_withheld",
    "not_applied",
    "clock_ahead",
    "not_saved",
    "open_in_pi",
]


class Duplicate(msgspec.Struct, frozen=True):
    """The same normalized item is already active: its ID, nothing appended."""

    id: str
    kind: str
    outcome: Literal["duplicate"] = "duplicate"


class Rejected(msgspec.Struct, frozen=True):
    """The write was refused: nothing was appended (``not_applied``: nothing applies)."""

    code: RejectionCode
    message: str
    conflicts: tuple[str, ...] = ()
    outcome: Literal["rejected"] = "rejected"


Decision = Mutation | Duplicate | Rejected


class WriteContext(msgspec.Struct, frozen=True):
    """What a write may depend on, captured under the session lock."""

    view: StateView
    session_id: str
    project_path: str
    trusted: bool
    leaf_id: str | None
    branch: AbstractSet[str]
    now_ms: int
    new_uuid: Callable[[], str]
    #: the policy's level of an item stored without one (``defaultClassification``)
    default_level: str = "normal"
    #: how the person runs the commands a refusal suggests (``/context`` inside Pi, where
    #: the session's items are: the terminal's ``waymarks`` finds none of them)
    prog: str = "waymarks"
    #: how the project becomes trusted where the host decides (inside Pi, when Pi reports
    #: it untrusted: ``trust`` is refused there); empty: ``prog trust PATH``
    trust_fix: str = ""
    #: whether the session holds an entry of this ID, on any branch (``None``: not known,
    #: every source off the branch is said to be so): a source that names no entry is
    #: ``not_found``, as every unknown ID is, not "not on the active branch"
    has_entry: Callable[[str], bool] | None = None
    #: a similarity of two claims' masked texts (:mod:`waymarks.core.claim_masked`), where
    #: the caller has one (a semantic embedder's cosine); ``None``: their lexical overlap
    similar: Callable[[str, str], float] | None = None

    def trust_step(self) -> str:
        """What to do first to make this project trusted (a refusal's last words)."""
        # the path quoted as a shell reads it: a folder named `p $(touch x)` is one word
        # of the command a person pastes, never a command of its own
        command = shell_command([self.prog, "trust", self.project_path])
        return self.trust_fix or f"run `{command}` first"

    def visible(self, state: ItemState) -> bool:
        """Whether this session may change ``state`` (its own items, or its project's)."""
        if state.item.scope == "project":
            return state.item.project_path == self.project_path
        return state.session_id == self.session_id
