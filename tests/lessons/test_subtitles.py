"""POST /api/b2b/lessons/catalog/[lessonId]/subtitle (4.1 rule 5): multipart WebVTT into Cloud Storage."""

import io

import pytest
import requests
from google.api_core import exceptions as gexc
from google.cloud.firestore_v1 import transaction as fs_transaction

from tests.lessons.conftest import CATALOG, create_lesson
from wellness_api.core import firebase
from wellness_api.lessons import service

VTT = b"WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello\n\n00:00:02.000 --> 00:00:04.000\nWorld\n"
VTT_2 = "WEBVTT\n\n00:00.000 --> 00:03.000\n你好\n".encode()


def upload(http, tenant, lesson_id, data=VTT, locale="en", filename="en.vtt", content_type="text/vtt",
           headers=None, query=""):
    form = {}
    if locale is not None:
        form["locale"] = locale
    if data is not None:
        form["file"] = (io.BytesIO(data), filename, content_type)
    return http.post(f"{CATALOG}/{lesson_id}/subtitle{query}", data=form, content_type="multipart/form-data",
                     headers=headers or tenant.admin.headers)


def objects(tenant, lesson_id) -> list[str]:
    prefix = f"clients/{tenant.client_id}/lessons/{lesson_id}/subtitles/"
    return sorted(blob.name for blob in firebase.bucket().list_blobs(prefix=prefix))


def lesson_doc(tenant, lesson_id) -> dict:
    return firebase.db().document(f"clients/{tenant.client_id}/lessons/{lesson_id}").get().to_dict()


def test_upload_stores_the_file_and_the_url_plays(http, tenant):
    lesson_id = create_lesson(http, tenant, isLive=True)
    response = upload(http, tenant, lesson_id)
    assert response.status_code == 200, response.json
    body = response.json
    assert body["success"] is True
    url = body["subtitleUrl"]
    assert "/v0/b/" in url and "alt=media" in url and "token=" in url
    assert body["catalog"]["lessons"][0]["subtitleUrl"] == {"en": url}
    (name,) = objects(tenant, lesson_id)
    assert name.startswith(f"clients/{tenant.client_id}/lessons/{lesson_id}/subtitles/en/") and name.endswith(".vtt")
    fetched = requests.get(url, timeout=10)
    assert fetched.status_code == 200
    assert fetched.content == VTT
    assert fetched.headers["Content-Type"].startswith("text/vtt")
    # The app read form shows the same URL.
    read = http.get(f"/api/lessons/{lesson_id}", headers=tenant.player.headers).json["lesson"]
    assert read["subtitleUrl"] == {"en": url}


def test_a_new_upload_replaces_the_file_of_that_locale_only(http, tenant):
    lesson_id = create_lesson(http, tenant)
    first = upload(http, tenant, lesson_id).json["subtitleUrl"]
    chinese = upload(http, tenant, lesson_id, data=VTT_2, locale="zh_Hant", filename="zh.VTT",
                     content_type="application/octet-stream").json["subtitleUrl"]
    old_objects = objects(tenant, lesson_id)
    second = upload(http, tenant, lesson_id, data=VTT_2).json["subtitleUrl"]
    assert second != first
    assert lesson_doc(tenant, lesson_id)["subtitleUrl"] == {"en": second, "zh_Hant": chinese}
    assert requests.get(second, timeout=10).content == VTT_2
    remaining = objects(tenant, lesson_id)
    assert len(remaining) == 2 and len(set(remaining) & set(old_objects)) == 1  # the old en file is gone


