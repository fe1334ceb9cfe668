"""Capacity and cost model (issue 26, item 7): `make bench` measures, prices and writes docs/capacity.md.

1. Measured here, in this process against the emulators: for representative requests of every area (the load run's
   mix, a Vital Scan measurement, a media job with its worker delivery), the Firestore document reads and writes
   (bench/firestore_ops.counting, what Firestore bills) and the wall time each takes served by its area's Flask app
   (median of RUNS). The wall time is the instance time a request holds at concurrency 1.
2. Priced at the list prices in PRICES (each with its page and the day it was read): Firestore operations, Cloud
   Run functions (2nd gen bills as Cloud Run: vCPU-seconds and GiB-seconds of the instance while it serves, and
   requests), Cloud Tasks operations and Cloud Storage operations. Each function's vCPU and memory are read from
   functions/main.py as deployed (its __firebase_endpoint__); its requests per instance from bench/concurrency.py
   when that module gives measured figures, else from ASSUMED_CONCURRENCY_GAIN (stated in the document).
3. The ceilings that single documents and sharded counters set per tenant, computed from the code's constants
   against Firestore's guidance of about one sustained write per second per document, and what 10x and 100x the
   tenants or the traffic change.

The tables go into docs/capacity.md between the generated-section markers, stamped with the commit and the day
measured; the text around them is written by hand. `make bench BENCH_ARGS='--capacity'` runs only this section.
"""

import contextlib
import dataclasses
import datetime as dt
import io
import math
import pathlib
import re
import statistics
import subprocess
import time
import uuid
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "capacity.md"
BEGIN, END = "<!-- capacity:generated:begin -->", "<!-- capacity:generated:end -->"
RUNS = 5
BILLING_STEP_S = 0.1  # Cloud Run rounds an instance's billable time up to the next 100 ms
# Gen-2 functions without `cpu` get the gen-1 share of a vCPU for their memory (firebase-functions `cpu="gcf_gen1"`
# default), https://cloud.google.com/functions/docs/configuring/memory
GEN1_CPU = {128: 0.083, 256: 0.167, 512: 0.333, 1024: 0.583, 2048: 1.0, 4096: 2.0, 8192: 2.0}
# Throughput of one instance at its concurrency against concurrency 1, when bench/concurrency.py has no figure:
# issue 26's goal for I/O-bound functions (5x at 32); CPU-bound work (the rPPG measurement) gains nothing.
ASSUMED_CONCURRENCY_GAIN = {"io": 5.0, "cpu": 1.0}


@dataclasses.dataclass(frozen=True)
class Price:
    what: str
    usd: float
    per: str
    url: str
    read: str  # the day the page was read
    note: str = ""


READ_ON = "2026-11-26"
PRICES = {
    "firestore_read": Price("Firestore document read", 0.03 / 100_000, "document, us-central1 (regional)",
                            "https://cloud.google.com/firestore/pricing", READ_ON,
                            "$0.03 per 100,000; nam5 (multi-region) is $0.06"),
    "firestore_write": Price("Firestore document write (a delete priced as a write, the dearer)", 0.09 / 100_000,
                             "document, us-central1 (regional)", "https://cloud.google.com/firestore/pricing",
                             READ_ON, "$0.09 per 100,000 (deletes $0.01); nam5 is $0.18"),
    "vcpu_second": Price("Cloud Run functions CPU", 0.000024, "vCPU-second, Tier 1, request-based billing",
                         "https://cloud.google.com/run/pricing", READ_ON,
                         "2nd-gen functions are billed as Cloud Run services (https://cloud.google.com/functions/pricing)"),
    "gib_second": Price("Cloud Run functions memory", 0.0000025, "GiB-second, Tier 1, request-based billing",
                        "https://cloud.google.com/run/pricing", READ_ON),
    "request": Price("Cloud Run functions requests", 0.40 / 1_000_000, "request, Tier 1",
                     "https://cloud.google.com/run/pricing", READ_ON, "$0.40 per million"),
    "task_operation": Price("Cloud Tasks billable operation", 0.40 / 1_000_000,
                            "operation (API call or push delivery attempt, per 32 KB)",
                            "https://cloud.google.com/tasks/pricing", READ_ON, "$0.40 per million"),
    "storage_class_a": Price("Cloud Storage Class A operation (an object written)", 0.005 / 1_000,
                             "operation, Standard storage, us-central1", "https://cloud.google.com/storage/pricing",
                             READ_ON, "$0.005 per 1,000"),
    "storage_class_b": Price("Cloud Storage Class B operation (an object read)", 0.0004 / 1_000,
                             "operation, Standard storage, us-central1", "https://cloud.google.com/storage/pricing",
                             READ_ON, "$0.0004 per 1,000"),
}
FREE_TIERS = ("Free tiers are left out (per month: Cloud Run 180,000 vCPU-seconds, 360,000 GiB-seconds and 2 million "
              "requests; Cloud Tasks 1 million operations; per day: Firestore 50,000 reads and 20,000 writes): at a "
              "million requests they are a constant, not a rate.")


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep the platform's access logs out of the tables


