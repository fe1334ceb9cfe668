"""The lessons area's caps (issue 25): every input that sizes work is bounded in the OpenAPI document and refused
past its bound with a 400 naming it; one lesson's stored size is bounded, and the app list does not multiply it."""

import json

import pytest

from support import caps
from tests.lessons.conftest import CATALOG, create_lesson
from tests.lessons.test_subtitles import lesson_doc, upload
from wellness_api.core import firebase
from wellness_api.lessons import models, service, webvtt
from wellness_api.openapi import document


def refused(response, message: str) -> None:
    assert response.status_code == 400, response.json
    assert response.json == {"error": message}


def test_the_openapi_document_bounds_every_lessons_input():
    found = [row for row in caps.violations(document.build()) if row[0] == "Lessons"]
    assert found == []


@pytest.mark.parametrize("path", ["/api/lessons", "/api/lessons/some-lesson", CATALOG])
def test_client_id_in_the_query_is_at_most_64_characters(http, tenant, path):
    too_long = "c" * (models.MAX_CLIENT_ID + 1)
    refused(http.get(path, query_string={"clientId": too_long}, headers=tenant.admin.headers),
            f"Invalid field clientId: String should have at most {models.MAX_CLIENT_ID} characters.")
    # At the cap the id is read: it is simply not the caller's client.
    response = http.get(path, query_string={"clientId": "c" * models.MAX_CLIENT_ID}, headers=tenant.admin.headers)
    assert response.status_code in (401, 403), response.json


# ------------------------------------------------------------------------------------ one lesson's size


def padded_description(http, tenant, lesson_id: str, size: int) -> dict:
    """A description that makes the stored lesson exactly `size` bytes (models.stored_bytes)."""
    wide = "字" * models.MAX_DESCRIPTION  # 3 bytes each
    description = {"zh_Hant": wide, "zh_Hans": wide, "en": "x"}
    response = http.patch(f"{CATALOG}/{lesson_id}", json={"description": description}, headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    base = models.stored_bytes(lesson_doc(tenant, lesson_id))
    description["en"] = "x" * (size - base + 1)
    assert 0 < len(description["en"]) <= models.MAX_DESCRIPTION
    return description


def test_a_lesson_at_the_size_cap_is_stored_and_one_byte_more_is_refused(http, tenant):
    lesson_id = create_lesson(http, tenant)
    description = padded_description(http, tenant, lesson_id, models.MAX_LESSON_BYTES)
    response = http.patch(f"{CATALOG}/{lesson_id}", json={"description": description}, headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    assert models.stored_bytes(lesson_doc(tenant, lesson_id)) == models.MAX_LESSON_BYTES

    response = http.patch(f"{CATALOG}/{lesson_id}", json={"description": {"en": description["en"] + "x"}},
                          headers=tenant.admin.headers)
    refused(response, service.LESSON_TOO_LARGE.format(n=f"{models.MAX_LESSON_BYTES + 1:,}"))
    assert models.stored_bytes(lesson_doc(tenant, lesson_id)) == models.MAX_LESSON_BYTES  # nothing written

    # The same bound on create, and on a tier update of the bulk PATCH.
    body = {"title": {"en": "Lesson"}, "description": {**description, "en": description["en"] + "x" * 100}}
    response = http.post(CATALOG, json=body, headers=tenant.admin.headers)
    assert response.status_code == 400 and response.json["error"].startswith("A lesson can take at most 32 KiB")
    response = http.patch(CATALOG, json={"lessonTierUpdates": [{"lessonId": lesson_id, "membershipTiers": ["Gold"]}]},
                          headers=tenant.admin.headers)
    assert response.status_code == 400 and response.json["error"].startswith("A lesson can take at most 32 KiB")


def test_the_app_list_names_related_lessons_instead_of_copying_them(http, tenant):
    # Each related lesson used to be embedded whole in every lesson relating to it: 300 live lessons of
    # 32 KiB with 20 related each made a 200 MB answer from a 10 MB catalog.
    wide = {"en": "d" * models.MAX_DESCRIPTION, "zh_Hant": "d" * models.MAX_DESCRIPTION}
    related = [create_lesson(http, tenant, isLive=True, description=wide) for _ in range(3)]
    create_lesson(http, tenant, isLive=True, relatedLessonIds=related)
    stored = sum(len(json.dumps(doc.to_dict(), default=str))
                 for doc in firebase.db().collection(f"clients/{tenant.client_id}/lessons").stream())
    response = http.get("/api/lessons", query_string={"clientId": tenant.client_id}, headers=tenant.player.headers)
    assert response.status_code == 200
    # The answer is about the size of the lessons it holds (one copy of each, in the read form), not 2x.
    assert len(response.get_data()) < stored + 5_000
    assert [r["id"] for r in response.json["data"][3]["relatedLessons"]] == related


# ------------------------------------------------------------------------------------ subtitles


def test_a_cue_time_with_thousands_of_hour_digits_is_invalid_webvtt_not_a_500(http, tenant):
    # int() of more than 4,300 digits raises ValueError (Python's limit), which escaped as a 500.
    hours = "1" * 5000
    data = f"WEBVTT\n\n{hours}:00:00.000 --> {hours}:00:01.000\nHello\n".encode()
    with pytest.raises(webvtt.WebVTTError) as err:
        webvtt.parse(data)
    assert err.value.line == 3 and err.value.reason == f"invalid cue start time {'1' * webvtt.MAX_QUOTED + '...'!r}"
    lesson_id = create_lesson(http, tenant)
    response = upload(http, tenant, lesson_id, data=data)
    assert response.status_code == 400, response.json
    assert response.json["error"].startswith("The file is not valid WebVTT: line 3: invalid cue start time '1111")
    assert len(response.json["error"]) < 200  # the offending line is quoted in part, not whole


def test_hours_up_to_six_digits_are_a_timestamp():
    top = "9" * webvtt.MAX_HOUR_DIGITS
    track = webvtt.parse(f"WEBVTT\n\n00:00.000 --> {top}:00:00.000\nLong\n".encode())
    assert track.cues[0].end == int(top) * 3600
    with pytest.raises(webvtt.WebVTTError, match="invalid cue end time"):
        webvtt.parse(f"WEBVTT\n\n00:00.000 --> 1{top}:00:00.000\nLonger\n".encode())


def test_the_subtitle_form_documents_its_bounds():
    schema = models.SubtitleForm.model_json_schema()["properties"]
    assert schema["locale"]["enum"] == list(models.SUBTITLE_LOCALES)
    assert schema["file"]["maxLength"] == models.MAX_SUBTITLE_BYTES
