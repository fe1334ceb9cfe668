"""Delete, retry and attach on one job (4.9): which states allow each, what each leaves stored, and the tasks
they queue or make obsolete (held with `held_tasks` and delivered in-process, except the stalled retry).
"""

import datetime as dt

import pytest

from tests.conftest import assert_error
from tests.media_generation.conftest import (
    JOBS,
    create,
    deliver,
    get,
    image_body,
    library,
    listed,
    render_job,
    store_job,
    task_of,
    url,
    wait_until_done,
)
from tests.media_generation.jobs import (
    BACKGROUND,
    EVENT_ID,
    ISO_Z,
    RESULTS,
    SETTINGS,
    action,
    ok,
    stored,
)
from wellness_api.core import clock
from wellness_api.media_generation import repository as repo
from wellness_api.media_generation import service

NOT_DELETABLE = "Only queued or failed jobs can be deleted; this job is {}."
NOT_RETRYABLE = "Only failed or finished jobs can be retried; this job is {}."
NOT_AVAILABLE = "Only an available job can be attached; this job is {}."


# ------------------------------------------------------------------------------------ delete


def test_deleting_a_queued_job_cancels_it(http, media_tenant):
    job = store_job(media_tenant)
    answer = ok(action(http, media_tenant.admin, job["jobId"], "delete"))
    assert answer == {"success": True, "jobId": job["jobId"], "status": "cancelled"}
    assert_error(http.get(url(JOBS, job["jobId"]), headers=media_tenant.admin.headers), 404, "Job not found.")
    assert_error(action(http, media_tenant.admin, job["jobId"], "delete"), 404, "Job not found.")
    assert listed(http, media_tenant.admin)["jobs"] == []


def test_deleting_a_failed_job_removes_it(http, media_tenant):
    job = store_job(media_tenant, "failed")
    answer = ok(action(http, media_tenant.admin, job["jobId"], "delete"))
    assert answer == {"success": True, "jobId": job["jobId"], "status": "removed"}
    assert stored(media_tenant, job["jobId"]) is None
    assert_error(http.get(url(JOBS, job["jobId"]), headers=media_tenant.admin.headers), 404, "Job not found.")


@pytest.mark.parametrize("status", ["processing", "uploading", "available", "attached"])
def test_only_queued_or_failed_jobs_can_be_deleted(http, media_tenant, status):
    job = store_job(media_tenant, status)
    assert_error(action(http, media_tenant.admin, job["jobId"], "delete"), 409, NOT_DELETABLE.format(status))
    assert stored(media_tenant, job["jobId"]) == job


def test_deleting_an_unknown_job_is_404(http, shared_media_tenant):
    assert_error(action(http, shared_media_tenant.admin, "no-such-job", "delete"), 404, "Job not found.")


def test_the_task_of_a_cancelled_job_does_nothing_when_it_arrives(http, media_tenant, held_tasks):
    answer = create(http, media_tenant.admin, image_body())
    job_id = answer["job"]["jobId"]
    assert ok(action(http, media_tenant.admin, job_id, "delete"))["status"] == "cancelled"
    assert held_tasks == [{"clientId": media_tenant.client_id, "jobId": job_id,
                           "queueEventId": answer["execution"]["queueEventId"]}]
    assert deliver(held_tasks[0]) == "cancelled"
    assert stored(media_tenant, job_id) is None
    assert library(media_tenant.client_id) == []


# ------------------------------------------------------------------------------------ retry


