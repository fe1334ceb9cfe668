#!/usr/bin/env bash
# The whole suite in three steps inside one stack (devstack/test.sh runs it for a `make test` without PYTEST_ARGS):
#   1. the browser tests (tests/browser), then the assistant's (tests/assistant), in one pytest process and everything
#      else in another, at the same time;
#   2. then the tests marked serial (they read or change what the others keep adding to, every client of the
#      database), the fuzz pass and the tests marked after_all, which read what the whole run left behind (the
#      emulator log, the query and write records, the collections), so they see both processes' traffic.
# The suite spends most of its time waiting (the emulators, Chromium, deadlines): two processes at once keep the
# two cores busier, and the fuzz pass, which changes the demo world at random, never runs beside a test that uses
# it. The emulators are reset once, here; the processes' conftest then leaves them as they are. The assistant's tests
# follow the browser tests in their process so the two finish about together (on CI at af4f4c9: the browser tests
# 8m08s, the rest 10m37s, of which the assistant's about 1.5 min); they run one after the other there, so the
# browser tests, which time real video, meet no more load than before.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 1
py="$root/functions/venv/bin/python"
PYTHONPATH="$root/functions:$root" "$py" -c "from tests.conftest import reset_emulators; reset_emulators()" || exit 1
export TESTS_EMULATORS_RESET=1
browser_log="$(mktemp "${TMPDIR:-/tmp}/browser-tests.XXXXXX")"
"$py" -m pytest tests/browser tests/assistant -m "not fuzz and not after_all and not serial" >"$browser_log" 2>&1 &
browser_pid=$!
"$py" -m pytest --ignore=tests/browser --ignore=tests/assistant -m "not fuzz and not after_all and not serial"
rest=$?
wait "$browser_pid"
browser=$?
echo "== the browser and assistant tests (run beside the above; their output, from $browser_log)"
cat "$browser_log"
# The whole suite has now run: tests that judge what it never did (tests/test_indexes.py) may say so.
TESTS_WHOLE_SUITE=1 "$py" -m pytest -m "serial or fuzz or after_all"
last=$?
echo "== make test: browser and assistant tests exit $browser, the others $rest, serial, fuzz and after-all $last"
for code in "$rest" "$browser" "$last"; do
  [ "$code" -eq 0 ] || exit "$code"
done
