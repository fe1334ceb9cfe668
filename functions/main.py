"""Cloud Functions entry points: one HTTPS function per area of the spec, plus task-queue workers.

Each function imports its area inside the call, so a cold start pays only for the area it serves
(measured by `make bench`). Hosting rewrites route every spec path to its area's function
(firebase.json).
"""

import dataclasses
import os

import flask
import functions_framework
from firebase_functions import https_fn, options, scheduler_fn, tasks_fn

from wellness_api.core import config

options.set_global_options(region="us-central1")


@dataclasses.dataclass(frozen=True)
class Size:
    cpu: float
    concurrency: int
    memory_mb: int
    timeout_sec: int
    max_instances: int
    min_instances: int = 0

    def options(self) -> dict:
        return {"cpu": self.cpu, "concurrency": self.concurrency, "memory": options.MemoryOption(self.memory_mb),
                "timeout_sec": self.timeout_sec, "max_instances": self.max_instances,
                "min_instances": self.min_instances}


# Sizes from measurement (`make bench BENCH_ARGS='--concurrency'`, the resource probe); the full table and its
# derivation: docs/deploy.md, "Function sizes". cpu ms = CPU per request measured at concurrency 8 in one process.
# - concurrency: one CPU saturates near 1000 / cpu-ms requests a second (the bench: throughput flat from 8 to 32 at
#   4-9 ms of CPU each); at production's 50-100 ms per request that is 10-15 in flight. 20 absorbs a burst at the cost
#   of at most 20 x ~6 ms of waiting for the GIL; the health check (2 ms) 40; analytics (21 ms) 8; the assistant's
#   streams wait on the model for seconds (40); the rPPG measurement (up to 0.3 s of CPU) 4, in its own function.
# - memory: (base RSS 86-92 MiB, 162 with numpy and scipy, + 40 for gunicorn's master + concurrency x the probe's
#   worst per-request peak growth) x 1.25, rounded up to a Cloud Run size.
# - timeout: max(30 s, 10 x the bench's p99 at 32, 3 x the longest legitimate request); the health check 10 s;
#   the assistant's streams 300 s; the media worker the tasks' dispatch deadline.
# - max_instances: ceil(design peak req/s x cpu-s per request / 0.6 CPU target x 1.5), at least 5: 1,000 req/s per
#   function (analytics 100, health 200, measurements 20 at 0.3 s, 200 concurrent chat streams).
# - min_instances 1 only for the measurement: its cold start (numpy and scipy, about 3 s) would keep a person who has
#   just held still for 30 s waiting; one idle instance (1 vCPU, 512 MiB) costs about $10 a month.
SIZES = {
    "platform": Size(cpu=1, concurrency=40, memory_mb=256, timeout_sec=10, max_instances=5),
    "apikeys": Size(cpu=1, concurrency=20, memory_mb=512, timeout_sec=30, max_instances=11),
    "identity": Size(cpu=1, concurrency=20, memory_mb=256, timeout_sec=30, max_instances=9),
    "lessons": Size(cpu=1, concurrency=20, memory_mb=512, timeout_sec=30, max_instances=15),
    "vitalscan": Size(cpu=1, concurrency=20, memory_mb=256, timeout_sec=30, max_instances=19),
    "vitalscanmeasure": Size(cpu=1, concurrency=4, memory_mb=512, timeout_sec=30, max_instances=15, min_instances=1),
    "aimove": Size(cpu=1, concurrency=20, memory_mb=256, timeout_sec=30, max_instances=11),
    "fallrisk": Size(cpu=1, concurrency=20, memory_mb=256, timeout_sec=30, max_instances=15),
    "content": Size(cpu=1, concurrency=20, memory_mb=256, timeout_sec=30, max_instances=15),
    "mediageneration": Size(cpu=1, concurrency=20, memory_mb=512, timeout_sec=30, max_instances=11),
    "analytics": Size(cpu=1, concurrency=8, memory_mb=256, timeout_sec=30, max_instances=6),
    "assistant": Size(cpu=1, concurrency=40, memory_mb=1024, timeout_sec=300, max_instances=8),
    # Privacy requests are rare (an admin's or a person's click); the download streams an archive in 256 KiB chunks.
    "privacy": Size(cpu=1, concurrency=20, memory_mb=256, timeout_sec=60, max_instances=5),
}


