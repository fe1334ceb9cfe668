"""`media presets | jobs | retry`: the generation presets, a client's jobs, and re-queueing one (a job Cloud Tasks
gave up on stays processing with an expired lease until someone retries it)."""

from ..cli import CliError, existing_client


def media_presets(args) -> dict:
    import dataclasses

    from ...media_generation import presets

    return {"presets": [{"key": p.key, "mediaType": p.media_type, "template": p.template,
                         "policyProfile": p.policy_profile, "billingPresetKey": p.billing_preset_key,
                         "defaults": dataclasses.asdict(p.defaults)} for p in presets.PRESETS.values()]}


def media_jobs(args) -> dict:
    import pydantic

    from ...media_generation import service
    from ...media_generation.models import JobsQuery

    try:
        query = JobsQuery.model_validate({"status": args.status, "limit": args.limit, "query": args.query})
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise CliError(f"--{first['loc'][0]}: {first['msg']}") from None
    page = service.list_jobs(existing_client(args.client_id), query)
    keys = ("jobId", "status", "mediaType", "promptPreset", "targetEntityId", "attemptCount", "errorMessage",
            "createdAt", "updatedAt")
    return {"jobs": [{k: job[k] for k in keys} for job in page["jobs"]], "nextStartAfter": page["nextStartAfter"]}


def media_retry(args) -> dict:
    from ...core.errors import ApiError
    from ...media_generation import service

    try:
        status, body = service.retry_job(existing_client(args.client_id), args.job_id)
    except ApiError as exc:
        raise CliError(exc.message) from None
    return {"jobId": args.job_id, "status": body["job"]["status"], "queued": status == 200,
            "queueEventId": body["execution"]["queueEventId"]}


def register(groups) -> None:
    media = groups.add_parser("media", help="AI media generation").add_subparsers(dest="command", required=True)
    media.add_parser("presets", help="the generation presets and their defaults").set_defaults(handler=media_presets)
    p = media.add_parser("jobs", help="a client's jobs, newest first")
    p.add_argument("--client-id", required=True)
    p.add_argument("--status", choices=("queued", "processing", "uploading", "available", "failed", "attached"))
    p.add_argument("--query", help="text in the job id, prompt text, target entity id or model")
    p.add_argument("--limit", type=int, default=20)
    p.set_defaults(handler=media_jobs)
    p = media.add_parser("retry", help="queue a failed, finished or stalled job again")
    p.add_argument("--client-id", required=True)
    p.add_argument("--job-id", required=True)
    p.set_defaults(handler=media_retry)