@pytest.mark.parametrize("status", ["failed", "available", "attached"])
def test_a_failed_or_finished_job_is_queued_again_with_a_new_event_and_no_results(http, media_tenant, held_tasks,
                                                                                   status):
    admin = media_tenant.admin
    if status == "failed":
        before = store_job(media_tenant, "failed")
    else:
        before = render_job(media_tenant)
        if status == "attached":
            ok(action(http, admin, before["jobId"], "attach"))
        before = stored(media_tenant, before["jobId"])
    old_asset = before["mediaAssetId"] and repo.read_asset(media_tenant.client_id, before["mediaAssetId"])

    answer = ok(action(http, admin, before["jobId"], "retry"))
    job, execution = answer["job"], answer["execution"]
    assert execution == {**BACKGROUND, "queueEventId": execution["queueEventId"]}
    assert EVENT_ID.match(execution["queueEventId"])
    assert execution["queueEventId"] != before["execution"]["queueEventId"]
    assert job["status"] == "queued" and all(job[key] is None for key in RESULTS)
    assert {k: job[k] for k in (*SETTINGS, "createdAt", "attemptCount")} == \
        {k: service.job_view(before)[k] for k in (*SETTINGS, "createdAt", "attemptCount")}
    assert held_tasks == [{"clientId": media_tenant.client_id, "jobId": job["jobId"],
                           "queueEventId": execution["queueEventId"]}]
    assert get(http, admin, job["jobId"]) == job
    if old_asset:  # the earlier result stays in the media library
        assert repo.read_asset(media_tenant.client_id, before["mediaAssetId"]) == old_asset

    # The new execution runs and makes a new asset; the old task is superseded.
    assert deliver(task_of(before)) == "superseded"
    assert deliver(held_tasks[0]) == "available"
    done = get(http, admin, job["jobId"])
    assert done["status"] == "available" and done["mediaAssetId"] not in (None, before["mediaAssetId"])
    assert done["attemptCount"] == before["attemptCount"] + 1


@pytest.mark.parametrize("status", ["queued", "processing", "uploading"])
def test_a_queued_or_running_job_is_not_retried(http, media_tenant, held_tasks, status):
    job = store_job(media_tenant, status)
    assert_error(action(http, media_tenant.admin, job["jobId"], "retry"), 409, NOT_RETRYABLE.format(status))
    assert stored(media_tenant, job["jobId"]) == job and held_tasks == []


def test_a_stalled_job_whose_lease_ran_out_is_retried_and_finishes(http, media_tenant):
    job = store_job(media_tenant, "processing", leaseUntil=clock.now() - dt.timedelta(minutes=1))
    answer = ok(action(http, media_tenant.admin, job["jobId"], "retry"))
    assert answer["job"]["status"] == "queued"
    assert answer["execution"]["queueEventId"] != job["execution"]["queueEventId"]
    done = wait_until_done(http, media_tenant.admin, job["jobId"])
    assert done["status"] == "available", done["errorMessage"]
    assert done["attemptCount"] == 2 and done["resultImageUrl"]


def test_a_stalled_uploading_job_is_retried(http, media_tenant, held_tasks):
    job = store_job(media_tenant, "uploading", leaseUntil=clock.now() - dt.timedelta(seconds=1))
    assert ok(action(http, media_tenant.admin, job["jobId"], "retry"))["job"]["status"] == "queued"
    assert len(held_tasks) == 1


def test_retrying_an_unknown_job_is_404(http, shared_media_tenant):
    assert_error(action(http, shared_media_tenant.admin, "no-such-job", "retry"), 404, "Job not found.")


# ------------------------------------------------------------------------------------ attach


def test_attaching_an_available_job_selects_it_once(http, media_tenant):
    before = render_job(media_tenant)
    job = ok(action(http, media_tenant.admin, before["jobId"], "attach"))
    assert job["status"] == "attached" and ISO_Z.match(job["attachedAt"])
    assert job["updatedAt"] == job["attachedAt"]
    assert job["mediaAssetId"] == before["mediaAssetId"] and job["resultImageUrl"] == before["resultImageUrl"]
    assert get(http, media_tenant.admin, before["jobId"]) == job
    asset = repo.read_asset(media_tenant.client_id, before["mediaAssetId"])
    assert asset["status"] == "attached" and asset["attachedBy"] == media_tenant.admin.uid
    assert clock.iso(asset["attachedAt"]) == job["attachedAt"]

    again = ok(action(http, media_tenant.admin, before["jobId"], "attach"))
    assert again == job
    assert repo.read_asset(media_tenant.client_id, before["mediaAssetId"]) == asset


@pytest.mark.parametrize("status", ["queued", "failed", "processing", "uploading"])
def test_only_an_available_job_can_be_attached(http, media_tenant, status):
    job = store_job(media_tenant, status)
    assert_error(action(http, media_tenant.admin, job["jobId"], "attach"), 409, NOT_AVAILABLE.format(status))
    assert stored(media_tenant, job["jobId"]) == job


def test_attaching_an_unknown_job_is_404(http, shared_media_tenant):
    assert_error(action(http, shared_media_tenant.admin, "no-such-job", "attach"), 404, "Job not found.")
