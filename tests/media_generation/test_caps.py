"""Per-client caps on queued and running jobs (issue 25): one client cannot fill the worker that every client
shares. mediaGeneration.maxActiveJobs (default 3; the worker runs 4 at once) is checked when a job is created and
when one is retried, with a 429 in the area's {error} envelope and Retry-After."""

import datetime as dt
import threading

import pytest

from tests.conftest import assert_error
from tests.media_generation.conftest import (
    JOBS,
    LEGACY,
    admin_principal,
    create,
    deliver,
    image_body,
    store_job,
    url,
    video_body,
)
from wellness_api.core import clock, settings
from wellness_api.media_generation import service
from wellness_api.media_generation.models import AVAILABLE, FAILED, PROCESSING, QUEUED, CreateJobBody


def at_capacity(limit: int) -> str:
    return service.TOO_MANY_ACTIVE.format(limit=limit)


def assert_at_capacity(response, limit: int) -> None:
    assert_error(response, 429, at_capacity(limit))
    assert response.headers["Retry-After"] == str(service.RETRY_AFTER_SECONDS)


def post(http, member, body: dict, path: str = JOBS, client_id: str | None = None):
    return http.post(url(path, client_id=client_id), json=body, headers=member.headers)


def test_a_client_at_its_cap_is_refused_while_another_client_is_served(http, media_tenant, other_media_tenant,
                                                                        held_tasks):
    media_tenant.configure("mediaGeneration.maxActiveJobs=2")
    first = create(http, media_tenant.admin, image_body())["job"]
    create(http, media_tenant.admin, video_body(), path=LEGACY)
    assert_at_capacity(post(http, media_tenant.admin, image_body()), 2)
    assert_at_capacity(post(http, media_tenant.admin, video_body(), path=LEGACY), 2)  # both paths, one count
    # Another client is not held up by the first one's queue.
    assert create(http, other_media_tenant.admin, image_body())["job"]["clientId"] == other_media_tenant.client_id
    # A finished job frees its place.
    assert deliver(held_tasks[0]) == AVAILABLE
    create(http, media_tenant.admin, image_body())
    assert_at_capacity(post(http, media_tenant.admin, image_body()), 2)
    # So does a cancelled one; nothing refused was saved.
    assert http.delete(url(job_id=held_tasks[1]["jobId"]), headers=media_tenant.admin.headers).status_code == 200
    create(http, media_tenant.admin, image_body())
    listed = http.get(url(limit=100), headers=media_tenant.admin.headers).json["jobs"]
    assert len(listed) == 3 and first["jobId"] in {j["jobId"] for j in listed}


def test_the_default_cap_is_three_jobs_queued_or_running(http, media_tenant, held_tasks):
    assert settings.SETTINGS[service.MAX_ACTIVE_SETTING].default == 3
    store_job(media_tenant, PROCESSING)  # running under a live lease: it holds a place
    for _ in range(2):
        create(http, media_tenant.admin, image_body())
    assert_at_capacity(post(http, media_tenant.admin, image_body()), 3)
    assert len(held_tasks) == 2


def test_a_platform_administrator_is_held_to_the_clients_cap_too(http, media_tenant, platform_admin, held_tasks):
    media_tenant.configure("mediaGeneration.maxActiveJobs=1")
    create(http, media_tenant.admin, image_body())
    assert_at_capacity(post(http, platform_admin, image_body(), client_id=media_tenant.client_id), 1)


def test_a_retry_is_refused_at_the_cap_and_served_below_it(http, media_tenant, held_tasks):
    media_tenant.configure("mediaGeneration.maxActiveJobs=1")
    failed = store_job(media_tenant, FAILED)
    queued = create(http, media_tenant.admin, image_body())["job"]
    assert_at_capacity(http.post(url(job_id=failed["jobId"], action="retry"), headers=media_tenant.admin.headers), 1)
    assert len(held_tasks) == 1  # the refused retry queued nothing
    assert deliver(held_tasks[0]) == AVAILABLE
    retried = http.post(url(job_id=failed["jobId"], action="retry"), headers=media_tenant.admin.headers)
    assert retried.status_code == 200 and retried.json["job"]["status"] == QUEUED
    # The job that finished cannot be retried now: the retried one holds the only place.
    assert_at_capacity(http.post(url(job_id=queued["jobId"], action="retry"), headers=media_tenant.admin.headers), 1)


def test_a_running_job_whose_worker_died_holds_no_place(http, media_tenant, held_tasks):
    media_tenant.configure("mediaGeneration.maxActiveJobs=1")
    stalled = store_job(media_tenant, PROCESSING, leaseUntil=clock.now() - dt.timedelta(minutes=1))
    create(http, media_tenant.admin, image_body())
    # Retrying the stalled job queues it again, so it needs a place like any other.
    assert_at_capacity(http.post(url(job_id=stalled["jobId"], action="retry"), headers=media_tenant.admin.headers), 1)


def test_concurrent_creates_never_exceed_the_cap(media_tenant, held_tasks):
    """Eight creates at once for a client with two places: exactly two are queued, the others are told 429."""
    media_tenant.configure("mediaGeneration.maxActiveJobs=2")
    body = CreateJobBody.model_validate(image_body(), strict=True)
    principal = admin_principal(media_tenant)
    start = threading.Barrier(8)
    outcomes: list[int] = []

    def one() -> None:
        start.wait()
        try:
            outcomes.append(service.create_job(media_tenant.client, principal, body)[0])
        except service.ApiError as exc:
            outcomes.append(exc.status)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == [201, 201, *[429] * 6], outcomes
    assert len(held_tasks) == 2


@pytest.mark.parametrize("value", ["0", "21"])
def test_the_cap_has_a_floor_and_a_ceiling(value):
    with pytest.raises(settings.SettingError):
        settings.parse_assignment(f"mediaGeneration.maxActiveJobs={value}")

