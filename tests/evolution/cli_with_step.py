"""Runs the real ``waymarks`` entry point with the test double of ConsolidationStep
registered (``EVO_STEP_DIR``): how a test reaches ``evolve`` before the consolidation half
is wired. Test-only; product code never imports this."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.evolution.step_double import FileStep
from waymarks.cli.main import main
from waymarks.service.evolution_wiring import register_step

if __name__ == "__main__":
    register_step(lambda app: FileStep(Path(os.environ["EVO_STEP_DIR"])))
    sys.exit(main(sys.argv[1:]))
