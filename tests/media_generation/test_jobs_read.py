"""Listing and reading media-generation jobs (4.9): order, filters, text query, paging and its 400s, and GET."""


import pytest

from tests.conftest import assert_error
from tests.media_generation.conftest import (
    JOBS,
    get,
    ids,
    image_body,
    listed,
    prompt,
    store_job,
    url,
)
from tests.media_generation.jobs import (
    JOB_FIELDS,
)
from wellness_api.media_generation import service
from wellness_api.media_generation.models import STATUSES

# ------------------------------------------------------------------------------------ list


def test_the_list_is_newest_first_and_says_when_it_ends(http, media_tenant):
    jobs = [store_job(media_tenant) for _ in range(3)]
    page = listed(http, media_tenant.admin)
    assert ids(page) == [j["jobId"] for j in reversed(jobs)] and page["nextStartAfter"] is None
    assert page["jobs"][0] == service.job_view(jobs[-1])


def test_the_status_filter(http, media_tenant):
    by_status = {status: store_job(media_tenant, status)["jobId"] for status in STATUSES}
    for status, job_id in by_status.items():
        page = listed(http, media_tenant.admin, status=status)
        assert ids(page) == [job_id] and page["jobs"][0]["status"] == status
    assert ids(listed(http, media_tenant.admin)) == list(reversed(by_status.values()))
    assert_error(http.get(url(status="done"), headers=media_tenant.admin.headers), 400,
                 "Invalid field status: Input should be 'queued', 'processing', 'uploading', 'available', 'failed' "
                 "or 'attached'.")


def test_the_text_query_finds_the_job_id_prompt_text_target_and_model_case_insensitively(http, media_tenant):
    by_text = store_job(media_tenant, body=image_body(promptInput=prompt("Sunrise over the LAKE", name="Squat")))
    by_target = store_job(media_tenant, "failed", body=image_body(targetEntityId="Lunge-Forward-42"))
    by_model = store_job(media_tenant, "available", model="Vendor-Model-X")
    plain = store_job(media_tenant)

    def found(text: str, **query) -> list[str]:
        return ids(listed(http, media_tenant.admin, query=text, **query))

    assert found("lake") == found("sunrise OVER the") == [by_text["jobId"]]
    assert found("lunge-FORWARD") == [by_target["jobId"]]
    assert found("vendor-model-x") == [by_model["jobId"]]
    assert found(plain["jobId"].upper()) == found(plain["jobId"].lower()) == [plain["jobId"]]
    assert found("  lake ") == [by_text["jobId"]]
    assert found("no such words") == []
    assert found("parallel") == []  # the context's description is not searched
    assert found("lunge", status="failed") == [by_target["jobId"]]
    assert found("lake", status="failed") == []
    assert found("squat") == [plain["jobId"], by_model["jobId"], by_text["jobId"]]  # their targetEntityId
    assert found("LOCAL-image-1") == [plain["jobId"], by_target["jobId"], by_text["jobId"]]


@pytest.mark.parametrize(("limit", "message"), [
    ("0", "Invalid field limit: Input should be greater than or equal to 1."),
    ("101", "Invalid field limit: Input should be less than or equal to 100."),
    ("-1", "Invalid field limit: Input should be greater than or equal to 1."),
    ("ten", "Invalid field limit: Input should be a valid integer."),
])
def test_a_limit_outside_1_to_100_is_400(http, shared_media_tenant, limit, message):
    assert_error(http.get(url(limit=limit), headers=shared_media_tenant.admin.headers), 400, message)


def test_the_default_page_is_20_jobs(http, media_tenant):
    jobs = [store_job(media_tenant)["jobId"] for _ in range(21)]
    page = listed(http, media_tenant.admin)
    assert ids(page) == list(reversed(jobs))[:20] and page["nextStartAfter"] == jobs[1]
    rest = listed(http, media_tenant.admin, startAfter=page["nextStartAfter"])
    assert ids(rest) == [jobs[0]] and rest["nextStartAfter"] is None


