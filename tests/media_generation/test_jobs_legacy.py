"""The legacy video-generation path (4.9): its mediaType default, and jobs shared with the current path."""


import pytest

from tests.conftest import assert_error
from tests.media_generation.conftest import (
    JOBS,
    LEGACY,
    VIDEO_PRESET,
    create,
    deliver,
    get,
    ids,
    image_body,
    listed,
    url,
    video_body,
)
from tests.media_generation.jobs import (
    BACKGROUND,
    action,
    ok,
)

# ------------------------------------------------------------------------------------ the legacy path


def test_on_the_legacy_path_media_type_defaults_to_video(http, media_tenant, held_tasks):
    body = video_body()
    del body["mediaType"]
    answer = create(http, media_tenant.admin, body, path=LEGACY)
    job = answer["job"]
    assert (job["mediaType"], job["promptPreset"], job["durationSeconds"], job["status"]) == (
        "video", VIDEO_PRESET, 4, "queued")
    assert answer["execution"] == {**BACKGROUND, "queueEventId": held_tasks[0]["queueEventId"]}
    assert get(http, media_tenant.admin, job["jobId"]) == get(http, media_tenant.admin, job["jobId"], path=LEGACY) == job
    # An image preset still needs its media type; the current path still needs mediaType at all.
    image = image_body()
    del image["mediaType"]
    assert_error(http.post(LEGACY, json=image, headers=media_tenant.admin.headers), 400,
                 "promptPreset image-exercise-thumbnail makes images; mediaType must be image.")
    assert_error(http.post(JOBS, json=body, headers=media_tenant.admin.headers), 400,
                 "Missing required field: mediaType.")
    assert create(http, media_tenant.admin, image_body(), path=LEGACY)["job"]["mediaType"] == "image"


@pytest.mark.parametrize(("made_on", "used_on"), [(LEGACY, JOBS), (JOBS, LEGACY)], ids=["legacy-first", "current-first"])
def test_a_job_made_on_one_path_is_read_listed_attached_retried_and_deleted_on_the_other(http, media_tenant,
                                                                                         held_tasks, made_on, used_on):
    admin = media_tenant.admin
    job = create(http, admin, image_body(), path=made_on)["job"]
    assert get(http, admin, job["jobId"], path=used_on) == job
    assert ids(listed(http, admin, path=used_on)) == [job["jobId"]]
    assert deliver(held_tasks[0]) == "available"
    attached = ok(action(http, admin, job["jobId"], "attach", path=used_on))
    assert attached["status"] == "attached"
    assert get(http, admin, job["jobId"], path=made_on) == attached
    retried = ok(action(http, admin, job["jobId"], "retry", path=used_on))
    assert retried["job"]["status"] == "queued" and retried["execution"]["queueEventId"] == held_tasks[1]["queueEventId"]
    assert ok(action(http, admin, job["jobId"], "delete", path=used_on)) == {
        "success": True, "jobId": job["jobId"], "status": "cancelled"}
    assert_error(http.get(url(made_on, job["jobId"]), headers=admin.headers), 404, "Job not found.")
    assert deliver(held_tasks[1]) == "cancelled"
