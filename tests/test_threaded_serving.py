"""Many requests at once in one process, as Cloud Run serves a function whose concurrency is above 1.

Every HTTPS function of main.py is served from this test's process by a threaded WSGI server (support/threaded_server.py),
routed as Hosting routes, against the emulators. Callers of several tenants and users send mixed traffic at once:
lessons and plays, AI Move sessions and statistics, Vital Scan sessions (points), fall risk, content, the
assistant's chat (local provider), API keys and client tokens. Then, exactly: nothing lost or counted twice, and
nothing of one request (tenant, user, credential, request id, log context) seen in another's answer or log line.
"""

import base64
import collections
import concurrent.futures
import contextlib
import dataclasses
import io
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid

import pytest
import requests

from support.catalogue import seed_catalogue
from support.fall_risk import quiz
from support.threaded_server import ROOT, hosting_app, serving
from tests.conftest import Member, Tenant

TENANTS = 3
PLAYERS = 2  # per tenant
ROUNDS = 2  # each player walks the whole mix this many times
CALLERS = 24  # requests in flight at once
POINTS = 1000
CHAT = "How are my workouts going?"
RESENDS = 20  # a 503 is the documented "retry shortly" (a contended transaction, nothing written): sent again


@dataclasses.dataclass
class World:
    tenant: Tenant
    players: list[Member]
    api_key: str
    lesson_id: str
    lesson_title: str
    exercise_id: str
    content_title: str

    @property
    def lesson_title_json(self) -> str:
        return json.dumps({"en": self.lesson_title})


@dataclasses.dataclass
class Answer:
    client_id: str
    uid: str | None  # the member who called; None for an API key, a client secret or no credential
    method: str
    path: str
    status: int
    request_id: str | None
    body: object
    text: str


def _world() -> World:
    from wellness_api.api_keys import service as api_keys

    tenant = Tenant(f"thr-{uuid.uuid4().hex[:10]}")
    tenant.configure("modules.aiMove=true", "modules.vitalScan=true", "modules.wellnessChat=true",
                     "modules.analytics=true", f"vitalScan.points={POINTS}", "vitalScan.requestsPerMinute=100000",
                     "wellnessChat.requestsPerMinute=100000")
    players = [tenant.player] + [tenant.add_member("player") for _ in range(PLAYERS - 1)]
    for member in (tenant.admin, *players):
        member.token  # noqa: B018 - signed in before the traffic
    # Titles named after the tenant: an answer carrying another tenant's title is a leak the test can see.
    catalogue = seed_catalogue(tenant.client, tenant.client_id, by="test")
    key = api_keys.create_key(tenant.client_id, "threaded", False, "test").secret
    return World(tenant, players, key, catalogue.lesson_id, catalogue.lesson_title, catalogue.exercise_id,
                 catalogue.content_title)


