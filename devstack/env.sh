# shellcheck shell=bash
# Sourced by the devstack scripts: the environment the emulators run in. Everything they write stays in
# the git-ignored .devstack/ folder of this checkout. devstack/install.sh writes .devstack/env.generated
# (the java it chose and the emulator binary overrides); this file reads it when it exists.

DEVSTACK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEVSTACK_STATE="$DEVSTACK_ROOT/.devstack"
export DEVSTACK_ROOT DEVSTACK_STATE

mkdir -p "$DEVSTACK_STATE/config" "$DEVSTACK_STATE/tmp" "$DEVSTACK_STATE/run/xdg" \
  "$DEVSTACK_STATE/logs" "$DEVSTACK_STATE/emulators/cache" "$DEVSTACK_STATE/stamps"
chmod 700 "$DEVSTACK_STATE/run/xdg"

# firebase-tools' configstore, Storage emulator blobs (os.tmpdir()), gunicorn state of the Python workers.
export XDG_CONFIG_HOME="$DEVSTACK_STATE/config"
export TMPDIR="$DEVSTACK_STATE/tmp"
export XDG_RUNTIME_DIR="$DEVSTACK_STATE/run/xdg"
# The emulator jar cache (firebase-tools downloads here when it can; an exported value is kept).
export FIREBASE_EMULATORS_PATH="${FIREBASE_EMULATORS_PATH:-$DEVSTACK_STATE/emulators/cache}"
# No update check (CI, when set by the caller, also skips the message of the day).
export NO_UPDATE_NOTIFIER=1
export NPM_CONFIG_UPDATE_NOTIFIER=false

# install.sh skips it: it chooses java from the caller's environment, not from its own earlier choice.
if [ -z "${DEVSTACK_SKIP_GENERATED:-}" ] && [ -f "$DEVSTACK_STATE/env.generated" ]; then
  # shellcheck source=/dev/null
  . "$DEVSTACK_STATE/env.generated"
fi
export PATH="${DEVSTACK_JAVA_BIN:+$DEVSTACK_JAVA_BIN:}$DEVSTACK_ROOT/node_modules/.bin:$PATH"
