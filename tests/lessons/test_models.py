"""Lesson shapes and conversions (pure): minutes <-> seconds, {_seconds, _nanoseconds}, read and catalog forms."""

import datetime as dt

import pytest

from wellness_api.core import http
from wellness_api.lessons import models


@pytest.mark.parametrize(("minutes", "seconds"), [(0, 0), (1, 60), (12.5, 750), (0.1, 6), (7.25, 435), (1440, 86400)])
def test_minutes_and_seconds_round_trip(minutes, seconds):
    assert models.minutes_to_seconds(minutes) == seconds
    assert models.seconds_to_minutes(seconds) == minutes
    assert isinstance(models.minutes_to_seconds(12.0), int)


def test_timestamp_object_is_firestore_json_form():
    moment = dt.datetime(2024, 3, 5, 6, 7, 8, 123456, tzinfo=dt.UTC)
    assert models.timestamp_object(moment) == {"_seconds": 1709618828, "_nanoseconds": 123456000}
    assert models.timestamp_object(None) is None


STORED = {
    "id": "abc", "clientId": "c1", "status": "ACTIVE", "isLive": True,
    "title": {"en": "Stretch", "zh_Hant": "伸展"}, "description": {"en": "Gentle"},
    "durationSeconds": 750, "MET": 2.5, "algorithm": "Video", "intensity": "Low", "equipment": "Mat",
    "categories": ["Mobility"], "areas": ["Legs"], "membershipTiers": ["Free"],
    "subtitleUrl": {"en": "https://x.example/en.vtt"}, "subtitleFiles": {"en": {"path": "p", "token": "t"}},
    "videoURLs": ["https://x.example/v.m3u8"], "imageUrl": "https://x.example/i.jpg",
    "sessions": [
        {"title": {"en": "Warm"}, "startSeconds": 0, "endSeconds": 60, "type": "warmup"},
        {"startSeconds": 60, "endSeconds": 90, "type": "reps", "repPoseId": "squat", "repCount": 10},
    ],
    "relatedLessonIds": ["other"], "groupByIntensity": "LOW",
    "createdAt": dt.datetime(2024, 1, 1, tzinfo=dt.UTC), "modifiedAt": dt.datetime(2024, 1, 2, 0, 0, 1, tzinfo=dt.UTC),
    "createdBy": "u1", "modifiedBy": "u2",
}


def test_lesson_config_read_form():
    related = {**STORED, "id": "other", "relatedLessonIds": ["abc"]}
    config = models.lesson_config(STORED, [related])
    assert config["id"] == "abc" and config["clientId"] == "c1" and config["idHtmlEncoded"] == "abc"
    assert config["duration"] == 750  # seconds in the read form
    assert config["title"] == {"en": "Stretch", "zh_Hant": "伸展"}
    assert config["subtitleUrl"] == {"en": "https://x.example/en.vtt"}
    assert config["sessions"] == [
        {"index": 0, "category": "warmup", "title": {"en": "Warm"}, "start": 0, "end": 60},
        {"index": 1, "category": "reps", "start": 60, "end": 90, "repPoseId": "squat", "targetRepCount": 10},
    ]
    assert config["createDatetime"] == {"_seconds": 1704067200, "_nanoseconds": 0}
    assert config["modifyDatetime"] == {"_seconds": 1704153601, "_nanoseconds": 0}
    assert config["groupByIntensity"] == "LOW" and config["createdBy"] == "u1" and config["modifiedBy"] == "u2"
    assert [r["id"] for r in config["relatedLessons"]] == ["other"]
    assert "relatedLessons" not in config["relatedLessons"][0]  # no cycles
    for internal in ("subtitleFiles", "relatedLessonIds", "durationSeconds", "createdAt"):
        assert internal not in config


def test_catalog_summary_form():
    summary = models.catalog_lesson(STORED)
    assert summary == {
        "id": "abc", "name": {"en": "Stretch", "zh_Hant": "伸展"}, "duration": 12.5,
        "categories": ["Mobility"], "areas": ["Legs"], "membershipTiers": ["Free"],
        "equipment": "Mat", "intensity": "Low", "algorithm": "Video", "status": "ACTIVE",
        "createdDate": "2024-01-01T00:00:00.000Z", "isLive": True,
        "subtitleUrl": {"en": "https://x.example/en.vtt"},
        "sessions": [
            {"title": {"en": "Warm"}, "startSeconds": 0, "endSeconds": 60, "type": "warmup"},
            {"title": {}, "startSeconds": 60, "endSeconds": 90, "type": "reps", "repPoseId": "squat", "repCount": 10},
        ],
    }


def test_catalog_envelope_tiers_configured_first_then_used():
    lessons = [{**STORED, "membershipTiers": ["Gold", "Free"]}, {**STORED, "id": "b", "isLive": False,
                                                                 "membershipTiers": ["Alpha"]}]
    envelope = models.catalog_envelope("c1", lessons, ["Free", "Plus"])
    assert envelope["clientId"] == "c1"
    assert envelope["liveLessonIds"] == ["abc"]
    assert envelope["allTiers"] == ["Free", "Plus", "Alpha", "Gold"]