# --------------------------------------------------------------------------------------------- measurement


@dataclasses.dataclass
class Measured:
    area: str
    function: str  # the Cloud Function (functions/main.py) that serves it
    request: str
    status: int
    reads: float
    writes: float
    seconds: float  # median wall time, in this process against the emulators
    kind: str = "io"  # "io" or "cpu": which concurrency gain applies
    task_operations: int = 0  # Cloud Tasks: enqueue + delivery attempt
    storage_writes: int = 0  # Cloud Storage Class A


def _measure(rows: list, area: str, function: str, request: str, call: Callable, *, kind: str = "io",
             task_operations: int = 0, storage_writes: int = 0, runs: int = RUNS) -> None:
    """`call()` (a fresh request each time) `runs` times: the medians of its reads, writes and wall time."""
    from support.firestore_ops import counting

    reads, writes, seconds, status = [], [], [], 0
    for _ in range(runs):
        with _quiet(), counting() as ops:
            started = time.perf_counter()
            status = call()
            seconds.append(time.perf_counter() - started)
        reads.append(ops.reads + ops.aggregation_reads)
        writes.append(ops.writes)
    if status >= 400:
        raise RuntimeError(f"capacity: {request} answered {status}: the model prices successful requests only")
    rows.append(Measured(area, function, request, status, statistics.median(reads), statistics.median(writes),
                         statistics.median(seconds), kind, task_operations, storage_writes))


def _status(response) -> int:
    response.get_data()  # a streamed answer is read to its end, inside the timing
    return response.status_code


