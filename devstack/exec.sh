#!/usr/bin/env bash
# Run a command inside `firebase emulators:exec` (all six emulators, project demo-wellness), once
# GET /api/health answers 200 through Hosting. The command's exit code is this script's exit code.
#   devstack/exec.sh functions/venv/bin/python bench/run.py
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/install.sh"
# shellcheck source=devstack/env.sh
. "$here/env.sh"
exec python3 "$here/stack.py" exec -- "$@"
