"""The team's kept answers are worked out again when the code that judged them changes:
every ``core.claim_*`` module the team's check loads is in the digest they are kept by."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import json, sys
from waymarks.service import team_held
from waymarks.store import claim_subjects
loaded = sorted(name for name in sys.modules if name.startswith("waymarks.core.claim_"))
digested = sorted(module.__name__ for module in
                  (*team_held.HELD_CODE, *claim_subjects.SIGNATURE_CODE))
print(json.dumps({"loaded": loaded, "digested": digested}))
"""


def test_every_claim_module_the_team_check_loads_is_in_its_digest() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         check=True, timeout=120)
    seen = json.loads(out.stdout)
    assert seen["loaded"], "the probe loaded no claim module: it tests nothing"
    assert "waymarks.core.claim_masked" in seen["loaded"]
    missing = sorted(set(seen["loaded"]) - set(seen["digested"]))
    assert missing == [], f"team answers would outlive a change to {missing}"