def measure(runs: int = RUNS) -> list[Measured]:
    from bench.vital_scan import _partner
    from support.catalogue import seed_catalogue
    from support.fall_risk import quiz
    from support.tenants import Tenant
    from support.tokens import bearer
    from wellness_api.ai_move.routes import app as ai_move_app
    from wellness_api.analytics.routes import app as analytics_app
    from wellness_api.api_keys.routes import app as keys_app
    from wellness_api.assistant.routes import app as chat_app
    from wellness_api.content.routes import app as content_app
    from wellness_api.core.auth import Principal
    from wellness_api.fall_risk.routes import app as fall_risk_app
    from wellness_api.identity.routes import app_for as identity_app_for
    from wellness_api.lessons.routes import app as lessons_app
    from wellness_api.media_generation import repository as media_repo
    from wellness_api.media_generation import service as media_service
    from wellness_api.media_generation import worker as media_worker
    from wellness_api.media_generation.models import CreateJobBody
    from wellness_api.media_generation.routes import app as media_app
    from wellness_api.openapi.routes import app as platform_app
    from wellness_api.vital_scan.routes import app as vital_scan_app

    with _quiet():
        tenant = Tenant(f"capacity-{uuid.uuid4().hex[:8]}")
        tenant.configure("modules.aiMove=true", "modules.mediaGeneration=true", "modules.wellnessChat=true",
                         "modules.analytics=true", "wellnessChat.requestsPerMinute=10000",
                         "mediaGeneration.maxActiveJobs=20")
        catalogue = seed_catalogue(tenant.client, tenant.client_id, content_key="capacity-notice")
        lesson_id, exercise_id = catalogue.lesson_id, catalogue.exercise_id
        partner = _partner(points=100_000, rpm=6000)
    cid, player, admin = tenant.client_id, tenant.player.headers, tenant.admin.headers
    rows: list[Measured] = []

    platform = platform_app.test_client()
    _measure(rows, "platform", "platform", "GET /api/health", lambda: _status(platform.get("/api/health")), runs=runs)

    keys = keys_app.test_client()
    keys_path = f"/api/clients/{cid}/api-keys"
    secret = keys.post(keys_path, json={}, headers=admin).json["secret"]
    _measure(rows, "api keys", "apikeys", "GET api-keys", lambda: _status(keys.get(keys_path, headers=admin)),
             runs=runs)
    token_path = "/api/client/token/"
    identity = identity_app_for(token_path).test_client()
    body = {"clientId": cid, "clientSecret": secret}
    identity.post(token_path, json=body)  # the key's first use writes lastUsedAt: measure the steady state
    _measure(rows, "identity", "identity", "POST client/token",
             lambda: _status(identity.post(token_path, json=body)), runs=runs)

    lesson_http = lessons_app.test_client()
    _measure(rows, "lessons", "lessons", "GET lessons (player)",
             lambda: _status(lesson_http.get(f"/api/lessons?clientId={cid}", headers=player)), runs=runs)
    plays = []

    def play_started():
        plays.append(f"/api/lessons/{lesson_id}/plays/{uuid.uuid4().hex}")
        return _status(lesson_http.put(plays[-1], json={"status": "started"}, headers=player))

    _measure(rows, "lessons", "lessons", "PUT play (started)", play_started, runs=runs)
    done = iter(list(plays))
    _measure(rows, "lessons", "lessons", "PUT play (completed)",
             lambda: _status(lesson_http.put(next(done), json={"status": "completed"}, headers=player)), runs=runs)

    ai_move = ai_move_app.test_client()
    sessions = []

    def session_created():
        response = ai_move.post("/api/ai-move/sessions", headers=player,
                                json={"exerciseId": exercise_id, "exerciseType": "rep", "targetReps": 10})
        sessions.append(response.json["sessionId"])
        return response.status_code

    _measure(rows, "AI Move", "aimove", "POST session", session_created, runs=runs)
    finished = iter(list(sessions))
    _measure(rows, "AI Move", "aimove", "PATCH session (completed)", lambda: _status(ai_move.patch(
        f"/api/ai-move/sessions/{next(finished)}", headers=player,
        json={"status": "completed", "repsCompleted": 8, "durationSeconds": 20})), runs=runs)
    _measure(rows, "AI Move", "aimove", "GET statistics",
             lambda: _status(ai_move.get("/api/ai-move/statistics", headers=player)), runs=runs)

    vital = vital_scan_app.test_client()
    base = "/api/v1/vital-scan/sessions"
    vital.post(base, json={"userId": "capacity"}, headers=partner.headers)  # lastUsedAt, once
    tokens = []

    def scan_created():
        response = vital.post(base, json={"userId": f"capacity-{uuid.uuid4().hex[:6]}"}, headers=partner.headers)
        tokens.append(response.json["data"]["vitalScanUrl"].split("#scanToken=")[1])
        return response.status_code

    _measure(rows, "Vital Scan", "vitalscan", "POST session (partner)", scan_created, runs=runs)
    from support.rppg_synthetic import generate

    synthetic = generate(72, 15, "clean", seconds=30, fps=30)  # a clean 30 s trace, as bench/concurrency.py sends
    trace = {"fps": synthetic.fps, "t": synthetic.t, "rgb": synthetic.rgb}
    for token in tokens:  # the start is vitalscan's; only the measurement is vitalscanmeasure's
        vital.post("/api/hosted/vital-scan/start", headers=bearer(token))
    started = iter(list(tokens))
    _measure(rows, "Vital Scan", "vitalscanmeasure", "hosted measurement (30 s trace at 30 fps)", lambda: _status(
        vital.post("/api/hosted/vital-scan/measurement", json=trace, headers=bearer(next(started)))), kind="cpu",
        runs=runs)

    fall_risk = fall_risk_app.test_client()
    results = []

    def assessment():
        response = fall_risk.post("/api/fall-risk", json={}, headers=player)
        results.append(response.json["fallRiskResultId"])
        return response.status_code

    _measure(rows, "fall risk", "fallrisk", "POST fall-risk", assessment, runs=runs)
    answered = iter(list(results))
    _measure(rows, "fall risk", "fallrisk", "PUT quiz", lambda: _status(fall_risk.put(
        f"/api/fall-risk/results/{next(answered)}/quiz", json=quiz(), headers=player)), runs=runs)

    content_http = content_app.test_client()
    _measure(rows, "content", "content", "GET public item", lambda: _status(
        content_http.get(f"/api/client/{cid}/content/public/capacity-notice")), runs=runs)

    analytics = analytics_app.test_client()
    _measure(rows, "analytics", "analytics", "GET overview", lambda: _status(
        analytics.get(f"/api/client/{cid}/analytics/overview", headers=admin)), runs=runs)

    chat = chat_app.test_client()
    _measure(rows, "assistant", "assistant", "POST wellness-chat (new, local model)", lambda: _status(
        chat.post("/api/wellness-chat", json={"message": "How are my workouts going?"}, headers=player)), runs=runs)

    media = media_app.test_client()
    job_body = {"mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
                "promptPreset": "image-exercise-thumbnail",
                "promptInput": {"promptText": "capacity", "context": {"name": "Squat", "category": "strength"}}}
    jobs_path = "/api/b2b/ai/media-generation/jobs"

    def job_created():
        body = {**job_body, "promptInput": {**job_body["promptInput"], "promptText": uuid.uuid4().hex[:8]}}
        return _status(media.post(jobs_path, json=body, headers=admin))

    # A create enqueues one task (1 Cloud Tasks operation); its delivery is counted with the worker.
    _measure(rows, "media", "mediageneration", "POST job (image)", job_created, task_operations=1, runs=runs)
    principal = Principal(kind="user", client_id=cid, uid=tenant.admin.uid, role="admin")

    def delivered():
        job = media_service.new_job(tenant.client, principal, CreateJobBody.model_validate(job_body))
        media_repo.put_job(cid, job)
        media_worker.handle({"clientId": cid, "jobId": job["jobId"],
                             "queueEventId": job["execution"]["queueEventId"]})
        return 200

    # Not metered exactly: put_job (the setup) is inside the count; one write is taken off below.
    _measure(rows, "media", "mediajobworker", "task delivery: render + store (image)", delivered,
             task_operations=1, storage_writes=1, runs=runs)
    rows[-1].writes -= 1
    return rows