def test_write_body_converts_to_stored_changes():
    body = http.validate(models.CreateLessonBody, {
        "title": {"en": "T", "zh_Hant": "題"}, "duration": 12.5, "MET": 3,
        "sessions": [{"title": {"en": "A"}, "startSeconds": 0, "endSeconds": 30.5, "type": "main", "repCount": 3}],
        "categories": ["a", "a", "b"], "isLive": True,
    })
    fields, localized = models.stored_changes(body)
    assert fields == {"durationSeconds": 750, "MET": 3, "categories": ["a", "b"], "isLive": True,
                      "sessions": [{"title": {"en": "A"}, "startSeconds": 0, "endSeconds": 30.5, "type": "main",
                                    "repCount": 3}]}
    assert localized == {"title": {"en": "T", "zh_Hant": "題"}}


def test_patch_nulls_mean_remove():
    body = http.validate(models.UpdateLessonBody, {"imageUrl": None, "title": {"zh_Hant": None}, "duration": None})
    fields, localized = models.stored_changes(body)
    assert fields == {"imageUrl": None, "durationSeconds": None}
    assert models.merge_localized({"en": "T", "zh_Hant": "題"}, localized["title"]) == {"en": "T"}


@pytest.mark.parametrize(("model", "body", "message"), [
    (models.CreateLessonBody, {}, "Missing required field: title.en."),
    (models.CreateLessonBody, {"title": {"zh_Hant": "題"}}, "Missing required field: title.en."),
    (models.CreateLessonBody, {"title": {"en": "   "}}, "Invalid field title.en: must not be blank."),
    (models.CreateLessonBody, {"title": {"en": "x" * 201}}, "Invalid field title.en"),
    (models.CreateLessonBody, {"title": {"en": "T", "fr": "x"}}, "Unknown field: title.fr."),
    (models.CreateLessonBody, {"title": {"en": "T"}, "duration": "10"}, "Invalid field duration"),
    (models.CreateLessonBody, {"title": {"en": "T"}, "duration": -1}, "Invalid field duration"),
    (models.CreateLessonBody, {"title": {"en": "T"}, "isLive": "true"}, "Invalid field isLive"),
    (models.CreateLessonBody, {"title": {"en": "T"}, "imageUrl": "javascript:alert(1)"}, "Invalid field imageUrl"),
    (models.CreateLessonBody, {"title": {"en": "T"}, "categories": ["x"] * 21}, "Invalid field categories"),
    (models.CreateLessonBody, {"title": {"en": "T"}, "membershipTiers": ["bad/tier"]}, "Invalid field membershipTiers.0"),
    (models.CreateLessonBody, {"title": {"en": "T"}, "sessions": [{"startSeconds": 5, "endSeconds": 1}]},
     "Invalid field sessions.0"),
    (models.CreateLessonBody, {"title": {"en": "T"}, "sessions": [{"start": 5}]}, "Unknown field: sessions.0.start."),
    (models.CreateLessonBody, {"title": {"en": "T"}, "status": "ACTIVE"}, "Unknown field: status."),
    (models.UpdateLessonBody, {"title": {"en": None}}, "title.en cannot be removed."),
    (models.UpdateLessonBody, {"title": None}, "title.en cannot be removed."),
    (models.UpdateLessonBody, {"isLive": None}, "Invalid field isLive: must be true or false."),
    (models.CatalogPatchBody, {"liveLessonIds": "a"}, "Invalid field liveLessonIds"),
    (models.CatalogPatchBody, {"lessonTierUpdates": [{"lessonId": "a"}]},
     "Missing required field: lessonTierUpdates.0.membershipTiers."),
])
def test_bad_bodies(model, body, message):
    with pytest.raises(http.BodyError) as err:
        http.validate(model, body)
    assert err.value.message.startswith(message), err.value.message


def test_localizable_locales_come_in_a_stable_order():
    assert list(models.localizable({"zh_Hans": "a", "xx": "d", "en": "b", "zh_Hant": "c"})) == [
        "en", "zh_Hant", "zh_Hans", "xx"]
    assert models.localizable(None) == {}


def test_membership_tiers_setting_is_an_ordered_list():
    from wellness_api.core import settings

    assert settings.parse_assignment("lessons.membershipTiers= Free, Plus ,Premium,Plus,") == (
        "lessons.membershipTiers", ["Free", "Plus", "Premium"])
    assert settings.get(None, "lessons.membershipTiers") == []
    for bad in ("lessons.membershipTiers=a/b", "lessons.membershipTiers=" + ",".join(f"t{i}" for i in range(21))):
        with pytest.raises(settings.SettingError):
            settings.parse_assignment(bad)
    assert all(models.valid_tier(t) for t in ("Free", "Plus 2", "金卡"))
