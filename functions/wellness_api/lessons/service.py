"""Lesson rules (4.1, 2.2-2.5, 3.5, 7.3): the app list, the B2B catalog, live plans and subtitles.

Every catalog mutation is one Firestore transaction that reads and writes the client's catalog state
document (repository.state_ref), so concurrent mutations of one client serialize: a bulk live-set
change, a per-lesson PATCH and a plan creation can never interleave into a live plan that holds a
hidden lesson. Nothing is written when a rule refuses a request.
"""

import dataclasses
from collections.abc import Iterable
from typing import Any

from ..core import auth, clock, tenancy, transactions
from ..core import logging as log
from ..core.auth import Principal
from ..core.errors import ApiError
from ..core.tenancy import Client
from . import models, webvtt
from . import repository as repo
from .models import CatalogPatchBody, CreateLessonBody, UpdateLessonBody

CLIENT_ID_REQUIRED = "clientId is required."
WRONG_CLIENT = "This token is not valid for the requested client."
CLIENT_NOT_FOUND = auth.CLIENT_NOT_FOUND
LESSON_NOT_FOUND = "Lesson not found."
NOTHING_TO_UPDATE = "The body must contain at least one lesson field."
PATCH_NEEDS_ONE = "At least one of liveLessonIds or lessonTierUpdates is required."
LIVE_PLAN_CONFLICT = (
    "Turning off these lessons also turns off the live plans that contain them; "
    "repeat the request with force true to turn those plans off too."
)
TOO_MANY_LESSONS = f"A client can have at most {models.MAX_LESSONS_PER_CLIENT} lessons."
TOO_MANY_PLANS = f"A client can have at most {models.MAX_PLANS_PER_CLIENT} lesson plans."
LESSON_TOO_LARGE = (f"A lesson can take at most {models.MAX_LESSON_BYTES // 1024} KiB stored (its fields as JSON, "
                    "UTF-8); this one would take {n} bytes.")
SELF_RELATED = "A lesson cannot be related to itself."
UNSUPPORTED_LOCALE = "Unsupported locale: use en, zh_Hant or zh_Hans."
MISSING_FILE = "Missing file: send the WebVTT file in the multipart field 'file'."
UNSUPPORTED_FILE_TYPE = "Unsupported file type: upload a WebVTT (.vtt) file."
MAX_SUBTITLE_BYTES = models.MAX_SUBTITLE_BYTES
SUBTITLE_TOO_LARGE = f"Subtitle files are limited to {MAX_SUBTITLE_BYTES // 1024} KiB."
# Content types browsers and HTTP tools send for a .vtt file.
SUBTITLE_CONTENT_TYPES = ("text/vtt", "text/plain", "application/octet-stream", "")
TIERS_SETTING = "lessons.membershipTiers"


def _unknown_ids(ids: Iterable[str]) -> ApiError:
    shown = list(dict.fromkeys(ids))
    more = f" (and {len(shown) - 10} more)" if len(shown) > 10 else ""
    return ApiError(400, f"Unknown lesson ids: {', '.join(shown[:10])}{more}.")


# ------------------------------------------------------------------------------------ who may act


def reader_client_id(principal: Principal, requested: str | None) -> str | None:
    """The client whose live lessons a JWT may read: its own; platform administrators any client.

    None when a platform administrator names a client that does not exist (nothing to read or meter).
    """
    if not requested:
        raise ApiError(400, CLIENT_ID_REQUIRED)
    if requested == principal.client_id:
        return requested
    if not (principal.kind == "user" and principal.platform_admin):
        raise ApiError(401, WRONG_CLIENT)
    return requested if tenancy.get_client(requested) is not None else None


def managed_client(principal: Principal, requested: str | None) -> Client:
    """The client an admin manages (4.1 rule 1): its own, or with ?clientId any client for platform admins."""
    return auth.administered_client(principal, requested)


# ------------------------------------------------------------------------------------ app reads