class Traffic:
    """Every answer, and what the callers saw succeed (shared by the calling threads)."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.lock = threading.Lock()
        self.local = threading.local()
        self.answers: list[Answer] = []
        self.reps: collections.Counter = collections.Counter()  # uid -> reps of completed AI Move sessions
        self.completed: collections.Counter = collections.Counter()  # uid -> completed AI Move sessions
        self.plays: collections.Counter = collections.Counter()  # client -> plays started
        self.scans: collections.Counter = collections.Counter()  # client -> Vital Scan sessions created
        self.results: dict[str, str] = {}  # fall risk result -> uid
        self.conversations: dict[str, str] = {}  # conversation -> uid
        self.keys: collections.Counter = collections.Counter()  # client -> API keys created

    def send(self, world: World, member: Member | None, method: str, path: str, *, body=None,
             headers: dict | None = None) -> Answer:
        http = getattr(self.local, "http", None)
        if http is None:
            http = self.local.http = requests.Session()
        headers = headers if headers is not None else (member.headers if member else {})
        for _ in range(RESENDS):
            response = http.request(method, self.base_url + path, json=body, headers=headers, timeout=60)
            self._record(world, member, method, path, response)
            if response.status_code != 503 or "x-request-id" not in response.headers:
                break
        return self.answers_by_thread()

    def _record(self, world: World, member: Member | None, method: str, path: str, response) -> None:
        try:
            parsed = response.json()
        except ValueError:
            parsed = None
        answer = Answer(world.tenant.client_id, member.uid if member else None, method, path, response.status_code,
                        response.headers.get("x-request-id"), parsed, response.text)
        self.local.last = answer
        with self.lock:
            self.answers.append(answer)

    def answers_by_thread(self) -> Answer:
        return self.local.last

    def count(self, counter: collections.Counter, key: str, n: int = 1) -> None:
        with self.lock:
            counter[key] += n


def _lessons(t: Traffic, w: World, p: Member, rng: random.Random) -> None:
    listed = t.send(w, p, "GET", f"/api/lessons?clientId={w.tenant.client_id}")
    assert listed.status == 200, listed.text
    assert [(x["id"], json.dumps(x["title"])) for x in listed.body["data"]] == [(w.lesson_id, w.lesson_title_json)]
    path = f"/api/lessons/{w.lesson_id}/plays/{uuid.uuid4().hex}"
    assert t.send(w, p, "PUT", path, body={"status": "started"}).status == 201
    t.count(t.plays, w.tenant.client_id)
    assert t.send(w, p, "PUT", path, body={"status": "completed"}).status == 200


def _ai_move(t: Traffic, w: World, p: Member, rng: random.Random) -> None:
    created = t.send(w, p, "POST", "/api/ai-move/sessions",
                     body={"exerciseId": w.exercise_id, "exerciseType": "rep", "targetReps": 10})
    assert created.status == 201, created.text
    reps = rng.randint(1, 12)
    done = t.send(w, p, "PATCH", f"/api/ai-move/sessions/{created.body['sessionId']}",
                  body={"status": "completed", "repsCompleted": reps, "durationSeconds": 20})
    assert done.status == 200, done.text
    t.count(t.reps, p.uid, reps)
    t.count(t.completed, p.uid)
    assert t.send(w, p, "GET", "/api/ai-move/statistics").status == 200


def _vital_scan(t: Traffic, w: World, p: Member, rng: random.Random) -> None:
    user = f"scan-{p.uid[:16]}"
    created = t.send(w, None, "POST", "/api/v1/vital-scan/sessions", body={"userId": user},
                     headers={"Authorization": f"Bearer {w.api_key}"})
    assert created.status == 201, created.text
    t.count(t.scans, w.tenant.client_id)
    session = created.body["data"]
    assert session["userId"] == user
    polled = t.send(w, None, "GET", f"/api/v1/vital-scan/sessions/{session['vitalScanResultId']}",
                    headers={"Authorization": f"Bearer {w.api_key}"})
    assert polled.status == 200 and polled.body["data"]["userId"] == user, polled.text


def _fall_risk(t: Traffic, w: World, p: Member, rng: random.Random) -> None:
    created = t.send(w, p, "POST", "/api/fall-risk", body={})
    assert created.status == 200, created.text
    result = created.body["fallRiskResultId"]
    with t.lock:
        t.results[result] = p.uid
    assert t.send(w, p, "PUT", f"/api/fall-risk/results/{result}/quiz", body=quiz()).status == 200


def _content(t: Traffic, w: World, p: Member, rng: random.Random) -> None:
    found = t.send(w, None, "GET", f"/api/client/{w.tenant.client_id}/content/public/notice")
    assert found.status == 200, found.text
    assert [(i["clientId"], i["title"]) for i in found.body["data"]] == [(w.tenant.client_id, w.content_title)]


def _chat(t: Traffic, w: World, p: Member, rng: random.Random) -> None:
    answer = t.send(w, p, "POST", "/api/wellness-chat", body={"message": CHAT})
    assert answer.status == 200, answer.text
    done = [json.loads(line[len("data: "):]) for block in answer.text.split("\n\n") if "event: done" in block
            for line in block.splitlines() if line.startswith("data: ")]
    assert len(done) == 1, answer.text
    with t.lock:
        t.conversations[done[0]["conversationId"]] = p.uid


def _keys_and_tokens(t: Traffic, w: World, p: Member, rng: random.Random) -> None:
    admin = w.tenant.admin
    base = f"/api/clients/{w.tenant.client_id}/api-keys"
    secret = w.api_key
    if p is w.players[0]:  # one new key per tenant and round: creating keys of one client is serialised by design
        created = t.send(w, admin, "POST", base, body={"label": f"round {rng.random():.6f}"})
        assert created.status == 201, created.text
        t.count(t.keys, w.tenant.client_id)
        secret = created.body["secret"]
    listed = t.send(w, admin, "GET", base)
    assert listed.status == 200, listed.text
    issued = t.send(w, None, "POST", "/api/client/token/", body={"clientId": w.tenant.client_id, "clientSecret": secret})
    assert issued.status == 200, issued.text
    payload = issued.body["token"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["clientId"] == w.tenant.client_id
    # A credential of its own kind: the client token reads its own tenant's lessons.
    listed = t.send(w, None, "GET", f"/api/lessons?clientId={w.tenant.client_id}",
                    headers={"Authorization": f"Bearer {issued.body['token']}"})
    assert listed.status == 200, listed.text
    assert [(x["id"], json.dumps(x["title"])) for x in listed.body["data"]] == [(w.lesson_id, w.lesson_title_json)]


MIX = (_lessons, _ai_move, _vital_scan, _fall_risk, _content, _chat, _keys_and_tokens)


@pytest.fixture(scope="module")
def run():
    """The worlds, the traffic they got from CALLERS threads at once, and every log line the platform wrote."""
    began = time.perf_counter()
    worlds = [_world() for _ in range(TENANTS)]
    made = time.perf_counter()
    jobs = [(op, w, p) for _ in range(ROUNDS) for w in worlds for p in w.players for op in MIX]
    random.Random(26).shuffle(jobs)
    out, err = io.StringIO(), io.StringIO()
    failures = []
    with serving(hosting_app()) as base_url, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        traffic = Traffic(base_url)
        with concurrent.futures.ThreadPoolExecutor(CALLERS) as pool:
            futures = [pool.submit(op, traffic, w, p, random.Random(i)) for i, (op, w, p) in enumerate(jobs)]
            for future, (op, _, _) in zip(futures, jobs, strict=True):
                try:
                    future.result()
                except Exception as exc:  # noqa: BLE001 - every failure is listed, not only the first
                    failures.append(f"{op.__name__}: {type(exc).__name__} {exc}")
    sys.__stderr__.write(f"\nthreaded serving: worlds {made - began:.1f} s, {len(traffic.answers)} requests in "
                         f"{time.perf_counter() - made:.1f} s, {sum(a.status == 503 for a in traffic.answers)} of them 503\n")
    lines = [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]
    return worlds, traffic, lines, err.getvalue(), failures


def test_every_request_of_concurrent_mixed_traffic_gets_its_own_callers_answer(run):
    worlds, traffic, _, errors, failures = run
    assert failures == []
    assert "unhandled" not in errors, errors[:2000]
    assert len(traffic.answers) >= len(worlds) * PLAYERS * ROUNDS * 15
    ids = [a.request_id for a in traffic.answers]
    assert None not in ids
    assert len(set(ids)) == len(ids), "a request id was answered twice"


def test_every_access_log_line_carries_its_own_requests_id_and_client(run):
    _, traffic, lines, _, _ = run
    access = [line for line in lines if line.get("message") == "request"]
    by_id = collections.defaultdict(list)
    for line in access:
        by_id[line["requestId"]].append(line)
    assert len(access) == len(traffic.answers), "every answer has exactly one access log line"
    for answer in traffic.answers:
        (line,) = by_id[answer.request_id]
        assert (line["method"], line["status"]) == (answer.method, answer.status), (answer, line)
        # Requests of a tenant are logged with that tenant (or none: public routes before the tenant is known).
        assert line.get("clientId") in (answer.client_id, None), (answer, line)
    # Every line the platform wrote parses on its own: no two requests' lines interleaved.
    assert all(line.startswith("{") for line in "".join(
        json.dumps(x) + "\n" for x in lines).splitlines())


def test_nothing_was_lost_or_counted_twice(run):
    from wellness_api.assistant import repository as assistant
    from wellness_api.core import tenancy
    from wellness_api.vital_scan import service as vital_scan

    worlds, traffic, _, _, _ = run
    for w in worlds:
        cid = w.tenant.client_id
        account = vital_scan.point_account(tenancy.get_client(cid))
        assert (account["spent"], account["remaining"]) == (traffic.scans[cid], POINTS - traffic.scans[cid])
        sessions = [s.to_dict() for s in tenancy.client_ref(cid).collection("vitalScanSessions").stream()]
        assert sum(1 for s in sessions if "status" in s and not s.get("voided")) == traffic.scans[cid]
        plays = [s.to_dict() for s in tenancy.client_ref(cid).collection("lessonPlays").stream()]
        assert (len(plays), sum(p.get("status") == "completed" for p in plays)) == (traffic.plays[cid],) * 2
        for p in w.players:
            stats = requests.get(f"{_hosting()}/api/ai-move/statistics", headers=p.headers, timeout=30)
            got = stats.json()["statistics"]
            assert (got["sessionsCompleted"], got["totalReps"]) == (traffic.completed[p.uid], traffic.reps[p.uid])
        results = {r.id: r.to_dict() for r in tenancy.client_ref(cid).collection("fallRiskResults").stream()}
        mine = {rid: uid for rid, uid in traffic.results.items() if rid in results}
        assert all(results[rid]["userId"] == uid and results[rid]["status"] == "in-progress"
                   for rid, uid in mine.items())
        assert len(results) == len(mine) == PLAYERS * ROUNDS
        conversations = {c.id: c.to_dict() for c in tenancy.client_ref(cid).collection(assistant.CONVERSATIONS).stream()}
        ours = {c: u for c, u in traffic.conversations.items() if c in conversations}
        assert len(conversations) == len(ours) == PLAYERS * ROUNDS
        assert all(conversations[c]["uid"] == u for c, u in ours.items())
        keys = requests.get(f"{_hosting()}/api/clients/{cid}/api-keys", headers=w.tenant.admin.headers, timeout=30)
        assert len(keys.json()["apiKeys"]) == traffic.keys[cid] + 1  # and the one _world made


def _hosting() -> str:
    from support.tenants import BASE_URL

    return BASE_URL


def test_the_firebase_app_and_clients_are_made_once_when_the_first_requests_arrive_together():
    """A cold instance gets its first concurrent requests at once: each thread asked for the Firebase app and the
    Firestore client before either existed (functools.cache did not lock: "The default Firebase app already
    exists", or two clients)."""
    code = (
        "import sys, threading\n"
        "sys.setswitchinterval(1e-6)\n"
        "from wellness_api.core import firebase\n"
        "barrier, errors, made = threading.Barrier(32), [], set()\n"
        "def first():\n"
        "    barrier.wait()\n"
        "    try:\n"
        "        made.add(('app', id(firebase.app()))); made.add(('db', id(firebase.db())))\n"
        "    except Exception as exc:\n"
        "        errors.append(repr(exc))\n"
        "threads = [threading.Thread(target=first) for _ in range(32)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(len(errors), len(made))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "functions")}
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split() == ["0", "2"], out.stdout + out.stderr


def test_log_lines_of_concurrent_requests_are_written_whole():
    """sys.stdout is not thread-safe: two threads' writes must not overlap (a line Cloud Logging cannot parse)."""
    from wellness_api.core import logging as log

    class Overlaps(io.StringIO):
        def __init__(self):
            super().__init__()
            self.active, self.overlapped = 0, 0

        def write(self, text):
            self.active += 1
            if self.active > 1:
                self.overlapped += 1
            time.sleep(0.0001)  # a write that blocks (a full pipe to the log collector) lets another thread in
            written = super().write(text)
            self.active -= 1
            return written

    stream = Overlaps()
    barrier = threading.Barrier(16)

    def write():
        barrier.wait()
        for i in range(50):
            log.info("line", requestId=f"r{i}")

    with contextlib.redirect_stdout(stream):
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            threads = [threading.Thread(target=write) for _ in range(16)]
            [t.start() for t in threads]
            [t.join() for t in threads]
        finally:
            sys.setswitchinterval(old)
    assert stream.overlapped == 0
    assert all(json.loads(line)["message"] == "line" for line in stream.getvalue().splitlines())
