"""The media-generation worker (worker.py) run in-process on jobs stored without queueing, against the real
Firestore and Storage emulators: every guarantee of its docstring, the task-queue function that runs it, and the
demo seeder that uses it.

Jobs are built by service.new_job and written with repository.put_job, so no Cloud Tasks task exists and the
emulated worker function never touches them: each test hands worker.handle the task itself.
"""

import datetime as dt
import io
import threading
import types
import urllib.request

import av
import pytest
from PIL import Image

from tests.media_generation.test_openai_images import FakeImagesApi
from wellness_api.core import clock, firebase
from wellness_api.core.auth import Principal
from wellness_api.media_generation import demo, queue, service, worker
from wellness_api.media_generation import repository as repo
from wellness_api.media_generation.models import CreateJobBody
from wellness_api.media_generation.providers import registry
from wellness_api.media_generation.providers.local import LocalProvider

IMAGE = {
    "mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
    "promptPreset": "image-exercise-thumbnail",
    "promptInput": {"promptText": "bright studio light, side view",
                    "context": {"name": "Squat", "category": "strength", "description": "A bodyweight squat."}},
}
VIDEO = {**IMAGE, "mediaType": "video", "promptPreset": "exercise-cover-motion",
         "promptInput": {"promptText": "slow, looping", "context": {"name": "Squat", "category": "strength"}}}
SMALL = "256x256"  # a quick local render where the size is not what a test is about
VENDOR_KEY = "sk-test"
VENDOR_REFUSAL = "Your request was rejected by the safety system."


# ------------------------------------------------------------------------------------ helpers


@pytest.fixture
def media(tenant):
    """A tenant with the media generation module on."""
    tenant.configure("modules.mediaGeneration=true")
    return tenant


@pytest.fixture
def vendor():
    fake = FakeImagesApi()
    yield fake
    fake.server.shutdown()


def admin(tenant) -> Principal:
    return Principal(kind="user", client_id=tenant.client_id, uid=tenant.admin.uid, role="admin")


def store(tenant, body: dict = IMAGE, **fields) -> dict:
    """A queued job as create would save it (not queued), with `fields` written over it."""
    job = service.new_job(tenant.client, admin(tenant), CreateJobBody.model_validate(body))
    job.update(fields)
    repo.put_job(tenant.client_id, job)
    return job


def task_of(job: dict) -> dict:
    return {"clientId": job["clientId"], "jobId": job["jobId"], "queueEventId": job["execution"]["queueEventId"]}


def asset_id(job: dict) -> str:
    return worker.asset_id_for(worker.Task.parse(task_of(job)))


def read(job: dict) -> dict:
    return repo.read_job(job["clientId"], job["jobId"]).data


def activity(client_id: str) -> dict:
    """The client's media counters summed over yesterday to tomorrow (a run may straddle midnight UTC)."""
    today = dt.datetime.now(dt.UTC).date()
    days = repo.daily_activity(client_id, str(today - dt.timedelta(days=1)), str(today + dt.timedelta(days=1)))
    total: dict = {}
    for counts in days.values():
        for name, value in counts.items():
            total[name] = total.get(name, 0) + value
    return total


def download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        return response.read()


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        image.load()  # the whole picture decodes
        return image.size


def generation(path: str) -> int | None:
    blob = firebase.bucket().get_blob(path)
    return None if blob is None else blob.generation


def library_path(job: dict, content_type: str = "image/png") -> str:
    return repo.library_path(job["clientId"], asset_id(job), content_type)


def expire_lease(job: dict) -> None:
    repo.job_ref(job["clientId"], job["jobId"]).update({"leaseUntil": clock.now() - dt.timedelta(seconds=1)})


def must_not_generate(monkeypatch) -> None:
    def refuse(media_type):
        raise AssertionError("the worker generated again")

    monkeypatch.setattr(registry, "provider_for", refuse)


def assert_nothing_produced(job: dict) -> None:
    assert repo.read_asset(job["clientId"], asset_id(job)) is None
    assert generation(library_path(job)) is None


# ------------------------------------------------------------------------------------ the happy path