def list_live(client_id: str) -> list[dict]:
    """LessonConfigs of the live lessons. Every live related lesson is in the same result, so the
    relatedLessons are resolved without another read (reads = lessons returned), and are embedded by
    reference: copied whole, 300 lessons with 20 related each made the answer 21 times the catalog."""
    lessons = repo.live_lessons(client_id)
    by_id = {lesson["id"]: lesson for lesson in lessons}
    return [
        models.lesson_config(lesson, [by_id[r] for r in lesson.get("relatedLessonIds") or [] if r in by_id],
                             by_reference=True)
        for lesson in lessons
    ]


def get_live(client_id: str, lesson_id: str) -> dict:
    lesson = repo.get_lesson(client_id, lesson_id) if tenancy.valid_id(lesson_id) else None
    if lesson is None or not lesson.get("isLive"):
        raise ApiError(404, LESSON_NOT_FOUND)
    related_ids = [r for r in lesson.get("relatedLessonIds") or [] if r != lesson_id]
    related = [r for r in repo.get_lessons(client_id, related_ids) if r.get("isLive")]
    return models.lesson_config(lesson, related)


# ------------------------------------------------------------------------------------ catalog


def catalog(client: Client) -> dict:
    lessons = repo.catalog_lessons(client.client_id)
    return models.catalog_envelope(client.client_id, lessons, list(client.setting(TIERS_SETTING) or []))


def _apply(lesson: dict, fields: dict[str, Any], localized: dict[str, dict[str, Any]]) -> None:
    for name, value in fields.items():
        if value is None:
            lesson.pop(name, None)
        else:
            lesson[name] = value
    for name, changes in localized.items():
        merged = models.merge_localized(lesson.get(name), changes)
        if merged:
            lesson[name] = merged
        else:
            lesson.pop(name, None)


def _check_size(lesson: dict) -> None:
    size = models.stored_bytes(lesson)
    if size > models.MAX_LESSON_BYTES:
        raise ApiError(400, LESSON_TOO_LARGE.format(n=f"{size:,}"))


def _check_related(transaction, client_id: str, lesson_id: str, related_ids: list[str] | None) -> None:
    if not related_ids:
        return
    if lesson_id in related_ids:
        raise ApiError(400, SELF_RELATED)
    found = repo.read_lessons_in(transaction, client_id, related_ids)
    missing = [i for i in related_ids if i not in found]
    if missing:
        raise _unknown_ids(missing)


def _detached_subtitles(before: dict, after: dict) -> list[str]:
    """Uploaded subtitle files whose locale now has another URL (or none): drop them from the lesson."""
    files = dict(after.get("subtitleFiles") or {})
    obsolete = []
    for locale, info in list(files.items()):
        if (after.get("subtitleUrl") or {}).get(locale) != (before.get("subtitleUrl") or {}).get(locale):
            obsolete.append(info["path"])
            del files[locale]
    if files:
        after["subtitleFiles"] = files
    else:
        after.pop("subtitleFiles", None)
    return obsolete


def _delete_objects(paths: Iterable[str]) -> None:
    for path in paths:
        try:
            repo.delete_object(path)
        except Exception as exc:  # noqa: BLE001 - an orphaned file is logged, the lesson is already consistent
            log.warning(f"subtitle object not deleted: {type(exc).__name__}", path=path)


def create_lesson(client: Client, body: CreateLessonBody, actor: str, *, lesson_id: str | None = None,
                  extras: dict | None = None) -> str:
    """Create a lesson (hidden unless isLive is true); `lesson_id` and `extras` are for the demo seed."""
    client_id = client.client_id
    fields, localized = models.stored_changes(body)
    lesson_id = lesson_id or repo.new_lesson_id(client_id)
    now = clock.now()
    lesson: dict[str, Any] = {
        "id": lesson_id,
        "clientId": client_id,
        "status": models.DEFAULT_STATUS,
        "isLive": False,
        "membershipTiers": [],
        "categories": [],
        "areas": [],
        "sessions": [],
        "createdAt": now,
        "modifiedAt": now,
        "createdBy": actor,
        "modifiedBy": actor,
        **(extras or {}),
    }
    _apply(lesson, fields, localized)
    _check_size(lesson)

    def run(transaction) -> None:
        state = repo.read_state_in(transaction, client_id)
        if state.get("lessonCount", 0) >= models.MAX_LESSONS_PER_CLIENT:
            raise ApiError(400, TOO_MANY_LESSONS)
        _check_related(transaction, client_id, lesson_id, lesson.get("relatedLessonIds"))
        repo.create_lesson(transaction, client_id, lesson)
        repo.write_state(transaction, client_id, {"lessonCount": state.get("lessonCount", 0) + 1})

    transactions.run(run)
    return lesson_id


