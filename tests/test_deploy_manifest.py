"""What `firebase deploy` would read, checked offline: the functions manifest against firebase.json and the code.

firebase-tools discovers Python functions by loading functions/main.py with the SDK's serving module and reading
the manifest it prints (`firebase_functions.private.serving.functions_as_yaml(get_functions())`); this module
builds the same manifest in-process and checks it: every Hosting rewrite reaches an HTTPS function in its region,
every HTTPS function is reached, every secret the code reads is bound to the functions that run that code (and
to no other), every scheduled function has its intended schedule and retry, every task-queue function its retry
and rate limits and the deadline its enqueuer sets, and the limits firebase-tools itself enforces at deploy.
"""

import copy
import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.test_functions import _function_of
from wellness_api.media_generation import queue as media_queue
from wellness_api.media_generation import worker as media_worker
from wellness_api.openapi import document
from wellness_api.privacy import queue as privacy_queue
from wellness_api.privacy import worker as privacy_worker

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "functions" / "wellness_api"

# The modules that read a secret, and the functions that run them (why they need the secret bound).
SECRET_READERS = {
    "media_generation/providers/registry.py": {"mediajobworker"},  # renders jobs; the HTTPS function only queues them
    "assistant/providers/registry.py": {"assistant"},
    "privacy/keys.py": {"privacy"},  # the audit trail's keyed hashes; the worker only copies them
    # Signs client tokens (identity) and verifies them: every function serving an operation that accepts them.
    "core/client_tokens.py": None,
    "core/config.py": set(),  # declares them
}

# Each scheduled function's intended trigger. Cloud Scheduler's "every N minutes" does not depend on a time zone; a
# schedule at a time of day must name one. retryConfig {} = no retry: the next run redoes what one missed.
SCHEDULES = {
    "vitalscansweep": {"schedule": "every 15 minutes", "retryConfig": {}},
    "analyticscompact": {"schedule": "every 15 minutes", "retryConfig": {}},
    "privacyretention": {"schedule": "every 60 minutes", "retryConfig": {}},
}
# https://cloud.google.com/functions/docs/configuring/timeout, firebase-tools deploy/functions/validate.js
MAX_TIMEOUT = {"httpsTrigger": 3600, "taskQueueTrigger": 1800, "scheduleTrigger": 1800}
GEN1_CPU = {128: 0.0833, 256: 0.1666, 512: 0.3333, 1024: 0.5833, 2048: 1, 4096: 2, 8192: 2, 16384: 4, 32768: 8}


@pytest.fixture(scope="module")
def manifest():
    from firebase_functions.private import serving

    mp = pytest.MonkeyPatch()
    mp.chdir(ROOT / "functions")  # get_functions() loads main.py from the working directory, as the CLI runs it
    mp.setattr(sys, "path", list(sys.path))  # and puts that directory first on the path
    try:
        return yaml.safe_load(serving.functions_as_yaml(serving.get_functions()))
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def rewrites():
    return [r for r in json.loads((ROOT / "firebase.json").read_text())["hosting"]["rewrites"] if "function" in r]


def _trigger(endpoint: dict) -> str:
    return next(k for k in endpoint if k.endswith("Trigger"))


def _sample(source: str) -> str:
    return source.replace("**", "x/y").replace("*", "x")


def _matches(source: str, path: str) -> bool:
    pattern = re.escape(source).replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
    return re.fullmatch(pattern, path) is not None


def rewrite_problems(manifest: dict, rewrites: list[dict]) -> list[str]:
    endpoints = manifest["endpoints"]
    wrong = []
    for rewrite in rewrites:
        fid, region = rewrite["function"]["functionId"], rewrite["function"].get("region", "us-central1")
        endpoint = endpoints.get(fid)
        if endpoint is None:
            wrong.append(f"{rewrite['source']} -> {fid}: main.py declares no function {fid} (declared: {sorted(endpoints)})")
        elif region not in endpoint["region"]:
            wrong.append(f"{rewrite['source']} -> {fid}: {fid} is deployed to {endpoint['region']}, not {region}: set "
                         f"the rewrite's region or the function's")
        elif "httpsTrigger" not in endpoint:
            wrong.append(f"{rewrite['source']} -> {fid}: {fid} is a {_trigger(endpoint)} function; Hosting reaches "
                         "only @https_fn.on_request functions")
    reached = {r["function"]["functionId"] for r in rewrites}
    wrong += [f"{name}: no Hosting rewrite reaches this HTTPS function; add one to firebase.json (before the catch-all "
              "/api/**) for the paths it serves" for name, e in endpoints.items() if "httpsTrigger" in e and name not in reached]
    # Hosting uses the first matching rewrite.
    wrong += [f"{r['source']} -> {r['function']['functionId']} is shadowed by the earlier {earlier['source']}: move it "
              "before the broader one" for i, r in enumerate(rewrites) for earlier in rewrites[:i]
              if _matches(earlier["source"], _sample(r["source"]))
              and earlier["function"]["functionId"] != r["function"]["functionId"]]
    return wrong