# ---------------------------------------------------------------------------------------------- the model


@dataclasses.dataclass(frozen=True)
class Function:
    name: str
    memory_mb: int
    vcpu: float
    concurrency: int
    max_instances: int | None
    timeout_s: int


def functions() -> dict[str, Function]:
    """Every function's resources as functions/main.py declares them (what `firebase deploy` reads)."""
    import main

    found = {}
    for name in dir(main):
        endpoint = getattr(getattr(main, name), "__firebase_endpoint__", None)
        if endpoint is None:
            continue
        memory = int(endpoint.availableMemoryMb or 256)
        cpu = endpoint.cpu if isinstance(endpoint.cpu, int | float) else GEN1_CPU.get(memory, 1.0)
        concurrency = endpoint.concurrency if isinstance(endpoint.concurrency, int) else (80 if cpu >= 1 else 1)
        max_instances = endpoint.maxInstances if isinstance(endpoint.maxInstances, int) else None
        timeout = endpoint.timeoutSeconds if isinstance(endpoint.timeoutSeconds, int) else 60
        found[name] = Function(name, memory, float(cpu), int(concurrency), max_instances, timeout)
    return found


def concurrency_gains() -> tuple[dict[str, float], str]:
    """(function -> throughput of one instance at its concurrency over concurrency 1, where the figure came from).
    bench/concurrency.py's measured ratios when it offers them (`measured_gains()`), else the stated assumption."""
    with contextlib.suppress(ImportError, AttributeError):
        from bench import concurrency

        gains = concurrency.measured_gains()
        if gains:
            return dict(gains), "measured by bench/concurrency.py"
    return {}, (f"assumed: {ASSUMED_CONCURRENCY_GAIN['io']:g}x for I/O-bound functions at their concurrency "
                f"(issue 26's goal at 32), {ASSUMED_CONCURRENCY_GAIN['cpu']:g}x for the rPPG measurement")


