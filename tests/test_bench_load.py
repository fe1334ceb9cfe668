"""The load run (bench/load/) tells the Functions emulator's hang-up apart from the platform's answers, and the
cost model (bench/capacity.py) rewrites only its generated part of docs/capacity.md. Offline: a local HTTP server
plays the emulator."""

import http.server
import json
import threading
import types

import pytest

from bench import capacity
from bench.load import callers, levels

HANGUP = (500, {}, json.dumps({"code": "ECONNRESET"}).encode())  # what the emulator answers, no x-request-id


@pytest.fixture
def answers():
    """A server that gives the scripted answers in order, then 201 with the platform's x-request-id."""
    script: list[tuple[int, dict, bytes]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            status, headers, body = script.pop(0) if script else (201, {"x-request-id": "r1"}, b'{"ok": true}')
            self.send_response(status)
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield script, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def _caller(base_url: str):
    world = types.SimpleNamespace(base_url=base_url, players=[types.SimpleNamespace(uid="u1", headers={})])
    seen, level = callers.Seen(), callers.Level(budget=10, cap=30)
    return callers.Caller(world, seen, level, 0), seen, level


def test_a_hangup_is_sent_again_once_and_never_counted_as_the_platforms_error(answers):
    script, base = answers
    script.append(HANGUP)
    caller, seen, level = _caller(base)
    response = caller.send("POST media job", "POST", "/x", body={}, write="media")
    assert response.status_code == 201
    assert seen.hangups == {"POST media job": 1}
    assert seen.unknown == {"media": 1}  # the worker may have committed before it went away
    assert [r.kind for r in level.records] == [None]


def test_two_hangups_are_the_emulators_error_not_the_platforms(answers):
    script, base = answers
    script.extend([HANGUP, HANGUP])
    caller, seen, level = _caller(base)
    caller.send("POST media job", "POST", "/x", body={})
    outcome = levels.Outcome(1, level.records, 1.0, None, None, None)
    assert not outcome.errors(emulator=False)
    assert sum(outcome.errors(emulator=True).values()) == 1
    assert seen.hangups == {"POST media job": 2}


def test_a_500_of_the_platform_is_its_error_and_not_sent_again(answers):
    script, base = answers
    script.append((500, {"x-request-id": "r0"}, json.dumps({"code": "ECONNRESET"}).encode()))
    caller, seen, level = _caller(base)
    assert caller.send("POST x", "POST", "/x", body={}).status_code == 500
    assert not seen.hangups
    outcome = levels.Outcome(1, level.records, 1.0, None, None, None)
    assert sum(outcome.errors(emulator=False).values()) == 1


def test_the_cost_model_rewrites_only_between_its_markers(tmp_path):
    doc = tmp_path / "capacity.md"
    doc.write_text(f"# Capacity\n\nhand-written before\n\n{capacity.BEGIN}\nold tables\n{capacity.END}\n\nafter\n")
    capacity.write_doc(f"{capacity.BEGIN}\nnew tables\n{capacity.END}", doc)
    assert doc.read_text() == (f"# Capacity\n\nhand-written before\n\n{capacity.BEGIN}\nnew tables\n{capacity.END}"
                               "\n\nafter\n")