def _live_plan_conflicts(plans: list[dict], turning_off: set[str]) -> list[dict]:
    return [plan for plan in plans if turning_off.intersection(plan.get("lessonIds") or [])]


def _turn_plans_off(transaction, client_id: str, plans: list[dict], now, actor: str) -> None:
    for plan in plans:
        repo.update_plan(transaction, client_id, plan["id"], {"isLive": False, "modifiedAt": now, "modifiedBy": actor})


def _conflict(plans: list[dict]) -> ApiError:
    return ApiError(409, LIVE_PLAN_CONFLICT, extra={"conflicts": [models.plan_conflict(p) for p in plans]})


def update_lesson(client: Client, lesson_id: str, body: UpdateLessonBody, actor: str) -> None:
    """PATCH one lesson (any 2.5 subset); isLive false hides it, with the live-plan rule of 4.1."""
    client_id = client.client_id
    fields, localized = models.stored_changes(body)
    if not fields and not localized:
        raise ApiError(400, NOTHING_TO_UPDATE)
    if not tenancy.valid_id(lesson_id):
        raise ApiError(404, LESSON_NOT_FOUND)

    def run(transaction) -> list[str]:
        repo.read_state_in(transaction, client_id)  # read + written: serializes catalog mutations
        lesson = repo.read_lesson_in(transaction, client_id, lesson_id)
        if lesson is None:
            raise ApiError(404, LESSON_NOT_FOUND)
        _check_related(transaction, client_id, lesson_id, fields.get("relatedLessonIds"))
        conflicts = []
        if fields.get("isLive") is False and lesson.get("isLive"):
            conflicts = _live_plan_conflicts(repo.live_plans_in(transaction, client_id), {lesson_id})
            if conflicts and not body.force:
                raise _conflict(conflicts)
        updated = dict(lesson)
        _apply(updated, fields, localized)
        _check_size(updated)
        obsolete = _detached_subtitles(lesson, updated)
        now = clock.now()
        updated["modifiedAt"] = now
        updated["modifiedBy"] = actor
        repo.replace_lesson(transaction, client_id, updated)
        _turn_plans_off(transaction, client_id, conflicts, now, actor)
        repo.write_state(transaction, client_id, {})
        return obsolete

    _delete_objects(transactions.run(run))


def patch_catalog(client: Client, body: CatalogPatchBody, actor: str) -> None:
    """Bulk PATCH (4.1 rule 2): the complete live set and/or tier updates, in one transaction."""
    client_id = client.client_id
    if body.liveLessonIds is None and body.lessonTierUpdates is None:
        raise ApiError(400, PATCH_NEEDS_ONE)
    tier_updates: dict[str, list[str]] = {}
    for update in body.lessonTierUpdates or []:
        if update.lessonId in tier_updates:
            raise ApiError(400, f"lessonTierUpdates names lesson {update.lessonId} more than once.")
        tier_updates[update.lessonId] = list(dict.fromkeys(update.membershipTiers))

    def run(transaction) -> None:
        repo.read_state_in(transaction, client_id)  # read + written: serializes catalog mutations
        lessons = {lesson["id"]: lesson for lesson in repo.catalog_lessons(client_id, transaction=transaction)}
        plans = repo.live_plans_in(transaction, client_id) if body.liveLessonIds is not None else []
        unknown = [i for i in [*(body.liveLessonIds or []), *tier_updates] if i not in lessons]
        if unknown:
            raise _unknown_ids(unknown)
        changes: dict[str, dict[str, Any]] = {}
        conflicts: list[dict] = []
        if body.liveLessonIds is not None:
            live = set(body.liveLessonIds)
            turning_off = {i for i, lesson in lessons.items() if lesson.get("isLive") and i not in live}
            conflicts = _live_plan_conflicts(plans, turning_off)
            if conflicts and not body.force:
                raise _conflict(conflicts)
            for lesson_id, lesson in lessons.items():
                if bool(lesson.get("isLive")) != (lesson_id in live):
                    changes.setdefault(lesson_id, {})["isLive"] = lesson_id in live
        for lesson_id, tiers in tier_updates.items():
            if list(lessons[lesson_id].get("membershipTiers") or []) != tiers:
                changes.setdefault(lesson_id, {})["membershipTiers"] = tiers
                _check_size({**lessons[lesson_id], "membershipTiers": tiers})
        now = clock.now()
        for lesson_id, fields in changes.items():
            repo.update_lesson(transaction, client_id, lesson_id, {**fields, "modifiedAt": now, "modifiedBy": actor})
        _turn_plans_off(transaction, client_id, conflicts, now, actor)
        repo.write_state(transaction, client_id, {})

    transactions.run(run)