def test_a_queued_image_job_becomes_available_with_its_library_record_and_counters(media):
    job = store(media)
    assert worker.handle(task_of(job)) == "available"

    done = read(job)
    expected_asset = asset_id(job)
    assert done["status"] == "available" and done["attemptCount"] == 1 and done["errorMessage"] is None
    assert done["mediaAssetId"] == expected_asset and done["hostedVideoId"] is None
    assert done["resultVideoUrl"] is None and done["resultMediaType"] == "image/png"
    assert done["leaseId"] is None and done["leaseUntil"] is None
    assert done["storagePath"] == library_path(job)
    data = download(done["resultImageUrl"])
    assert png_size(data) == (1024, 1024)

    asset = repo.read_asset(media.client_id, expected_asset)
    assert asset["url"] == done["resultImageUrl"] and asset["storagePath"] == done["storagePath"]
    assert (asset["width"], asset["height"], asset["sizeBytes"]) == (1024, 1024, len(data))
    assert asset["sourceJobId"] == job["jobId"] and asset["queueEventId"] == job["execution"]["queueEventId"]
    assert asset["status"] == "available" and asset["contentType"] == "image/png" and asset["attachedAt"] is None
    assert activity(media.client_id) == {"available": 1, "available_image": 1, "billed_image_standard": 1}

    # The view the API answers with is the 2.13 job with the results filled in.
    view = service.job_view(done)
    assert view["status"] == "available" and view["resultImageUrl"] == done["resultImageUrl"]
    assert view["attemptCount"] == 1


def test_a_redelivered_task_finds_the_job_finished_and_neither_generates_nor_bills_again(media, monkeypatch):
    job = store(media, resolution=SMALL)
    assert worker.handle(task_of(job)) == "available"
    before = repo.read_job(media.client_id, job["jobId"])
    stored = generation(before.data["storagePath"])
    counts = activity(media.client_id)

    must_not_generate(monkeypatch)
    assert worker.handle(task_of(job)) == "finished"
    assert worker.handle(dict(task_of(job))) == "finished"

    after = repo.read_job(media.client_id, job["jobId"])
    assert after.update_time == before.update_time and after.data == before.data
    assert after.data["attemptCount"] == 1
    assert generation(before.data["storagePath"]) == stored
    assert activity(media.client_id) == counts == {"available": 1, "available_image": 1, "billed_image_standard": 1}


def test_a_finished_failed_or_attached_job_is_left_alone(media, monkeypatch):
    must_not_generate(monkeypatch)
    for status in ("failed", "attached"):
        job = store(media, status=status)
        assert worker.handle(task_of(job)) == "finished"
        assert read(job)["status"] == status and read(job)["attemptCount"] == 0


# ------------------------------------------------------------------------------------ tasks with nothing to do


def test_a_task_for_a_job_deleted_while_queued_is_cancelled(media, monkeypatch):
    job = store(media)
    assert service.delete_job(media.client, job["jobId"])["status"] == "cancelled"
    must_not_generate(monkeypatch)
    assert worker.handle(task_of(job)) == "cancelled"
    assert read(job) is None  # not brought back
    assert_nothing_produced(job)
    assert activity(media.client_id) == {}


def test_a_task_for_a_job_id_that_names_no_document_is_cancelled(media):
    assert worker.handle({"clientId": media.client_id, "jobId": "no-such-job", "queueEventId": "e1"}) == "cancelled"
    assert worker.handle({"clientId": media.client_id, "jobId": "a/b", "queueEventId": "e1"}) == "malformed"


def test_a_task_of_an_earlier_execution_is_superseded(media, monkeypatch):
    job = store(media)
    before = repo.read_job(media.client_id, job["jobId"])
    must_not_generate(monkeypatch)
    assert worker.handle({**task_of(job), "queueEventId": "an-earlier-execution"}) == "superseded"
    after = repo.read_job(media.client_id, job["jobId"])
    assert after.update_time == before.update_time and after.data["status"] == "queued"
    assert after.data["attemptCount"] == 0


