"""Who may call the media-generation jobs API (part 5, 7.7): tokens, roles, the module switch, tenancy and a
platform administrator's clientId, on every route of both paths.
"""


import pytest

from tests.conftest import assert_error, bearer
from tests.media_generation.conftest import (
    JOBS,
    LEGACY,
    create,
    deliver,
    get,
    ids,
    image_body,
    listed,
    store_job,
    url,
)
from tests.media_generation.jobs import (
    action,
    ok,
    stored,
)
from wellness_api.core import auth
from wellness_api.media_generation import repository as repo
from wellness_api.media_generation import service

# ------------------------------------------------------------------------------------ who may call

ROUTES = [("post", None), ("get", None), ("get", "job"), ("delete", "job"), ("post", "attach"), ("post", "retry")]


def call(http, route: tuple, job_id: str, headers: dict, *, path: str = JOBS, client_id: str | None = None):
    method, target = route
    if target is None:
        body = {"json": image_body()} if method == "post" else {}
        return getattr(http, method)(url(path, client_id=client_id), headers=headers, **body)
    verb = None if target == "job" else target
    return getattr(http, method)(url(path, job_id, verb, client_id=client_id), headers=headers)


def every_route(http, job_id: str, headers: dict, status: int, message: str, **where) -> None:
    for path in (JOBS, LEGACY):
        for route in ROUTES:
            response = call(http, route, job_id, headers, path=path, **where)
            assert (response.status_code, response.json) == (status, {"error": message}), (path, route)


def test_without_a_valid_token_every_route_is_401(http, media_tenant):
    job = store_job(media_tenant, "failed")
    every_route(http, job["jobId"], {}, 401, auth.MISSING_AUTH)
    every_route(http, job["jobId"], {"Authorization": "Basic abc"}, 401, auth.MISSING_AUTH)
    every_route(http, job["jobId"], bearer("not-a-token"), 401, auth.INVALID_TOKEN)
    assert stored(media_tenant, job["jobId"]) == job


def test_a_player_is_403_on_every_route(http, media_tenant):
    job = store_job(media_tenant, "failed")
    every_route(http, job["jobId"], media_tenant.player.headers, 403, service.ADMIN_REQUIRED)
    assert stored(media_tenant, job["jobId"]) == job
    assert ids(listed(http, media_tenant.admin)) == [job["jobId"]]


def test_an_administrator_of_another_client_naming_this_one_is_403(http, media_tenant, other_media_tenant):
    job = store_job(media_tenant, "failed")
    every_route(http, job["jobId"], other_media_tenant.admin.headers, 403, auth.FORBIDDEN,
                client_id=media_tenant.client_id)
    assert stored(media_tenant, job["jobId"]) == job
    assert ids(listed(http, media_tenant.admin)) == [job["jobId"]]


def test_the_module_off_is_403_for_its_administrators_and_platform_administrators(http, tenant, platform_admin):
    job = store_job(tenant, "failed")  # a job left from when the module was on
    every_route(http, job["jobId"], tenant.admin.headers, 403, service.MODULE_OFF)
    every_route(http, job["jobId"], platform_admin.headers, 403, service.MODULE_OFF, client_id=tenant.client_id)
    tenant.configure("modules.mediaGeneration=false")
    every_route(http, job["jobId"], tenant.admin.headers, 403, service.MODULE_OFF)
    assert stored(tenant, job["jobId"]) == job


def test_a_platform_administrator_naming_an_unknown_client_is_404(http, platform_admin):
    every_route(http, "no-such-job", platform_admin.headers, 404, auth.CLIENT_NOT_FOUND, client_id="t-no-such-client")


def test_a_platform_administrator_works_on_every_route_with_client_id(http, media_tenant, platform_admin, held_tasks):
    client_id = media_tenant.client_id
    job = create(http, platform_admin, image_body(), client_id=client_id)["job"]
    assert job["clientId"] == client_id
    assert ids(listed(http, platform_admin, client_id=client_id)) == [job["jobId"]]
    assert get(http, platform_admin, job["jobId"], client_id=client_id) == job
    assert deliver(held_tasks[0]) == "available"
    attached = ok(action(http, platform_admin, job["jobId"], "attach", client_id=client_id))
    assert attached["status"] == "attached"
    asset = repo.read_asset(client_id, attached["mediaAssetId"])
    assert asset["attachedBy"] == platform_admin.uid
    retried = ok(action(http, platform_admin, job["jobId"], "retry", client_id=client_id))
    assert retried["job"]["status"] == "queued"
    assert ok(action(http, platform_admin, job["jobId"], "delete", client_id=client_id))["status"] == "cancelled"
    assert listed(http, media_tenant.admin)["jobs"] == []


@pytest.mark.parametrize("path", [JOBS, LEGACY])
def test_a_client_id_longer_than_any_id_is_400_on_every_operation(http, shared_media_tenant, path):
    headers, client_id = shared_media_tenant.admin.headers, "c" * 65
    message = "Invalid field clientId: String should have at most 64 characters."
    assert_error(http.post(url(path, client_id=client_id), json=image_body(), headers=headers), 400, message)
    assert_error(http.get(url(path, client_id=client_id), headers=headers), 400, message)
    assert_error(http.get(url(path, "job", client_id=client_id), headers=headers), 400, message)
    assert_error(http.delete(url(path, "job", client_id=client_id), headers=headers), 400, message)
    for verb in ("attach", "retry"):
        assert_error(http.post(url(path, "job", verb, client_id=client_id), headers=headers), 400, message)


def test_another_clients_job_is_404_on_every_job_route(http, media_tenant, other_media_tenant):
    job = store_job(media_tenant, "failed")
    stranger = other_media_tenant.admin
    assert_error(http.get(url(JOBS, job["jobId"]), headers=stranger.headers), 404, "Job not found.")
    for verb in ("attach", "retry", "delete"):
        assert_error(action(http, stranger, job["jobId"], verb), 404, "Job not found.")
    assert stored(media_tenant, job["jobId"]) == job