# ------------------------------------------------------------------------------------ subtitles


@dataclasses.dataclass(frozen=True)
class SubtitleFile:
    filename: str | None
    content_type: str | None
    data: bytes | None  # None when the file is larger than MAX_SUBTITLE_BYTES


def _validate_subtitle(locale: str | None, upload: SubtitleFile | None) -> tuple[str, bytes, webvtt.Track]:
    """(locale, the file's bytes, its cues) of an acceptable upload."""
    if upload is None or not upload.filename:
        raise ApiError(400, MISSING_FILE)
    if locale not in models.SUBTITLE_LOCALES:
        raise ApiError(400, UNSUPPORTED_LOCALE)
    content_type = (upload.content_type or "").split(";")[0].strip().lower()
    if not upload.filename.lower().endswith(".vtt") or content_type not in SUBTITLE_CONTENT_TYPES:
        raise ApiError(400, UNSUPPORTED_FILE_TYPE)
    if upload.data is None:
        raise ApiError(413, SUBTITLE_TOO_LARGE)
    try:
        return locale, upload.data, webvtt.parse(upload.data)
    except webvtt.WebVTTError as exc:
        raise ApiError(400, f"The file is not valid WebVTT: {exc}.") from None


def upload_subtitle(client: Client, lesson_id: str, locale: str | None, upload: SubtitleFile | None,
                    actor: str) -> str:
    """Store one localized subtitle and point the lesson at it; returns its URL (4.1 rule 5).

    The file goes to a new object first; the lesson is then updated in a transaction. If that fails
    the new object is deleted, so a failed upload leaves the lesson and its old file as they were.
    The replaced file is deleted only after the lesson points at the new one.
    """
    client_id = client.client_id
    if not tenancy.valid_id(lesson_id) or repo.get_lesson(client_id, lesson_id) is None:
        raise ApiError(404, LESSON_NOT_FOUND)
    locale, data, track = _validate_subtitle(locale, upload)
    path = repo.subtitle_path(client_id, lesson_id, locale)
    token = repo.upload_subtitle(path, data, locale)
    url = repo.download_url(path, token)

    def run(transaction) -> str | None:
        repo.read_state_in(transaction, client_id)  # read + written: serializes catalog mutations
        lesson = repo.read_lesson_in(transaction, client_id, lesson_id)
        if lesson is None:
            raise ApiError(404, LESSON_NOT_FOUND)
        files = dict(lesson.get("subtitleFiles") or {})
        previous = (files.get(locale) or {}).get("path")
        now = clock.now()
        files[locale] = {"path": path, "token": token, "bytes": len(data), "cues": len(track.cues),
                         "uploadedAt": now, "uploadedBy": actor}
        repo.update_lesson(transaction, client_id, lesson_id, {
            "subtitleUrl": {**(lesson.get("subtitleUrl") or {}), locale: url},
            "subtitleFiles": files,
            "modifiedAt": now,
            "modifiedBy": actor,
        })
        repo.write_state(transaction, client_id, {})
        return previous

    try:
        previous = transactions.run(run)
    except BaseException:
        _delete_objects([path])
        raise
    if previous and previous != path:
        _delete_objects([previous])
    return url


# ------------------------------------------------------------------------------------ plans