@pytest.mark.parametrize("payload", [
    None, "job", [], {}, {"clientId": "c", "jobId": "j"}, {"clientId": "c", "jobId": "j", "queueEventId": ""},
    {"clientId": "c", "jobId": 7, "queueEventId": "e"}, {"clientId": None, "jobId": "j", "queueEventId": "e"},
])
def test_a_malformed_payload_is_ignored(payload):
    assert worker.handle(payload) == "malformed"


def test_a_payload_whose_client_id_is_not_a_document_id_is_ignored():
    assert worker.handle({"clientId": "a/b", "jobId": "j", "queueEventId": "e"}) == "malformed"
    assert worker.handle({"clientId": "c", "jobId": "__j__", "queueEventId": "e"}) == "malformed"


# ------------------------------------------------------------------------------------ leases


def test_deliveries_at_the_same_moment_generate_and_bill_once(media):
    job = store(media, resolution=SMALL)
    start = threading.Barrier(4)
    outcomes = []

    def deliver():
        start.wait()
        try:
            outcomes.append(worker.handle(task_of(job)))
        except worker.LeaseHeld:
            outcomes.append("lease-held")

    threads = [threading.Thread(target=deliver) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(outcomes).count("available") == 1, outcomes
    assert set(outcomes) <= {"available", "lease-held", "finished"} and len(outcomes) == 4, outcomes
    done = read(job)
    assert done["status"] == "available" and done["attemptCount"] == 1
    assert activity(media.client_id) == {"available": 1, "available_image": 1, "billed_image_standard": 1}


def test_a_delivery_while_another_holds_a_live_lease_is_refused_and_changes_nothing(media, monkeypatch):
    job = store(media, status="processing", leaseId="another-worker", attemptCount=1,
                leaseUntil=clock.now() + dt.timedelta(minutes=5))
    before = repo.read_job(media.client_id, job["jobId"])
    must_not_generate(monkeypatch)
    with pytest.raises(worker.LeaseHeld):
        worker.handle(task_of(job))
    after = repo.read_job(media.client_id, job["jobId"])
    assert after.update_time == before.update_time and after.data == before.data
    assert_nothing_produced(job)


def test_a_job_whose_lease_expired_is_taken_over_and_finished(media):
    job = store(media, status="processing", leaseId="a-dead-worker", attemptCount=1, resolution=SMALL,
                leaseUntil=clock.now() - dt.timedelta(seconds=1))
    assert worker.handle(task_of(job)) == "available"
    done = read(job)
    assert done["status"] == "available" and done["attemptCount"] == 2 and done["leaseId"] is None
    assert png_size(download(done["resultImageUrl"])) == (256, 256)
    assert activity(media.client_id) == {"available": 1, "available_image": 1, "billed_image_standard": 1}


def test_the_worker_function_answers_503_while_a_lease_holds_so_cloud_tasks_retries(media):
    from firebase_functions import https_fn

    import main

    job = store(media, status="processing", leaseId="another-worker", attemptCount=1, resolution=SMALL,
                leaseUntil=clock.now() + dt.timedelta(minutes=5))
    run = main.mediajobworker.__wrapped__  # the body under the task-queue decorator
    with pytest.raises(https_fn.HttpsError) as refused:
        run(types.SimpleNamespace(data=task_of(job)))
    assert refused.value.code == https_fn.FunctionsErrorCode.UNAVAILABLE
    assert refused.value._http_error_code.status == 503
    expire_lease(job)
    assert run(types.SimpleNamespace(data=task_of(job))) == {"outcome": "available"}
    assert run(types.SimpleNamespace(data=task_of(job))) == {"outcome": "finished"}
    assert run(types.SimpleNamespace(data={"jobId": 1})) == {"outcome": "malformed"}


def test_a_worker_that_lost_its_lease_commits_nothing(media, monkeypatch):
    job = store(media, resolution=SMALL)

    class TakenOverMeanwhile:
        """Renders, but meanwhile another delivery took the job over (as after an expired lease)."""

        def generate(self, request):
            repo.job_ref(media.client_id, job["jobId"]).update({"leaseId": "the-next-worker"})
            return LocalProvider().generate(request)

    monkeypatch.setattr(registry, "provider_for", lambda media_type: TakenOverMeanwhile())
    assert worker.handle(task_of(job)) == "lease-lost"
    stored = read(job)
    assert stored["status"] == "processing" and stored["leaseId"] == "the-next-worker"
    assert stored["storagePath"] is None and stored["mediaAssetId"] is None
    assert_nothing_produced(job)
    assert activity(media.client_id) == {}


def test_an_unexpected_error_releases_the_lease_and_the_next_delivery_takes_over_at_once(media, monkeypatch):
    job = store(media, resolution=SMALL)

    def storage_down(*args, **kwargs):
        raise OSError("storage is down")

    with monkeypatch.context() as patch:
        patch.setattr(repo, "store_result", storage_down)
        with pytest.raises(OSError, match="storage is down"):
            worker.handle(task_of(job))
    released = read(job)
    assert released["status"] == "uploading" and released["leaseUntil"] <= clock.now()
    assert released["attemptCount"] == 1 and released["errorMessage"] is None
    assert_nothing_produced(job)
    assert activity(media.client_id) == {}

    assert worker.handle(task_of(job)) == "available"  # no LeaseHeld: the lease was ended
    done = read(job)
    assert done["status"] == "available" and done["attemptCount"] == 2
    assert png_size(download(done["resultImageUrl"])) == (256, 256)
    assert activity(media.client_id) == {"available": 1, "available_image": 1, "billed_image_standard": 1}


def test_a_job_left_uploading_by_a_dead_worker_is_finished_from_its_stored_file_without_generating(
        media, monkeypatch):
    job = store(media, resolution=SMALL)
    task = worker.Task.parse(task_of(job))
    # The real pipeline up to the stored file, then the worker dies (no _finish) and its lease runs out.
    claimed = worker._claim(task, "a-dying-worker")
    result = worker._generate(claimed)
    path = repo.library_path(media.client_id, worker.asset_id_for(task), result.content_type)
    worker._uploading(task, "a-dying-worker", result, path)
    token = repo.store_result(path, result.data, result.content_type)
    left = read(job)
    assert left["status"] == "uploading" and left["storagePath"] == path and left["attemptCount"] == 1
    with pytest.raises(worker.LeaseHeld):  # while the lease holds, the next delivery waits
        worker.handle(task_of(job))
    expire_lease(job)
    stored = generation(path)

    must_not_generate(monkeypatch)
    assert worker.handle(task_of(job)) == "available"
    done = read(job)
    assert done["status"] == "available" and done["attemptCount"] == 2 and done["leaseId"] is None
    assert done["resultImageUrl"] == repo.download_url(path, token)
    assert done["mediaAssetId"] == worker.asset_id_for(task)
    assert generation(path) == stored
    assert download(done["resultImageUrl"]) == result.data
    asset = repo.read_asset(media.client_id, worker.asset_id_for(task))
    assert asset["storagePath"] == path and asset["sizeBytes"] == len(result.data)
    assert (asset["width"], asset["height"]) == (256, 256)
    assert activity(media.client_id) == {"available": 1, "available_image": 1, "billed_image_standard": 1}


def test_a_job_left_uploading_before_its_file_was_stored_is_generated_again(media):
    job = store(media, resolution=SMALL, status="uploading", leaseId="a-dead-worker", attemptCount=1,
                leaseUntil=clock.now() - dt.timedelta(seconds=1))
    job = {**job, "storagePath": library_path(job)}
    repo.put_job(media.client_id, job)
    assert generation(job["storagePath"]) is None
    assert worker.handle(task_of(job)) == "available"
    done = read(job)
    assert done["status"] == "available" and done["storagePath"] == job["storagePath"]
    assert png_size(download(done["resultImageUrl"])) == (256, 256)


# ------------------------------------------------------------------------------------ the vendor


@pytest.fixture
def openai_images(vendor, monkeypatch):
    monkeypatch.setenv("MEDIA_IMAGE_PROVIDER", "openai")
    monkeypatch.setenv("MEDIA_IMAGE_BASE_URL", vendor.base_url)
    monkeypatch.setenv("MEDIA_IMAGE_API_KEY", VENDOR_KEY)
    return vendor


def test_a_vendor_refusal_fails_the_job_with_the_vendors_message(media, openai_images):
    openai_images.behaviour = "refused"
    job = store(media)
    assert job["model"] == "gpt-image-1"
    assert worker.handle(task_of(job)) == "failed"
    failed = read(job)
    assert failed["status"] == "failed" and VENDOR_REFUSAL in failed["errorMessage"]
    assert failed["errorMessage"].startswith("The image provider refused the request (400)")
    assert failed["leaseId"] is None and failed["leaseUntil"] is None and failed["attemptCount"] == 1
    assert failed["mediaAssetId"] is None and failed["resultImageUrl"] is None
    assert_nothing_produced(job)
    assert activity(media.client_id) == {"failed": 1}
    assert len(openai_images.requests) == 1  # a refusal is not retried
    # The failure is final for this execution: a redelivery does not call the vendor again.
    assert worker.handle(task_of(job)) == "finished" and len(openai_images.requests) == 1


def test_the_vendors_image_is_stored_with_its_generation_id(media, openai_images):
    job = store(media)
    assert worker.handle(task_of(job)) == "available"
    [sent] = openai_images.requests
    assert sent["auth"] == f"Bearer {VENDOR_KEY}" and sent["body"]["model"] == "gpt-image-1"
    assert sent["body"]["prompt"] == job["normalizedPrompt"] and sent["body"]["size"] == "1024x1024"
    done = read(job)
    assert done["status"] == "available" and done["providerGenerationId"] == "req_fake_123"
    assert done["providerCostUsd"] is None
    data = download(done["resultImageUrl"])
    assert png_size(data) == (1024, 1024)
    with Image.open(io.BytesIO(data)) as image:
        assert image.convert("RGB").getpixel((10, 10)) == (20, 120, 200)  # the fake vendor's picture
    assert service.job_view(done)["providerGenerationId"] == "req_fake_123"
    assert activity(media.client_id) == {"available": 1, "available_image": 1, "billed_image_standard": 1}


# ------------------------------------------------------------------------------------ reference images


@pytest.mark.parametrize("url", ["https://127.0.0.1/x.png", "https://localhost/x.png", "https://[::1]/x.png",
                                 "https://169.254.169.254/latest"])
def test_a_reference_image_on_the_platforms_own_network_fails_the_job_without_a_connection(media, monkeypatch, url):
    from wellness_api.media_generation import references

    connections = []

    def connect(self):
        connections.append(self.host)
        raise OSError("no connection may be opened")

    monkeypatch.setattr(references._Connection, "connect", connect)
    # Written directly, as if the API's validation (references.screen) had been bypassed.
    job = store(media, referenceImages=[{"url": url, "name": None, "mediaType": "image"}],
                generationMode="image-to-image")
    assert worker.handle(task_of(job)) == "failed"
    failed = read(job)
    assert failed["status"] == "failed" and failed["errorMessage"].startswith("referenceImages[0]:"), failed
    assert connections == []
    assert_nothing_produced(job)
    assert activity(media.client_id) == {"failed": 1}


# ------------------------------------------------------------------------------------ video


def test_a_video_job_becomes_available_as_a_decodable_mp4(media):
    job = store(media, VIDEO)
    assert (job["resolution"], job["durationSeconds"]) == ("640x360", 4)
    assert worker.handle(task_of(job)) == "available"
    done = read(job)
    assert done["status"] == "available" and done["resultMediaType"] == "video/mp4"
    assert done["hostedVideoId"] == done["mediaAssetId"] == asset_id(job)
    assert done["resultImageUrl"] is None and done["storagePath"].endswith(".mp4")
    data = download(done["resultVideoUrl"])
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.video[0]
        assert (stream.width, stream.height) == (640, 360)
        assert container.duration / av.time_base == pytest.approx(4, abs=0.2)
        frames = sum(1 for _ in container.decode(video=0))
    assert frames == 4 * 24
    asset = repo.read_asset(media.client_id, done["mediaAssetId"])
    assert asset["mediaType"] == "video" and asset["contentType"] == "video/mp4"
    assert (asset["width"], asset["height"], asset["durationSeconds"]) == (640, 360, 4)
    assert asset["url"] == done["resultVideoUrl"] and asset["sizeBytes"] == len(data)
    assert activity(media.client_id) == {"available": 1, "available_video": 1, "billed_video_short": 1}


# ------------------------------------------------------------------------------------ the function


def test_the_worker_function_is_a_retried_rate_limited_task_queue_with_the_vendor_secrets():
    import main

    endpoint = main.mediajobworker.__firebase_endpoint__
    trigger = endpoint.taskQueueTrigger
    assert trigger is not None and endpoint.httpsTrigger is None
    assert {k: v for k, v in trigger["retryConfig"].items() if v is not None} == {
        "maxAttempts": 6, "minBackoffSeconds": 10, "maxBackoffSeconds": 300, "maxDoublings": 4}
    assert trigger["rateLimits"] == {"maxConcurrentDispatches": 4, "maxDispatchesPerSecond": 10}
    assert {s["key"] for s in endpoint.secretEnvironmentVariables} == {"MEDIA_IMAGE_API_KEY", "MEDIA_VIDEO_API_KEY"}
    # A live worker never loses its lease: the lease outlasts the function's timeout and the dispatch deadline.
    assert endpoint.timeoutSeconds == queue.DISPATCH_DEADLINE_SECONDS
    assert worker.LEASE.total_seconds() > endpoint.timeoutSeconds
    assert queue.WORKER == "mediajobworker"


# ------------------------------------------------------------------------------------ demo data


DEMO = {demo.AVAILABLE_IMAGE: "available", demo.ATTACHED_IMAGE: "attached", demo.AVAILABLE_VIDEO: "available",
        demo.FAILED_IMAGE: "failed", demo.FAILED_VIDEO: "failed"}


def _demo_jobs(tenant) -> dict:
    return {job_id: repo.read_job(tenant.client_id, job_id) for job_id in DEMO}


def _assets(tenant) -> list:
    from wellness_api.core import tenancy

    return sorted(s.id for s in tenancy.client_ref(tenant.client_id).collection(repo.ASSETS).stream())


def test_the_demo_seeder_makes_every_state_once_and_a_second_run_changes_nothing(media):
    demo.seed(media.client)
    seen = _demo_jobs(media)
    assert {job_id: s.data["status"] for job_id, s in seen.items()} == DEMO
    image, attached, video = (seen[k].data for k in (demo.AVAILABLE_IMAGE, demo.ATTACHED_IMAGE, demo.AVAILABLE_VIDEO))
    assert png_size(download(image["resultImageUrl"])) == (1024, 1024) and image["seed"] == 7
    assert attached["attachedAt"] is not None and attached["attachedBy"] == media.admin.uid
    assert repo.read_asset(media.client_id, attached["mediaAssetId"])["status"] == "attached"
    assert video["resultVideoUrl"] and video["hostedVideoId"] == video["mediaAssetId"]
    for job_id in (demo.FAILED_IMAGE, demo.FAILED_VIDEO):
        assert seen[job_id].data["errorMessage"] and seen[job_id].data["attemptCount"] == 1
    assert all(s.data["requestedBy"] == media.admin.uid for s in seen.values())
    assets = _assets(media)
    assert len(assets) == 3
    counts = activity(media.client_id)

    demo.seed(media.client)
    again = _demo_jobs(media)
    for job_id in DEMO:
        assert again[job_id].update_time == seen[job_id].update_time, job_id
        assert again[job_id].data == seen[job_id].data, job_id
    assert _assets(media) == assets and activity(media.client_id) == counts


def test_the_demo_seeder_restores_a_job_a_sample_moved(media):
    demo.seed(media.client)
    untouched = repo.read_job(media.client_id, demo.AVAILABLE_IMAGE)
    assert service.delete_job(media.client, demo.FAILED_IMAGE)["status"] == "removed"
    demo.seed(media.client)
    restored = repo.read_job(media.client_id, demo.FAILED_IMAGE).data
    assert restored["status"] == "failed" and "safety system" in restored["errorMessage"]
    assert repo.read_job(media.client_id, demo.AVAILABLE_IMAGE).update_time == untouched.update_time


def test_the_demo_seeder_does_nothing_for_a_client_without_the_module(tenant):
    demo.seed(tenant.client)
    assert all(s.data is None for s in _demo_jobs(tenant).values())
