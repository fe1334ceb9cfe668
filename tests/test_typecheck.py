"""mypy over the Cloud Functions codebase (mypy.ini: strict on wellness_api.core), as `make lint` runs it.

CI runs only `make test`, so the type check is part of the suite: a change that breaks a declared type fails here.
With its cache (.mypy_cache/) a run takes a few seconds; cold, about half a minute of CPU.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_passes_over_functions():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "mypy.ini")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert result.returncode == 0, f"mypy found errors (fix them, see mypy.ini):\n{result.stdout}{result.stderr}"