@dataclasses.dataclass
class Cost:
    row: Measured
    function: Function
    instance_seconds: float  # billed instance time per request
    firestore: float  # USD per million requests
    compute: float
    invocations: float
    tasks: float
    storage: float

    @property
    def total(self) -> float:
        return self.firestore + self.compute + self.invocations + self.tasks + self.storage


def price(rows: list[Measured], fns: dict[str, Function], gains: dict[str, float], concurrent: bool) -> list[Cost]:
    """USD per million requests of each measured request; `concurrent`: the function serves at its concurrency
    with the gain given (else one request per instance, the wall time billed whole)."""
    p = {k: v.usd for k, v in PRICES.items()}
    costs = []
    for row in rows:
        fn = fns[row.function]
        gain = 1.0
        if concurrent and fn.concurrency > 1:
            gain = min(fn.concurrency, gains.get(row.function, ASSUMED_CONCURRENCY_GAIN[row.kind]))
        # One request per instance: each request is an active period of its own, billed rounded up to 100 ms
        # (https://cloud.google.com/run/pricing); at concurrency the busy periods merge, and the rounding fades.
        seconds = row.seconds / gain if gain > 1 else math.ceil(row.seconds / BILLING_STEP_S) * BILLING_STEP_S
        million = 1_000_000
        costs.append(Cost(
            row, fn, seconds,
            firestore=million * (row.reads * p["firestore_read"] + row.writes * p["firestore_write"]),
            compute=million * seconds * (fn.vcpu * p["vcpu_second"] + fn.memory_mb / 1024 * p["gib_second"]),
            invocations=million * p["request"],
            tasks=million * row.task_operations * p["task_operation"],
            storage=million * row.storage_writes * p["storage_class_a"]))
    return costs


# ------------------------------------------------------------------------------------------------ ceilings


@dataclasses.dataclass(frozen=True)
class Ceiling:
    what: str
    documents: str
    where: str
    writes_per_event: float
    documents_per_key: int
    key: str  # what one set of documents belongs to (a tenant, a user, a tenant's month...)
    per_document: float = 0.0  # sustained writes/s one document takes by the code's design (0: Firestore's guidance)

    @property
    def events_per_second(self) -> float:
        per_document = self.per_document or SUSTAINED_WRITES_PER_DOCUMENT
        return per_document * self.documents_per_key / self.writes_per_event


# https://firebase.google.com/docs/firestore/best-practices (hotspots) and
# https://firebase.google.com/docs/firestore/solutions/counters ("about once per second" per document)
SUSTAINED_WRITES_PER_DOCUMENT = 1.0


