"""`python -m bench.load` from the repository root, inside the emulators (devstack/exec.sh)."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "functions"), str(ROOT)]

from bench.load import main  # noqa: E402

main()
