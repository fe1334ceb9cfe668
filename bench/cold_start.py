"""Cold start: `import main` against a bare `import firebase_admin, firebase_functions`, median of fresh
interpreters, and proof that serving one area imports no other area."""

import pathlib
import statistics
import subprocess
import sys

FUNCTIONS = pathlib.Path(__file__).resolve().parents[1] / "functions"
RUNS = 9


def _import_time(statement: str) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], cwd=FUNCTIONS, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    statements = ("import firebase_admin, firebase_functions", "import firebase_admin, firebase_functions.https_fn",
                  "import main")
    # Interleaved rounds: the machine's load drifts over a run, and each ratio must compare like with like.
    times: dict[str, list[float]] = {statement: [] for statement in statements}
    for _ in range(RUNS):
        for statement in statements:
            times[statement].append(_import_time(statement))
    base, floor, imported = (statistics.median(times[statement]) for statement in statements)
    print("== cold start (median of", RUNS, "fresh interpreters each, in interleaved rounds)")
    print(f"import firebase_admin, firebase_functions:          {base * 1000:7.1f} ms")
    print(f"import firebase_admin, firebase_functions.https_fn: {floor * 1000:7.1f} ms  (any HTTPS function needs it)")
    print(f"import main:                                        {imported * 1000:7.1f} ms")
    print(f"ratio main / bare import:  {imported / base:.2f}x (goal <= 1.2x)")
    print(f"ratio main / https_fn floor: {imported / floor:.2f}x (what main adds of its own)")
    probe = (
        "import sys, main\n"
        "from firebase_functions import https_fn\n"
        "from werkzeug.test import EnvironBuilder\n"
        "env = EnvironBuilder(path='/api/clients/x/api-keys', method='GET').get_environ()\n"
        "main.apikeys(https_fn.Request(env))\n"
        "areas = sorted({m.split('.')[1] for m in sys.modules if m.startswith('wellness_api.') and m.count('.') >= 1})\n"
        "print(' '.join(areas))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=FUNCTIONS, capture_output=True, text=True, check=True)
    loaded = out.stdout.strip().splitlines()[-1].split()
    others = [a for a in loaded if a not in ("core", "api_keys")]
    print(f"packages loaded after serving one api-keys request: {', '.join(loaded)}")
    print(f"other areas imported: {others or 'none'}")