def test_platform_admin_uploads_for_any_client(http, tenant, platform_admin):
    lesson_id = create_lesson(http, tenant)
    response = upload(http, tenant, lesson_id, locale="zh_Hans", headers=platform_admin.headers,
                      query=f"?clientId={tenant.client_id}")
    assert response.status_code == 200
    assert set(lesson_doc(tenant, lesson_id)["subtitleUrl"]) == {"zh_Hans"}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"locale": None}, service.UNSUPPORTED_LOCALE),
    ({"locale": "fr"}, service.UNSUPPORTED_LOCALE),
    ({"locale": "zh"}, service.UNSUPPORTED_LOCALE),
    ({"data": None}, service.MISSING_FILE),
    ({"filename": ""}, service.MISSING_FILE),
    ({"filename": "en.srt"}, service.UNSUPPORTED_FILE_TYPE),
    ({"content_type": "image/png"}, service.UNSUPPORTED_FILE_TYPE),
    ({"data": b"1\n00:00:01,000 --> 00:00:02,000\nSRT\n"}, "The file is not valid WebVTT: line 1: "),
    ({"data": b"WEBVTT\n\n00:05.000 --> 00:01.000\nbackwards\n"}, "The file is not valid WebVTT: line 3: "),
    ({"data": b""}, "The file is not valid WebVTT"),
])
def test_bad_uploads_are_400_and_store_nothing(http, tenant, kwargs, message):
    lesson_id = create_lesson(http, tenant)
    before = lesson_doc(tenant, lesson_id)
    response = upload(http, tenant, lesson_id, **kwargs)
    assert response.status_code == 400
    assert response.json["error"].startswith(message), response.json
    assert objects(tenant, lesson_id) == []
    assert lesson_doc(tenant, lesson_id) == before


def test_json_body_instead_of_multipart_is_400(http, tenant):
    lesson_id = create_lesson(http, tenant)
    response = http.post(f"{CATALOG}/{lesson_id}/subtitle", json={"locale": "en"}, headers=tenant.admin.headers)
    assert response.status_code == 400 and response.json == {"error": service.MISSING_FILE}


def test_file_size_is_bounded(http, tenant):
    lesson_id = create_lesson(http, tenant)
    big = b"WEBVTT\n\n00:00.000 --> 00:01.000\n" + b"x" * service.MAX_SUBTITLE_BYTES + b"\n"
    response = upload(http, tenant, lesson_id, data=big)
    assert response.status_code == 413
    assert response.json == {"error": service.SUBTITLE_TOO_LARGE}
    response = upload(http, tenant, lesson_id, data=big * 3)
    assert response.status_code == 413
    assert response.json == {"error": "Request body is too large."}
    assert objects(tenant, lesson_id) == []


def test_unknown_or_foreign_lesson_is_404(http, tenant, other_tenant):
    foreign = create_lesson(http, other_tenant)
    for lesson_id in ("nope", foreign, "x..y"):
        response = upload(http, tenant, lesson_id)
        assert response.status_code == 404
        assert response.json == {"error": "Lesson not found."}
    assert objects(other_tenant, foreign) == []


def test_a_failed_lesson_update_deletes_the_new_file_and_keeps_the_old_one(http, tenant, monkeypatch):
    lesson_id = create_lesson(http, tenant)
    first = upload(http, tenant, lesson_id).json["subtitleUrl"]
    before = lesson_doc(tenant, lesson_id)
    kept = objects(tenant, lesson_id)

    def unavailable(self, *args, **kwargs):  # Firestore refuses the commit (a fake at its boundary)
        raise gexc.ServiceUnavailable("firestore is down")

    monkeypatch.setattr(fs_transaction.Transaction, "_commit", unavailable)
    response = upload(http, tenant, lesson_id, data=VTT_2)
    monkeypatch.undo()
    assert response.status_code == 500
    assert response.json == {"error": "Internal server error"}
    assert lesson_doc(tenant, lesson_id) == before
    assert objects(tenant, lesson_id) == kept
    assert requests.get(first, timeout=10).content == VTT


def test_setting_a_subtitle_url_by_patch_detaches_the_uploaded_file(http, tenant):
    lesson_id = create_lesson(http, tenant)
    upload(http, tenant, lesson_id)
    upload(http, tenant, lesson_id, locale="zh_Hant")
    response = http.patch(f"{CATALOG}/{lesson_id}", json={"subtitleUrl": {"en": "https://cdn.example/en.vtt"}},
                          headers=tenant.admin.headers)
    assert response.status_code == 200
    stored = lesson_doc(tenant, lesson_id)
    assert stored["subtitleUrl"]["en"] == "https://cdn.example/en.vtt"
    assert set(stored["subtitleFiles"]) == {"zh_Hant"}
    assert [name.split("/")[-2] for name in objects(tenant, lesson_id)] == ["zh_Hant"]