def test_every_rewrite_reaches_an_https_function_in_its_region_and_every_https_function_a_rewrite(manifest, rewrites):
    assert rewrite_problems(manifest, rewrites) == []


def test_every_operation_of_the_spec_reaches_a_function(manifest):
    missing = [f"{op.method} {op.path} -> {_function_of(op.path)}" for op in document.operations()
               if _function_of(op.path) not in manifest["endpoints"]]
    assert not missing, missing


def _secret_params(manifest) -> set[str]:
    return {p["name"] for p in manifest.get("params", []) if p.get("type") == "secret"}


def _bound(manifest) -> dict[str, set[str]]:
    return {name: {s["key"] for s in e.get("secretEnvironmentVariables") or []} for name, e in manifest["endpoints"].items()}


def _client_token_functions() -> set[str]:
    accepting = {_function_of(op.path) for op in document.operations() if "clientToken" in op.security}
    return accepting | {_function_of("/api/client/token")}


def secret_problems(manifest: dict) -> list[str]:
    secrets = _secret_params(manifest)
    bound = _bound(manifest)
    wrong = [f"{key}: bound to a function but not declared with params.SecretParam"
             for key in sorted({key for keys in bound.values() for key in keys} - secrets)]
    readers: dict[str, set[str]] = {}
    reads = re.compile(r"config\.(" + "|".join(sorted(secrets)) + r")\b|config\.client_jwt_secret\(")
    for path in sorted(PACKAGE.rglob("*.py")):
        found = {m.group(1) or "CLIENT_JWT_SECRET" for m in reads.finditer(path.read_text())}
        if found:
            readers[str(path.relative_to(PACKAGE))] = found
    wrong += [f"{module} reads {sorted(readers[module])}: add it to SECRET_READERS with the functions that run it, and "
              "the secret to their secrets= in main.py" for module in sorted(set(readers) - set(SECRET_READERS))]
    needed: dict[str, set[str]] = {name: set() for name in manifest["endpoints"]}
    for module, secrets_read in readers.items():
        functions = SECRET_READERS.get(module, set())
        for function in _client_token_functions() if functions is None else functions:
            needed.setdefault(function, set()).update(secrets_read)
    wrong += [f"{name}: bind {sorted(needed[name] - bound.get(name, set()))} (secrets=[config....] in main.py): deployed, "
              "a function sees only the secrets it declares" for name in sorted(needed) if needed[name] - bound.get(name, set())]
    wrong += [f"{name}: remove {sorted(bound[name] - needed[name])} from its secrets= (it runs no code that reads them)"
              for name in sorted(bound) if bound[name] - needed[name]]
    wrong += [f"{key}: declared but bound to no function (deploy asks for its value anyway)"
              for key in sorted(secrets - {key for keys in bound.values() for key in keys})]
    return wrong


def test_every_secret_the_code_reads_is_bound_to_the_functions_that_read_it_and_no_other(manifest):
    assert secret_problems(manifest) == []


def _interval_seconds(schedule: str) -> int | None:
    m = re.fullmatch(r"every (\d+) (minute|minutes|hour|hours)", schedule)
    return int(m.group(1)) * (60 if m.group(2).startswith("minute") else 3600) if m else None


def test_every_scheduled_function_has_its_intended_schedule_and_retry(manifest):
    scheduled = {name: e for name, e in manifest["endpoints"].items() if "scheduleTrigger" in e}
    assert set(scheduled) == set(SCHEDULES), (f"scheduled functions in main.py {sorted(scheduled)} vs SCHEDULES here "
                                              f"{sorted(SCHEDULES)}: state each one's intended schedule and retry")
    for name, endpoint in scheduled.items():
        trigger, intended = endpoint["scheduleTrigger"], SCHEDULES[name]
        assert trigger["schedule"] == intended["schedule"], f"{name}: schedule {trigger['schedule']!r}"
        assert (trigger.get("retryConfig") or {}) == intended["retryConfig"], f"{name}: retryConfig {trigger.get('retryConfig')}"
        interval = _interval_seconds(trigger["schedule"])
        if interval is None:
            assert trigger.get("timeZone"), f"{name}: {trigger['schedule']!r} runs at a time of day: set timezone= "
        else:
            # A run that could outlast the interval would overlap the next one.
            assert endpoint["timeoutSeconds"] < interval, f"{name}: timeout_sec {endpoint['timeoutSeconds']} >= {interval}"


TASK_QUEUES = {media_queue.WORKER: (media_queue, media_worker), privacy_queue.WORKER: (privacy_queue, privacy_worker)}


