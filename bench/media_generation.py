"""Media-generation benchmarks (issue 13), run by bench/run.py inside the emulators.

1. Create -> available with the local generator, image and video: the job is queued on the real Tasks
   emulator and run by the `mediajobworker` function; against the render time of the same media in-process,
   so the ratio shows what the queue, the worker, Firestore and Storage add.
2. Worker throughput with 20 image jobs queued at once, against one job at a time.
3. Firestore reads and writes per job: the create request, the worker's run, and a redelivered task.
"""

import contextlib
import io
import statistics
import time
import uuid

RUNS = 3
QUEUED = 20
BODIES = {
    "image": {"mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
              "promptPreset": "image-exercise-thumbnail",
              "promptInput": {"promptText": "bench", "context": {"name": "Squat", "category": "strength"}}},
    "video": {"mediaType": "video", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
              "promptPreset": "exercise-cover-motion",
              "promptInput": {"promptText": "bench", "context": {"name": "Squat", "category": "strength"}}},
}
PATH = "/api/b2b/ai/media-generation/jobs"


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the table


def _setup():
    from support.tenants import Tenant

    tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
    # 20 jobs queued at once measure the worker's throughput: the per-client cap (default 3) is raised to its ceiling.
    tenant.configure("modules.mediaGeneration=true", "mediaGeneration.maxActiveJobs=20")
    return tenant


def _body(media_type: str, n: int) -> dict:
    body = dict(BODIES[media_type])
    body["promptInput"] = {**body["promptInput"], "promptText": f"bench run {n} {uuid.uuid4().hex[:6]}"}
    return body


def _wait(http, headers: dict, job_ids: list[str], timeout: float = 300) -> float:
    """Seconds until every job is available (raises if one fails or the time runs out)."""
    started, pending = time.perf_counter(), set(job_ids)
    while pending:
        if time.perf_counter() - started > timeout:
            raise RuntimeError(f"{len(pending)} media jobs not available after {timeout} s")
        for job_id in list(pending):
            job = http.get(f"{PATH}/{job_id}", headers=headers).json
            if job["status"] == "failed":
                raise RuntimeError(f"media job failed: {job['errorMessage']}")
            if job["status"] == "available":
                pending.discard(job_id)
        time.sleep(0.05)
    return time.perf_counter() - started


def _render_seconds(media_type: str) -> float:
    from wellness_api.media_generation import presets
    from wellness_api.media_generation.providers.base import GenerationRequest
    from wellness_api.media_generation.providers.local import LocalProvider

    preset = presets.PRESETS[BODIES[media_type]["promptPreset"]]
    request = GenerationRequest(media_type, "bench render", preset.defaults.model, preset.defaults.aspectRatio,
                                preset.defaults.resolution, preset.defaults.durationSeconds)
    started = time.perf_counter()
    LocalProvider().generate(request)
    return time.perf_counter() - started


def latency(http, headers: dict) -> None:
    rows = []
    for media_type in ("image", "video"):
        times = []
        with _quiet():
            for n in range(RUNS):
                posted = time.perf_counter()
                job_id = http.post(PATH, json=_body(media_type, n), headers=headers).json["job"]["jobId"]
                _wait(http, headers, [job_id])
                times.append(time.perf_counter() - posted)
        render = statistics.median(_render_seconds(media_type) for _ in range(RUNS))
        rows.append((media_type, statistics.median(times), render))
    print("\n== Media generation: create -> available (local generator, real Tasks emulator and worker)")
    print(f"{'job':8} {'median s':>9} {'render s':>9} {'ratio':>6}")
    for media_type, median, render in rows:
        print(f"{media_type:8} {median:>9.2f} {render:>9.2f} {median / render:>5.1f}x")


def throughput(http, headers: dict) -> None:
    with _quiet():
        started = time.perf_counter()
        job_ids = [http.post(PATH, json=_body("image", n), headers=headers).json["job"]["jobId"]
                   for n in range(QUEUED)]
        queued = time.perf_counter() - started
        _wait(http, headers, job_ids)
        total = time.perf_counter() - started
        single = time.perf_counter()
        _wait(http, headers, [http.post(PATH, json=_body("image", 99), headers=headers).json["job"]["jobId"]])
        one = time.perf_counter() - single
    print(f"\n== Media generation: worker throughput, {QUEUED} image jobs queued at once")
    print(f"queued in {queued:.2f} s; all available after {total:.2f} s: {QUEUED / total:.2f} jobs/s "
          f"against {1 / one:.2f} jobs/s one at a time ({QUEUED / total * one:.1f}x)")


def writes_per_job(tenant) -> None:
    from support.firestore_ops import counting
    from wellness_api.core.auth import Principal
    from wellness_api.media_generation import repository, service, worker
    from wellness_api.media_generation.models import CreateJobBody
    from wellness_api.media_generation.routes import app

    http = app.test_client()
    rows = []
    with _quiet(), counting() as ops:
        response = http.post(PATH, json=_body("image", 0), headers=tenant.admin.headers)
    rows.append(("POST create (queued)", response.status_code, ops.reads, ops.writes))
    principal = Principal(kind="user", client_id=tenant.client_id, uid=tenant.admin.uid, role="admin")
    job = service.new_job(tenant.client, principal, CreateJobBody.model_validate(_body("image", 1)))
    repository.put_job(tenant.client_id, job)
    task = {"clientId": tenant.client_id, "jobId": job["jobId"], "queueEventId": job["execution"]["queueEventId"]}
    with _quiet(), counting() as ops:
        outcome = worker.handle(task)
    rows.append((f"worker: queued -> {outcome}", 200, ops.reads, ops.writes))
    with _quiet(), counting() as ops:
        outcome = worker.handle(task)
    rows.append((f"worker: the task redelivered ({outcome})", 200, ops.reads, ops.writes))
    print("\n== Media generation: Firestore document reads / writes per job")
    print(f"{'step':45} {'status':>6} {'reads':>6} {'writes':>6}")
    for label, status, reads, writes in rows:
        print(f"{label:45} {status:>6} {reads:>6} {writes:>6}")
    print("(create: the admission marker and two count() aggregations of the client's active jobs read; the job, a "
          "counter shard and the marker written; the worker: claim, uploading, and one commit of available, the "
          "media asset and the counters.)")


def main() -> None:
    from wellness_api.media_generation.routes import app

    http = app.test_client()
    with _quiet():
        tenant = _setup()
        headers = tenant.admin.headers
        _wait(http, headers, [http.post(PATH, json=_body("image", -1), headers=headers).json["job"]["jobId"]])  # warm
    latency(http, headers)
    throughput(http, headers)
    writes_per_job(tenant)
