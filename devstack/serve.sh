#!/usr/bin/env bash
# `make serve`: install what is missing, start the emulators for demo-wellness, wait for /api/health,
# seed the demo world (bin/platformctl seed), print the base URL, and run until Ctrl-C/SIGTERM; then stop
# every process the stack started. See devstack/stack.py.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/install.sh"
# shellcheck source=devstack/env.sh
. "$here/env.sh"
exec python3 "$here/stack.py" serve