def ceilings() -> list[Ceiling]:
    from wellness_api.assistant import repository as assistant
    from wellness_api.core import activity, ratelimit, usage
    from wellness_api.media_generation import repository as media
    from wellness_api.vital_scan import points
    from wellness_api.vital_scan import ratelimit as vital_rate

    rollup_shards = activity.AI_MOVE.counters.shards
    return [
        Ceiling("rate-limit counter of a key (core/ratelimit.py)",
                "rateLimits/{scope}:{key}:{window}:{shard}", "core/ratelimit.py SHARD_CAPACITY_PER_MINUTE",
                1, 1, f"shard: a limit gets one per {ratelimit.SHARD_CAPACITY_PER_MINUTE}/min, so it never binds "
                      "before the limit does", per_document=ratelimit.SHARD_CAPACITY_PER_MINUTE / 60),
        Ceiling("Vital Scan request rate (create, GET, DELETE of partner calls)",
                "clients/{id}/vitalScanRate/{window}_{shard}", "vital_scan/ratelimit.py MAX_SHARDS, REQUESTS_PER_SHARD",
                1, vital_rate.MAX_SHARDS, f"tenant ({vital_rate.MAX_SHARDS} shards at most: requestsPerMinute above "
                                          f"{vital_rate.MAX_SHARDS * vital_rate.REQUESTS_PER_SHARD} runs them hotter)"),
        Ceiling("Vital Scan points spent (session creates)", "clients/{id}/vitalScanPoints/{cycle}_{i}",
                "vital_scan/points.py SHARDS", 1, points.SHARDS, "tenant and cycle"),
        Ceiling("activity rollups per area (day and lifetime shard written together)",
                "clients/{id}/{area}Activity/{day}_{shard}, lifetime_{shard}", "core/activity.py, core/rollups.py",
                1, rollup_shards, "tenant and area (a user's events always land on one shard: one user's "
                                  "sustained rate is one event/s per area)"),
        Ceiling("usage metering (lessons requests)", "clients/{id}/usageShards/{day}_{shard}", "core/usage.py",
                1, usage.SHARDS, "tenant (all metered requests together)"),
        Ceiling("media activity counters (create, terminal state)", "clients/{id}/mediaGenerationActivity/{day}_{shard}",
                "media_generation/repository.py ACTIVITY", 2, media.ACTIVITY.shards, "tenant"),
        Ceiling("media admission marker (a create, and each job's terminal state)",
                "clients/{id}/mediaJobAdmission/active", "media_generation/repository.py ADMISSION", 2, 1, "tenant"),
        Ceiling("assistant token shards (usage settled per request)", "clients/{id}/assistantTokens/{month}_{nn}",
                "assistant/repository.py TOKEN_SHARDS", 1, assistant.TOKEN_SHARDS, "tenant and month"),
        Ceiling("assistant budget ledger (reserve, then settle, per request, on one shard)",
                "clients/{id}/assistantTokens/{month}_budget_{nn}", "assistant/repository.py LEDGER_SHARDS", 2,
                assistant.LEDGER_SHARDS, "tenant and month"),
        Ceiling("AI Move statistics of a user (a completed session)", "clients/{id}/aiMoveStatistics/{uid}",
                "ai_move/repository.py", 1, 1, "user"),
    ]


# ----------------------------------------------------------------------------------------------- document