def test_every_task_queue_function_has_its_retry_rate_limits_and_enqueuer(manifest):
    queues = {name: e for name, e in manifest["endpoints"].items() if "taskQueueTrigger" in e}
    assert set(queues) == set(TASK_QUEUES), (f"task-queue functions {sorted(queues)}; enqueued by code: "
                                             f"{sorted(TASK_QUEUES)} (media_generation/queue.py, privacy/queue.py)")
    for name, (queue, worker) in TASK_QUEUES.items():
        endpoint = queues[name]
        trigger = endpoint["taskQueueTrigger"]
        retry, limits = trigger.get("retryConfig") or {}, trigger.get("rateLimits") or {}
        assert {"maxAttempts", "minBackoffSeconds", "maxBackoffSeconds"} <= set(retry), \
            f"{name}: set retry_config=RetryConfig(max_attempts, min/max_backoff_seconds): {retry}"
        assert {"maxConcurrentDispatches", "maxDispatchesPerSecond"} <= set(limits), \
            f"{name}: set rate_limits=RateLimits(max_concurrent_dispatches, max_dispatches_per_second): {limits}"
        assert queue.LOCATION in endpoint["region"], f"{name}: enqueued in {queue.LOCATION}, not {endpoint['region']}"
        # Cloud Tasks gives up on an attempt at its dispatch deadline; the worker must be allowed as long, and its
        # lease must outlive it, or a second delivery takes over work that is still running.
        assert endpoint["timeoutSeconds"] == queue.DISPATCH_DEADLINE_SECONDS, (
            f"{name}: timeout_sec {endpoint['timeoutSeconds']} vs queue.DISPATCH_DEADLINE_SECONDS "
            f"{queue.DISPATCH_DEADLINE_SECONDS}")
        assert worker.LEASE.total_seconds() > endpoint["timeoutSeconds"]


def limit_problems(manifest: dict) -> list[str]:
    wrong = []
    for name, e in sorted(manifest["endpoints"].items()):
        memory, concurrency = e.get("availableMemoryMb") or 256, e.get("concurrency") or 1
        cpu = GEN1_CPU.get(memory) if e.get("cpu") in (None, "gcf_gen1") else float(e["cpu"])
        if concurrency > 1 and (cpu or 0) < 1:
            wrong.append(f"{name}: concurrency {concurrency} needs cpu >= 1 (has {cpu}): set cpu=1 or concurrency=1")
        if (memory > 1024 and (cpu or 0) < 1) or (memory > 512 and (cpu or 0) < 0.5):
            wrong.append(f"{name}: {memory} MB needs more cpu than {cpu}")
        limit = MAX_TIMEOUT[_trigger(e)]
        if (e.get("timeoutSeconds") or 60) > limit:
            wrong.append(f"{name}: timeout_sec {e['timeoutSeconds']} > {limit}, the most its trigger allows")
        if not e.get("maxInstances"):
            wrong.append(f"{name}: no max_instances: one tenant's traffic could scale it (and the bill) without bound")
    return wrong


def test_every_function_passes_the_deploy_time_limits(manifest):
    assert limit_problems(manifest) == []


def test_the_checks_catch_each_mistake(manifest, rewrites):
    """Each check fails, naming the function and the fix, on a manifest or firebase.json with that mistake."""
    broken = copy.deepcopy(rewrites)
    broken[0]["function"]["functionId"] = "platfrom"
    assert any("declares no function platfrom" in p for p in rewrite_problems(manifest, broken))
    broken = copy.deepcopy(rewrites)
    broken[0]["function"]["region"] = "europe-west1"
    assert any("not europe-west1" in p for p in rewrite_problems(manifest, broken))
    broken = [copy.deepcopy(r) for r in rewrites if r["function"]["functionId"] != "analytics"]
    assert any(p.startswith("analytics: no Hosting rewrite") for p in rewrite_problems(manifest, broken))
    catch_all = next(r for r in rewrites if r["source"] == "/api/**")
    broken = [catch_all, *[r for r in rewrites if r is not catch_all]]
    assert any("shadowed by the earlier /api/**" in p for p in rewrite_problems(manifest, broken))
    broken = [*rewrites, {"source": "/sweep", "function": {"functionId": "vitalscansweep", "region": "us-central1"}}]
    assert any("vitalscansweep is a scheduleTrigger function" in p for p in rewrite_problems(manifest, broken))

    unbound = copy.deepcopy(manifest)
    unbound["endpoints"]["assistant"]["secretEnvironmentVariables"] = []
    assert any(p.startswith("assistant: bind ['LLM_API_KEY']") for p in secret_problems(unbound))
    extra = copy.deepcopy(manifest)
    extra["endpoints"]["mediageneration"]["secretEnvironmentVariables"] = [{"key": "MEDIA_VIDEO_API_KEY"}]
    assert any(p.startswith("mediageneration: remove ['MEDIA_VIDEO_API_KEY']") for p in secret_problems(extra))

    concurrent = copy.deepcopy(manifest)
    concurrent["endpoints"]["lessons"].update(concurrency=80, cpu="gcf_gen1", availableMemoryMb=512)
    assert any(p.startswith("lessons: concurrency 80 needs cpu >= 1") for p in limit_problems(concurrent))
    concurrent["endpoints"]["lessons"].update(cpu=1)
    assert limit_problems(concurrent) == limit_problems(manifest)
