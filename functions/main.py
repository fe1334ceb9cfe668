"""Cloud Functions entry points: one HTTPS function per area of the spec, plus task-queue workers.

Each function imports its area inside the call, so a cold start pays only for the area it serves
(measured by `make bench`). Hosting rewrites route every spec path to its area's function
(firebase.json).
"""

import os

import flask
import functions_framework
from firebase_functions import https_fn, options, scheduler_fn, tasks_fn

from wellness_api.core import config

options.set_global_options(region="us-central1", max_instances=20)


@https_fn.on_request(memory=options.MemoryOption.MB_256, timeout_sec=10)
def platform(req: https_fn.Request) -> https_fn.Response:
    """GET /api/health and GET /api/openapi.json (the document imports every area only when asked for)."""
    from wellness_api.core.http import dispatch
    from wellness_api.openapi.routes import app

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30)
def apikeys(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.api_keys.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30, secrets=[config.CLIENT_JWT_SECRET])
def identity(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.identity.routes import app_for

    # Two apps, one per error envelope: /api/auth/custom-token ({code, error}) and the rest ({error}).
    return dispatch(app_for(req.path), req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=60, secrets=[config.CLIENT_JWT_SECRET])
def lessons(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.lessons.routes import app

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30)
def vitalscan(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.vital_scan.routes import app

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30)
def aimove(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.ai_move.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30, secrets=[config.CLIENT_JWT_SECRET])
def fallrisk(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.fall_risk.routes import app

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30)
def content(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.content.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30)
def mediageneration(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.core.http import dispatch
    from wellness_api.media_generation.routes import app

    return dispatch(app, req)


@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=30)
def analytics(req: https_fn.Request) -> https_fn.Response:
    from wellness_api.analytics.routes import app
    from wellness_api.core.http import dispatch

    return dispatch(app, req)


# The wellness chat and the OpenAI-compatible proxy stream answers for as long as the model takes (minutes at most).
@https_fn.on_request(memory=options.MemoryOption.MB_512, timeout_sec=300, secrets=[config.LLM_API_KEY])
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
    memory=options.MemoryOption.GB_1, timeout_sec=900,
    secrets=[config.MEDIA_IMAGE_API_KEY, config.MEDIA_VIDEO_API_KEY],
)
def mediajobworker(req: tasks_fn.CallableRequest) -> dict:
    from wellness_api.media_generation import worker

    try:
        return {"outcome": worker.handle(req.data)}
    except worker.LeaseHeld:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.UNAVAILABLE, "another delivery is running") from None


@scheduler_fn.on_schedule(schedule="every 15 minutes", timeout_sec=300, memory=options.MemoryOption.MB_256)
def vitalscansweep(event: scheduler_fn.ScheduledEvent) -> None:
    """Marks unfinished Vital Scan sessions past their two-hour window expired (GET sees it at once anyway)."""
    from wellness_api.vital_scan import service

    service.sweep_expired()


@scheduler_fn.on_schedule(schedule="every 15 minutes", timeout_sec=540, memory=options.MemoryOption.MB_256)
def analyticscompact(event: scheduler_fn.ScheduledEvent) -> None:
    """Folds the activity rollups' shards into one document per client and day, which analytics then reads."""
    from wellness_api.core import activity

    activity.compact_all()


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