def _usd(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.1 else f"${value:.3f}"


def _table(costs: list[Cost]) -> list[str]:
    lines = ["| area | request | function (vCPU, memory) | reads | writes | ms | instance s | Firestore | "
             "instance | requests | Tasks + Storage | total |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in costs:
        r, fn = c.row, c.function
        lines.append(f"| {r.area} | {r.request} | {fn.name} ({fn.vcpu:g}, {fn.memory_mb} MB) | {r.reads:g} | "
                     f"{r.writes:g} | {r.seconds * 1000:.0f} | {c.instance_seconds:.3f} | {_usd(c.firestore)} | "
                     f"{_usd(c.compute)} | {_usd(c.invocations)} | {_usd(c.tasks + c.storage)} | "
                     f"**{_usd(c.total)}** |")
    return lines


def _areas(single: list[Cost], concurrent: list[Cost]) -> list[str]:
    lines = ["| area | requests measured | USD per million requests, one request per instance | "
             "at the functions' concurrency | Firestore share |", "|---|---:|---:|---:|---:|"]
    areas = list(dict.fromkeys(c.row.area for c in single))
    for area in areas:
        one = [c for c in single if c.row.area == area]
        many = [c for c in concurrent if c.row.area == area]
        total1 = statistics.mean(c.total for c in one)
        total_n = statistics.mean(c.total for c in many)
        share = statistics.mean(c.firestore for c in many) / total_n if total_n else 0
        lines.append(f"| {area} | {len(one)} | {_usd(total1)} | {_usd(total_n)} | {share:.0%} |")
    return lines


def _ceilings_table(found: list[Ceiling]) -> list[str]:
    lines = ["| what | documents | writes per event | documents per key | sustained events/s per key | key | "
             "set in |", "|---|---|---:|---:|---:|---|---|"]
    for c in found:
        lines.append(f"| {c.what} | `{c.documents}` | {c.writes_per_event:g} | {c.documents_per_key} | "
                     f"{c.events_per_second:g} | {c.key} | {c.where} |")
    return lines


def _queue_dispatches(fns_module) -> int | None:
    endpoint = getattr(getattr(fns_module, "mediajobworker", None), "__firebase_endpoint__", None)
    with contextlib.suppress(AttributeError):
        return int(endpoint.taskQueueTrigger.rateLimits.maxConcurrentDispatches)
    return None


def _scale(costs: list[Cost], fns: dict[str, Function], found: list[Ceiling], gains: dict[str, float]) -> list[str]:
    """Instances each function needs at 1x, 10x and 100x the baseline, and which per-tenant ceilings each
    multiple of one tenant's traffic passes."""
    import main

    by_function: dict[str, list[Cost]] = {}
    for c in costs:
        by_function.setdefault(c.function.name, []).append(c)
    base = BASE_TENANTS * BASE_TENANT_RPS
    lines = [f"Baseline (1x, an assumption to scale from): {BASE_TENANTS} tenants, each at a peak of "
             f"{BASE_TENANT_RPS:g} requests/s on every function, so {base:g} requests/s per function. 10x and 100x "
             "the tenants or 10x and 100x each tenant's traffic need the same instances (Little's law: requests/s x "
             "instance seconds per request / requests per instance); max_instances as deployed:", "",
             "| function | concurrency | instance s per request | 1x | 10x | 100x | max_instances |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, group in sorted(by_function.items()):
        fn = fns[name]
        seconds = statistics.mean(c.row.seconds for c in group)
        gain = 1.0
        if fn.concurrency > 1:
            gain = min(fn.concurrency, gains.get(name, ASSUMED_CONCURRENCY_GAIN[group[0].row.kind]))
        need = [math.ceil(base * k * seconds / gain) for k in (1, 10, 100)]
        over = [f"**{n}**" if fn.max_instances is not None and n > fn.max_instances else str(n) for n in need]
        lines.append(f"| {name} | {fn.concurrency} | {seconds / gain:.3f} | {' | '.join(over)} | "
                     f"{fn.max_instances if fn.max_instances is not None else 'unset'} |")
    dispatches = _queue_dispatches(main)
    worker = by_function.get("mediajobworker")
    if dispatches and worker:
        render_s = statistics.mean(c.row.seconds for c in worker)
        lines += ["", f"The media queue runs {dispatches} deliveries at once for all tenants together "
                      f"(max_concurrent_dispatches): {dispatches / render_s:.1f} image jobs/s with this stack's "
                      f"fake vendor ({render_s:.2f} s each); a real vendor's render time divides that."]
    lines += ["", f"Per-tenant ceilings against one tenant's sustained rate at 1x ({BASE_TENANT_RPS:g} events/s of "
                  "each kind), 10x and 100x:", "", "| ceiling | events/s | 1x | 10x | 100x |",
              "|---|---:|---|---|---|"]
    for c in sorted(found, key=lambda c: c.events_per_second):
        marks = ["within" if BASE_TENANT_RPS * k <= c.events_per_second else "**over**" for k in (1, 10, 100)]
        if c.key.startswith("user"):  # one person's own pace, whatever the tenant's traffic
            marks = ["(one user's own rate)", "", ""]
        elif c.per_document:  # shards are added with the limit: the limit binds first
            marks = ["(shards follow the limit)", "", ""]
        lines.append(f"| {c.what} (per {c.key.split(' (')[0].split(':')[0]}) | {c.events_per_second:g} | "
                     + " | ".join(marks) + " |")
    return lines


BASE_TENANTS = 100
BASE_TENANT_RPS = 0.2


def render(rows: list[Measured], commit: str, day: str) -> str:
    fns = functions()
    gains, source = concurrency_gains()
    single = price(rows, fns, gains, concurrent=False)
    concurrent = price(rows, fns, gains, concurrent=True)
    found = ceilings()
    out = [BEGIN, "", f"_Generated by `make bench` (bench/capacity.py) at commit `{commit}`, measured {day}. "
                      "Do not edit between the markers._", "",
           "### Prices used", "", "| item | USD | per | source (read on) |", "|---|---:|---|---|"]
    for item in PRICES.values():
        out.append(f"| {item.what} | {item.usd:.10g} | {item.per}{'; ' + item.note if item.note else ''} | "
                   f"<{item.url}> ({item.read}) |")
    out += ["", FREE_TIERS, "", "### Cost per million requests, by request", "",
            f"Reads and writes counted as Firestore bills them; ms: median wall time of {RUNS} served in-process "
            "against the emulators. Instance s: what one request is billed with one request per instance (its wall time "
            "rounded up to 100 ms), as the functions are deployed while their concurrency is 1:", ""]
    out += _table(single)
    out += ["", f"### Cost per million requests, by area (concurrency gain {source})", ""]
    out += _areas(single, concurrent)
    out += ["", "Functions as deployed (functions/main.py): " + ", ".join(
        f"{fn.name} {fn.vcpu:g} vCPU / {fn.memory_mb} MB / concurrency {fn.concurrency}"
        for fn in sorted(fns.values(), key=lambda f: f.name)) + ".", "",
            "### Ceilings per tenant set by single documents and sharded counters", "",
            f"At {SUSTAINED_WRITES_PER_DOCUMENT:g} sustained write per second per document (Firestore's guidance; "
            "bursts above it are absorbed, sustained rates above it raise contention and latency):", ""]
    out += _ceilings_table(found)
    out += ["", "### 1x, 10x, 100x", ""]
    out += _scale(single, fns, found, gains)
    out += ["", END]
    return "\n".join(out)


def write_doc(text: str, path: pathlib.Path = DOC) -> None:
    """Replace what lies between the markers (the hand-written text around them stays)."""
    current = path.read_text() if path.exists() else f"# Capacity and cost\n\n{BEGIN}\n{END}\n"
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(current):
        current = current.rstrip("\n") + f"\n\n{BEGIN}\n{END}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(pattern.sub(lambda _: text, current, count=1))


def _commit() -> str:
    """The commit measured; `+changes` when the code measured (functions/, bench/) differs from it."""
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    changed = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "functions", "bench"], cwd=ROOT).returncode
    return (out.stdout.strip() or "unknown") + ("+changes" if changed else "")


def main(runs: int = RUNS) -> None:
    rows = measure(runs)
    text = render(rows, _commit(), dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"))
    write_doc(text)
    print("\n== Capacity and cost model (written to docs/capacity.md)")
    for line in text.splitlines()[1:-1]:
        print(line)