def _threads_for_this_function() -> None:
    """Give the functions framework one thread per request Cloud Run may send at once.

    Deployed, the framework serves the function with gunicorn's gthread worker and THREADS threads, by default 4 per
    CPU: with concurrency 40 and one CPU, 36 requests would wait in gunicorn's queue behind four. The framework reads
    THREADS after it has imported this module; a value set for the deployment wins."""
    size = SIZES.get(os.environ.get("FUNCTION_TARGET", ""))
    if size is not None:
        os.environ.setdefault("THREADS", str(size.concurrency))


_threads_for_this_function()


@https_fn.on_request(**SIZES["platform"].options())
def platform(req: https_fn.Request) -> https_fn.Response:
    """GET /api/health and GET /api/openapi.json (the document imports every area only when asked for)."""
    from wellness_api.core.http import dispatch
    from wellness_api.openapi.routes import app

    return dispatch(app, req)


@https_fn.on_request(**SIZES["apikeys"].options())
def apikeys(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.api_keys.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


@https_fn.on_request(**SIZES["identity"].options(), secrets=[config.CLIENT_JWT_SECRET])
def identity(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.identity.routes import app_for

    # Two apps, one per error envelope: /api/auth/custom-token ({code, error}) and the rest ({error}).
    return dispatch(app_for(req.path), req)


@https_fn.on_request(**SIZES["lessons"].options(), secrets=[config.CLIENT_JWT_SECRET])
def lessons(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.lessons.routes import app

    return dispatch(app, req)


@https_fn.on_request(**SIZES["vitalscan"].options())
def vitalscan(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.vital_scan.routes import app

    return dispatch(app, req)


# POST /api/hosted/vital-scan/measurement only (firebase.json): the rPPG engine's CPU gets its own concurrency.
@https_fn.on_request(**SIZES["vitalscanmeasure"].options())
def vitalscanmeasure(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.vital_scan.routes import app

    return dispatch(app, req)


@https_fn.on_request(**SIZES["aimove"].options())
def aimove(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.ai_move.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


@https_fn.on_request(**SIZES["fallrisk"].options(), secrets=[config.CLIENT_JWT_SECRET])
def fallrisk(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.fall_risk.routes import app

    return dispatch(app, req)


@https_fn.on_request(**SIZES["content"].options())
def content(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.content.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


@https_fn.on_request(**SIZES["mediageneration"].options())
def mediageneration(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.media_generation.routes import app

    return dispatch(app, req)


@https_fn.on_request(**SIZES["analytics"].options())
def analytics(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.analytics.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


# The wellness chat and the OpenAI-compatible proxy stream answers for as long as the model takes (minutes at most).
@https_fn.on_request(**SIZES["assistant"].options(), secrets=[config.LLM_API_KEY])
def assistant(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.assistant.routes import app_for
    from wellness_api.core.http import dispatch

    # Two apps, one per error envelope: the chat ({error}) and /api/openai/ (OpenAI's format).
    return dispatch(app_for(req.path), req)


# The worker of media-generation jobs (media_generation/worker.py). Its timeout matches the tasks' dispatch
# deadline (media_generation/queue.py): a vendor's video may take minutes. Failed deliveries come back with
# backoff; a job whose worker died is taken over once its lease runs out.
@tasks_fn.on_task_dispatched(
    retry_config=options.RetryConfig(max_attempts=6, min_backoff_seconds=10, max_backoff_seconds=300,
                                     max_doublings=4),
    rate_limits=options.RateLimits(max_concurrent_dispatches=4, max_dispatches_per_second=10),
    # One job at a time per instance: the local generator renders with the CPU; the queue's dispatches bound the rest.
    memory=options.MemoryOption.GB_1, timeout_sec=900, cpu=1, concurrency=1, max_instances=4,
    secrets=[config.MEDIA_IMAGE_API_KEY, config.MEDIA_VIDEO_API_KEY],
)
def mediajobworker(req: tasks_fn.CallableRequest) -> dict:
    from wellness_api.media_generation import worker

    try:
        return {"outcome": worker.handle(req.data)}
    except worker.LeaseHeld:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.UNAVAILABLE, "another delivery is running") from None


@https_fn.on_request(**SIZES["privacy"].options(), secrets=[config.CLIENT_JWT_SECRET])
def privacy(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.privacy.routes import app

    return dispatch(app, req)


# The worker of privacy requests (privacy/worker.py): an export or an erasure of one person, area by area. A
# redelivered or interrupted task resumes where the last one stopped; the fifth failure marks the request failed.
@tasks_fn.on_task_dispatched(
    retry_config=options.RetryConfig(max_attempts=5, min_backoff_seconds=10, max_backoff_seconds=300,
                                     max_doublings=4),
    rate_limits=options.RateLimits(max_concurrent_dispatches=2, max_dispatches_per_second=5),
    memory=options.MemoryOption.GB_1, timeout_sec=540, cpu=1, concurrency=1, max_instances=2,
)
def privacyworker(req: tasks_fn.CallableRequest) -> dict:
    from wellness_api.privacy import worker

    try:
        return {"outcome": worker.handle(req.data)}
    except worker.LeaseHeld:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.UNAVAILABLE, "another delivery is running") from None


@scheduler_fn.on_schedule(schedule="every 15 minutes", timeout_sec=300, memory=options.MemoryOption.MB_256,
                          max_instances=1)
def vitalscansweep(event: scheduler_fn.ScheduledEvent) -> None:
    """Marks unfinished Vital Scan sessions past their two-hour window expired (GET sees it at once anyway)."""
    from wellness_api.vital_scan import service

    service.sweep_expired()


@scheduler_fn.on_schedule(schedule="every 15 minutes", timeout_sec=540, memory=options.MemoryOption.MB_256,
                          max_instances=1)
def analyticscompact(event: scheduler_fn.ScheduledEvent) -> None:
    """Folds the activity rollups' shards into one document per client and day, which analytics then reads."""
    from wellness_api.core import activity

    activity.compact_all()


@scheduler_fn.on_schedule(schedule="every 60 minutes", timeout_sec=540, memory=options.MemoryOption.MB_256,
                          max_instances=1)
def privacyretention(event: scheduler_fn.ScheduledEvent) -> None:
    """Deletes health data older than its client's retention period (privacy/retention.py); bounded per run,
    resumed by the next run from where it stopped."""
    from wellness_api.privacy import retention

    retention.run_scheduled()


def _serve_paths_the_runtime_cannot_route() -> None:
    """Hand paths the functions runtime's own router refuses to this process's function.

    The runtime routes every request through a `/<path:path>` rule whose pattern stops at a line break, so
    a path segment holding one (`/api/clients/%0A/api-keys`, found by the fuzz run) got the runtime's HTML
    404 before any area ran. Its 404 handler now calls the function this process serves
    (FUNCTION_TARGET), whose area answers in its own envelope. Outside the runtime this registers nothing.
    """
    function = globals().get(os.environ.get("FUNCTION_TARGET", ""))
    endpoint = getattr(function, "__firebase_endpoint__", None)
    if endpoint is None or endpoint.httpsTrigger is None:
        return  # not an HTTPS function (a scheduled or task worker), or not inside the runtime

    @functions_framework.errorhandler(404)
    def _unroutable(_exc):
        return function(flask.request)


_serve_paths_the_runtime_cannot_route()