def create_plan(client_id: str, title: dict[str, str], lesson_ids: list[str], live: bool, *,
                plan_id: str | None = None, actor: str = "platformctl") -> str:
    """A lesson plan (platformctl `plan create`, the seed). A live plan holds only live lessons."""
    if not (title.get("en") or "").strip() or any(len(t) > models.MAX_TITLE for t in title.values()):
        raise ApiError(400, f"A plan needs an English title of 1 to {models.MAX_TITLE} characters.")
    lesson_ids = list(dict.fromkeys(lesson_ids))
    if not lesson_ids or len(lesson_ids) > models.MAX_LESSONS_PER_PLAN:
        raise ApiError(400, f"A plan holds 1 to {models.MAX_LESSONS_PER_PLAN} lessons.")
    if tenancy.get_client(client_id) is None:
        raise ApiError(404, CLIENT_NOT_FOUND)
    invalid = [i for i in lesson_ids if not tenancy.valid_id(i)]
    if invalid:
        raise _unknown_ids(invalid)
    plan_id = plan_id or repo.new_plan_id(client_id)

    def run(transaction) -> None:
        state = repo.read_state_in(transaction, client_id)
        if state.get("planCount", 0) >= models.MAX_PLANS_PER_CLIENT:
            raise ApiError(400, TOO_MANY_PLANS)
        lessons = repo.read_lessons_in(transaction, client_id, lesson_ids)
        missing = [i for i in lesson_ids if i not in lessons]
        if missing:
            raise _unknown_ids(missing)
        hidden = [i for i in lesson_ids if not lessons[i].get("isLive")]
        if live and hidden:
            raise ApiError(400, f"A live plan holds only live lessons; not live: {', '.join(hidden)}.")
        now = clock.now()
        repo.create_plan(transaction, client_id, {
            "id": plan_id, "clientId": client_id, "title": dict(title), "lessonIds": lesson_ids, "isLive": live,
            "createdAt": now, "modifiedAt": now, "createdBy": actor, "modifiedBy": actor,
        })
        repo.write_state(transaction, client_id, {"planCount": state.get("planCount", 0) + 1})

    transactions.run(run)
    return plan_id


# ------------------------------------------------------------------------------------ plays

INVALID_PLAY_ID = "playId must be 8 to 64 letters, digits, hyphens or underscores."
PLAY_OF_ANOTHER_LESSON = "This playId belongs to another lesson."


def new_play(client_id: str, uid: str, lesson_id: str, play_id: str, completed: bool, now) -> dict:
    return {"playId": play_id, "lessonId": lesson_id, "clientId": client_id, "userId": uid,
            "status": "completed" if completed else "started", "startedAt": now,
            "completedAt": now if completed else None, "updatedAt": now}


def report_play(principal: Principal, lesson_id: str, play_id: str, body: models.PlayBody) -> tuple[dict, bool]:
    """Record that the caller started or finished a live lesson of their client; (the play, whether it is new).

    The app chooses the playId, so a report sent twice (a retry, a flaky network) is the same play: it counts
    once as a play and once as completed, in the same transaction as the play is written."""
    if not models.PLAY_ID.fullmatch(play_id):
        raise ApiError(400, INVALID_PLAY_ID)
    client_id, uid = principal.client_id, principal.uid
    if client_id is None or uid is None or tenancy.get_client(client_id) is None:
        raise ApiError(401, WRONG_CLIENT)
    get_live(client_id, lesson_id)
    completed = body.status == "completed"

    def run(transaction) -> tuple[dict, bool]:
        stored = repo.read_play_in(transaction, client_id, uid, play_id)
        now = clock.now()
        if stored is None:
            play = new_play(client_id, uid, lesson_id, play_id, completed, now)
            repo.write_play(transaction, play, {"plays": 1, "completedPlays": int(completed)})
            return play, True
        if stored["lessonId"] != lesson_id:
            raise ApiError(409, PLAY_OF_ANOTHER_LESSON)
        if completed and stored["status"] != "completed":
            play = {**stored, "status": "completed", "completedAt": now, "updatedAt": now}
            repo.write_play(transaction, play, {"completedPlays": 1})
            return play, False
        return stored, False

    play, created = transactions.run(run)
    return models.play_view(play), created
