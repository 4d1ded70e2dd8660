"""Append-only records: session files, host ledgers, the team ledger."""

from pathlib import Path
from typing import Final

#: where a repository keeps its team ledger (one file per contributor): here, not in
#: :mod:`waymarks.ledger.team`, so that every plan can ask whether a project has one
#: without loading the team modules (hashlib's OpenSSL among them)
TEAM_DIR: Final = Path(".waymarks") / "team"
