"""The fuzz pass's hook: an emulator hang-up is sent again once, never counted as the platform's 500."""

import http.server
import threading

import requests
from schemathesis.core.transport import Response

from tests.fuzz import hooks


class _Flaky(http.server.BaseHTTPRequestHandler):
    answers: list[tuple[int, bytes]] = []
    seen = 0

    def do_GET(self):
        status, body = _Flaky.answers[min(_Flaky.seen, len(_Flaky.answers) - 1)]
        _Flaky.seen += 1
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _call(answers):
    _Flaky.answers, _Flaky.seen = answers, 0
    server = http.server.HTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        response = Response.from_requests(requests.get(f"http://127.0.0.1:{server.server_port}/x", timeout=10), True)
        hooks.after_call(None, None, response)
        return response, _Flaky.seen
    finally:
        server.shutdown()
        server.server_close()


def test_a_hangup_is_sent_again_once_and_the_second_answer_is_checked(capsys):
    response, sent = _call([(500, b'{"code":"ECONNRESET"}'), (200, b'{"ok":true}')])
    assert sent == 2 and response.status_code == 200 and response.json() == {"ok": True}
    assert "socket hang up" in capsys.readouterr().err


def test_a_server_error_of_the_platform_is_left_alone():
    response, sent = _call([(500, b'{"error":"Internal server error"}'), (200, b"{}")])
    assert sent == 1 and response.status_code == 500
    assert not hooks.is_emulator_hangup(500, b'{"code":"ECONNRESET","x":1}')
    assert not hooks.is_emulator_hangup(502, b'{"code":"ECONNRESET"}')