def test_a_query_over_200_characters_is_400(http, shared_media_tenant):
    assert_error(http.get(url(query="q" * 201), headers=shared_media_tenant.admin.headers), 400,
                 "Invalid field query: String should have at most 200 characters.")


def test_paging_a_status_filter(http, media_tenant):
    statuses = ["failed", "queued", "failed", "available", "failed", "queued"]
    jobs = [store_job(media_tenant, status)["jobId"] for status in statuses]
    failed = [job_id for job_id, status in reversed(list(zip(jobs, statuses, strict=True))) if status == "failed"]
    seen, cursor = [], None
    while True:
        page = listed(http, media_tenant.admin, status="failed", limit=1, **({"startAfter": cursor} if cursor else {}))
        seen += ids(page)
        cursor = page["nextStartAfter"]
        if cursor is None:
            break
    assert seen == failed
    # A cursor may name a job of another status: the page continues after it in time.
    after_queued = listed(http, media_tenant.admin, status="failed", startAfter=jobs[5])
    assert ids(after_queued) == failed


def test_the_limit_and_paging_with_start_after(http, media_tenant):
    jobs = [store_job(media_tenant, body=image_body(promptInput=prompt(f"take {i}", name="Squat")))
            for i in range(5)]
    newest_first = [j["jobId"] for j in reversed(jobs)]
    assert ids(listed(http, media_tenant.admin, limit=100)) == newest_first
    first = listed(http, media_tenant.admin, limit=1)
    assert ids(first) == newest_first[:1] and first["nextStartAfter"] == newest_first[0]

    seen, cursor, pages = [], None, 0
    while True:
        page = listed(http, media_tenant.admin, limit=2, **({"startAfter": cursor} if cursor else {}))
        pages += 1
        assert len(page["jobs"]) <= 2
        seen += ids(page)
        cursor = page["nextStartAfter"]
        if cursor is None:
            break
        assert pages < 10
    assert seen == newest_first and len(set(seen)) == len(seen)

    # A text query pages the same way (every job's prompt text says "take").
    matched, cursor = [], None
    while True:
        page = listed(http, media_tenant.admin, query="TAKE", limit=1, **({"startAfter": cursor} if cursor else {}))
        matched += ids(page)
        cursor = page["nextStartAfter"]
        if cursor is None:
            break
    assert matched == newest_first


def test_an_invalid_start_after_is_400(http, media_tenant, other_media_tenant):
    store_job(media_tenant)
    foreign = store_job(other_media_tenant)["jobId"]
    message = "Invalid field startAfter: not a job id of this client."
    for cursor in ("no-such-job", "a/b", "x" * 64, "__reserved__", foreign):
        assert_error(http.get(url(startAfter=cursor), headers=media_tenant.admin.headers), 400, message)
    assert_error(http.get(url(startAfter="x" * 65), headers=media_tenant.admin.headers), 400,
                 "Invalid field startAfter: String should have at most 64 characters.")


def test_jobs_of_another_client_are_never_listed(http, media_tenant, other_media_tenant):
    mine = store_job(media_tenant)["jobId"]
    theirs = [store_job(other_media_tenant, status)["jobId"] for status in ("queued", "failed")]
    assert ids(listed(http, media_tenant.admin)) == [mine]
    assert ids(listed(http, other_media_tenant.admin)) == list(reversed(theirs))
    assert ids(listed(http, media_tenant.admin, query=theirs[0])) == []
    assert ids(listed(http, media_tenant.admin, status="failed")) == []


# ------------------------------------------------------------------------------------ get


def test_get_answers_the_job(http, media_tenant):
    job = store_job(media_tenant, "failed")
    answer = get(http, media_tenant.admin, job["jobId"])
    assert answer == service.job_view(job)
    assert set(answer) == JOB_FIELDS and answer["status"] == "failed" and answer["errorMessage"]


@pytest.mark.parametrize("job_id", ["no-such-job", "x" * 65, "__reserved__"])
def test_get_of_an_unknown_job_is_404(http, shared_media_tenant, job_id):
    assert_error(http.get(url(JOBS, job_id), headers=shared_media_tenant.admin.headers), 404, "Job not found.")
