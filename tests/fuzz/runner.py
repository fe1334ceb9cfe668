"""Fuzz the running stack through Hosting with schemathesis, against /api/openapi.json, as the demo world.

    python -m tests.fuzz.runner --max-time 600      (make fuzz; inside the emulators)

Credentials come from `bin/demo-env` (the demo world's API key, admin, player and client tokens, a scan
token). Two passes: every operation as the demo admin, then the member-facing operations as the demo
player. Checks: no server error, status codes, content types and response bodies as documented.
Prints schemathesis' summary; exits non-zero when any check failed.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ST = ROOT / "functions" / "venv" / "bin" / "st"
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
# Bodies above the documented limits are refused before parsing; larger fuzzed bodies add time, not coverage.
SUPPRESSED_HEALTH_CHECKS = "data_too_large,too_slow,filter_too_much,large_base_example"


def demo_env() -> dict[str, str]:
    """The variables `eval "$(bin/demo-env)"` sets."""
    script = 'eval "$(bin/demo-env)" && python3 -c "import json, os; print(json.dumps(dict(os.environ)))"'
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, check=True, capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def config(env: dict[str, str], id_token: str) -> str:
    schemes = {"serverApiKey": env["API_KEY"], "firebaseIdToken": id_token, "clientToken": env["CLIENT_TOKEN"],
               "scanToken": env["SCAN_TOKEN"]}
    return "".join(f'[auth.openapi.{name}]\nbearer = {json.dumps(value)}\n\n' for name, value in schemes.items())


def run_pass(name: str, env: dict[str, str], id_token: str, max_time: int, extra: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        cfg = Path(tmp) / "schemathesis.toml"
        cfg.write_text(config(env, id_token))
        cfg.chmod(0o600)
        command = [
            str(ST), "--config-file", str(cfg), "run", f"{env['BASE_URL']}/api/openapi.json", "--url", env["BASE_URL"],
            "--checks", CHECKS, "--max-time", str(max_time), "--workers", "1",
            "--suppress-health-check", SUPPRESSED_HEALTH_CHECKS,
            # The host names the demo client for exchange-token and guest sign-in (CONTRACT 5).
            "--header", f"Host: {env['CLIENT_HOST']}", "--request-timeout", "30", "--wait-for-schema", "30",
            "--max-failures", "20", *extra,
        ]
        print(f"== fuzz pass '{name}' ({max_time} s budget)", flush=True)
        started = time.monotonic()
        env_run = {**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks",
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        code = subprocess.run(command, cwd=tmp, env=env_run, check=False).returncode
        print(f"== fuzz pass '{name}' exited {code} after {time.monotonic() - started:.0f} s", flush=True)
        return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-time", type=int, default=600, help="seconds for the whole run (both passes)")
    args = parser.parse_args(argv)
    env = demo_env()
    admin_budget = max(10, args.max_time * 2 // 3)
    codes = [
        run_pass("demo admin, every operation", env, env["ADMIN_ID_TOKEN"], admin_budget, []),
        run_pass("demo player, member operations", env, env["PLAYER_ID_TOKEN"], max(10, args.max_time - admin_budget),
                 ["--include-tag-regex",
                  "^(Lessons|API keys|Identity|Fall risk|Media generation|AI assistant|OpenAI-compatible proxy|Analytics)$"]),
    ]
    return 0 if all(code == 0 for code in codes) else 1


if __name__ == "__main__":
    sys.exit(main())
