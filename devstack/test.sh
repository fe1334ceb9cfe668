#!/usr/bin/env bash
# `make test`: the whole pytest suite inside the emulators. Extra pytest arguments come from PYTEST_ARGS,
# split like a shell would:  make test PYTEST_ARGS='-k "lessons and not slow" -x'
# pytest's exit code is kept as is (5, "no tests collected", fails the run).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
args=()
if [ -n "${PYTEST_ARGS:-}" ]; then
  # shellcheck disable=SC2294
  eval "args=(${PYTEST_ARGS})"
fi
if [ ${#args[@]} -eq 0 ]; then
  exec bash "$here/exec.sh" bash "$here/test_suite.sh"  # the whole suite: see test_suite.sh
fi
# pyproject.toml sets testpaths = ["tests"], so paths in PYTEST_ARGS narrow the run.
exec bash "$here/exec.sh" "$root/functions/venv/bin/python" -m pytest "${args[@]}"
