"""Lesson bodies (2.5) and the three shapes of a lesson: stored, LessonConfig (2.2) and catalog summary (2.4).

One canonical stored form, converted here and nowhere else:
- durations are stored in seconds (`durationSeconds`); the catalog (2.4, 2.5) speaks minutes, the read
  form (2.2) seconds;
- sessions are stored as {title, startSeconds, endSeconds, type, repPoseId, repCount}; the read form
  (2.3) calls them {index, category, title, start, end, repPoseId, targetRepCount};
- timestamps are stored as Firestore timestamps; the read form shows {_seconds, _nanoseconds}, the
  catalog an ISO 8601 string.
"""

import datetime as dt
import html
import json
import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from ..core import clock, tenancy
from ..core.text import MultiLine, SingleLine

# Limits (README "Lessons: limits").
MAX_LESSONS_PER_CLIENT = 300
MAX_PLANS_PER_CLIENT = 100
MAX_LESSONS_PER_PLAN = 50
MAX_TITLE = 200
MAX_DESCRIPTION = 5000
MAX_LABEL = 80
MAX_URL = 2048
MAX_LIST = 20
MAX_VIDEO_URLS = 10
MAX_SESSIONS = 100
MAX_MINUTES = 24 * 60
MAX_SECONDS = 24 * 3600
MAX_SUBTITLE_BYTES = 512 * 1024
MAX_TIER = 40
# One lesson's stored fields (as JSON, UTF-8). Each field has its own cap, but a lesson at all of them would take
# about 600 KB, and the catalog answers (after every change) and the app list carry up to 300 lessons each.
MAX_LESSON_BYTES = 32 * 1024
MAX_CLIENT_ID = 64  # core.tenancy.valid_id: no client id is longer

LOCALES = ("en", "zh", "zh_Hant", "zh_Hans")
SUBTITLE_LOCALES = ("en", "zh_Hant", "zh_Hans")
GENERAL_STATUS = ("ACTIVE", "INACTIVE", "ARCHIVED")
DEFAULT_STATUS = "ACTIVE"


def _url(value: str) -> str:
    if not re.match(r"^https?://[^\s/?#]+[^\s]*$", value):
        raise PydanticCustomError("url", "must be an http(s) URL without spaces")
    return value


def valid_tier(value: str) -> bool:
    """The same names as the `lessons.membershipTiers` setting accepts, starting with a letter or digit."""
    return 0 < len(value) <= MAX_TIER and value[0].isalnum() and all(c.isalnum() or c in " _.-" for c in value)


def _tier(value: str) -> str:
    if not valid_tier(value):
        raise PydanticCustomError("tier", "a membership tier is 1 to 40 letters, digits, spaces, '.', '_' or '-'")
    return value


def _lesson_id(value: str) -> str:
    if not tenancy.valid_id(value):
        raise PydanticCustomError("lesson_id", "not a lesson id")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "must not be blank")
    return value


# Text fields are SingleLine (no control, line-break or bidi override characters) except descriptions,
# which are MultiLine (LF, CRLF and TAB allowed); see core/text.py.
Number = Annotated[float, Field(allow_inf_nan=False)]
Url = Annotated[SingleLine, Field(max_length=MAX_URL), AfterValidator(_url)]
Label = Annotated[SingleLine, Field(min_length=1, max_length=MAX_LABEL)]
# _tier words its own refusal; the schema shows the same bound.
Tier = Annotated[SingleLine, AfterValidator(_tier), WithJsonSchema({"type": "string", "minLength": 1,
                                                                    "maxLength": MAX_TIER})]
LessonId = Annotated[SingleLine, Field(max_length=64), AfterValidator(_lesson_id)]
# An id a request names (liveLessonIds, lessonTierUpdates): unknown ones are refused later by lookup.
NamedLessonId = Annotated[SingleLine, Field(min_length=1, max_length=128)]
TitleText = Annotated[SingleLine, Field(min_length=1, max_length=MAX_TITLE), AfterValidator(_not_blank)]
DescriptionText = Annotated[MultiLine, Field(max_length=MAX_DESCRIPTION)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Title(_Strict):
    """A lesson title (2.1): en required at creation; a null locale in a PATCH removes it."""

    en: TitleText | None = None
    zh: TitleText | None = None
    zh_Hant: TitleText | None = None
    zh_Hans: TitleText | None = None


class Description(_Strict):
    en: DescriptionText | None = None
    zh: DescriptionText | None = None
    zh_Hant: DescriptionText | None = None
    zh_Hans: DescriptionText | None = None


class SubtitleUrls(_Strict):
    en: Url | None = None
    zh: Url | None = None
    zh_Hant: Url | None = None
    zh_Hans: Url | None = None


class Session(_Strict):
    """A session as written (2.5): times in seconds from the start of the video."""

    title: Title | None = None
    startSeconds: Annotated[Number, Field(ge=0, le=MAX_SECONDS)] | None = None
    endSeconds: Annotated[Number, Field(ge=0, le=MAX_SECONDS)] | None = None
    type: Label | None = None
    repPoseId: Annotated[SingleLine, Field(min_length=1, max_length=100)] | None = None
    repCount: Annotated[int, Field(ge=0, le=10_000)] | None = None

    @model_validator(mode="after")
    def _ordered(self):
        if self.startSeconds is not None and self.endSeconds is not None and self.endSeconds < self.startSeconds:
            raise PydanticCustomError("session_order", "endSeconds must not be before startSeconds")
        return self


class LessonFields(_Strict):
    """The lesson write fields (2.5), plus relatedLessonIds and (PATCH only) force. All optional here."""

    title: Title | None = None
    description: Description | None = None
    duration: Annotated[Number, Field(ge=0, le=MAX_MINUTES)] | None = None  # minutes
    MET: Annotated[Number, Field(ge=0, le=30)] | None = None
    algorithm: Label | None = None
    intensity: Label | None = None
    categories: Annotated[list[Label], Field(max_length=MAX_LIST)] | None = None
    areas: Annotated[list[Label], Field(max_length=MAX_LIST)] | None = None
    equipment: Label | None = None
    imageUrl: Url | None = None
    thumbImageUrl: Url | None = None
    thumbnailTimeInSeconds: Annotated[Number, Field(ge=0, le=MAX_SECONDS)] | None = None
    videoURLs: Annotated[list[Url], Field(max_length=MAX_VIDEO_URLS)] | None = None
    subtitleUrl: SubtitleUrls | None = None
    sessions: Annotated[list[Session], Field(max_length=MAX_SESSIONS)] | None = None
    isLive: bool | None = None
    membershipTiers: Annotated[list[Tier], Field(max_length=MAX_LIST)] | None = None
    relatedLessonIds: Annotated[list[LessonId], Field(max_length=MAX_LIST)] | None = None


class CreateLessonBody(LessonFields):
    @model_validator(mode="after")
    def _title_en(self):
        if self.title is None or self.title.en is None:
            raise PydanticCustomError("lesson_rule", "Missing required field: title.en")
        return self


class UpdateLessonBody(LessonFields):
    force: bool = False

    @model_validator(mode="after")
    def _title_en_kept(self):
        sent = self.model_fields_set
        if "title" in sent and (self.title is None or ("en" in self.title.model_fields_set and self.title.en is None)):
            raise PydanticCustomError("lesson_rule", "title.en cannot be removed")
        if "isLive" in sent and self.isLive is None:
            raise PydanticCustomError("lesson_rule", "Invalid field isLive: must be true or false")
        return self


class TierUpdate(_Strict):
    lessonId: NamedLessonId
    membershipTiers: Annotated[list[Tier], Field(max_length=MAX_LIST)]


class CatalogPatchBody(_Strict):
    liveLessonIds: Annotated[list[NamedLessonId], Field(max_length=MAX_LESSONS_PER_CLIENT)] | None = None
    lessonTierUpdates: Annotated[list[TierUpdate], Field(max_length=MAX_LESSONS_PER_CLIENT)] | None = None
    force: bool = False


# ------------------------------------------------------------------------------------ conversions


def _number(value: float) -> int | float:
    """A JSON number without float noise: 12.0 -> 12, 6.000000000000001 -> 6."""
    value = round(float(value), 4)
    return int(value) if value.is_integer() else value


def minutes_to_seconds(minutes: float) -> int | float:
    return _number(minutes * 60)


def seconds_to_minutes(seconds: float) -> int | float:
    return _number(seconds / 60)


def timestamp_object(value: dt.datetime | None) -> dict[str, int] | None:
    """{_seconds, _nanoseconds} of a timestamp (2.2), as Firestore's own JSON form writes it."""
    if value is None:
        return None
    value = value.astimezone(dt.UTC)
    seconds = (value - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(seconds=1)
    nanos = getattr(value, "nanosecond", None)
    if not isinstance(nanos, int) or nanos == 0:
        nanos = value.microsecond * 1000
    return {"_seconds": seconds, "_nanoseconds": nanos}


def _localized(model: BaseModel | None) -> dict[str, Any]:
    """The locales a Localizable model sets, None included (None means "remove" in a PATCH)."""
    if model is None:
        return {}
    return {name: getattr(model, name) for name in model.model_fields_set}


def stored_session(session: Session) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if session.title is not None:
        title = {k: v for k, v in _localized(session.title).items() if v is not None}
        if title:
            out["title"] = title
    for name in ("startSeconds", "endSeconds"):
        value = getattr(session, name)
        if value is not None:
            out[name] = _number(value)
    for name in ("type", "repPoseId", "repCount"):
        value = getattr(session, name)
        if value is not None:
            out[name] = value
    return out


_LOCALIZED_FIELDS = ("title", "description", "subtitleUrl")
_PLAIN_FIELDS = ("MET", "algorithm", "intensity", "equipment", "imageUrl", "thumbImageUrl", "thumbnailTimeInSeconds")
_LIST_FIELDS = ("categories", "areas", "videoURLs", "membershipTiers", "relatedLessonIds")


def stored_changes(body: LessonFields) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The stored-form changes of a write body.

    Returns (fields, localized): `fields` maps stored field names to new values, None meaning
    "delete the field"; `localized` maps title/description/subtitleUrl to {locale: text or None}
    to merge into the stored map. Fields the body does not mention are not in either.
    """
    sent = body.model_fields_set
    fields: dict[str, Any] = {}
    localized: dict[str, dict[str, Any]] = {}
    for name in _LOCALIZED_FIELDS:
        if name in sent:
            value = getattr(body, name)
            # `"description": null` clears every locale.
            localized[name] = _localized(value) if value is not None else {locale: None for locale in LOCALES}
    if "duration" in sent:
        fields["durationSeconds"] = None if body.duration is None else minutes_to_seconds(body.duration)
    for name in _PLAIN_FIELDS:
        if name in sent:
            value = getattr(body, name)
            fields[name] = _number(value) if isinstance(value, float) else value
    for name in _LIST_FIELDS:
        if name in sent:
            value = getattr(body, name)
            fields[name] = list(dict.fromkeys(value)) if value is not None else []
    if "sessions" in sent:
        fields["sessions"] = [stored_session(s) for s in body.sessions or []]
    if "isLive" in sent:
        fields["isLive"] = bool(body.isLive)
    return fields, localized


# Bookkeeping the platform writes, not the caller: left out of a lesson's size.
_UNSIZED = ("createdAt", "modifiedAt", "createdBy", "modifiedBy", "subtitleFiles")


def stored_bytes(lesson: dict[str, Any]) -> int:
    """What MAX_LESSON_BYTES bounds: the lesson's fields as compact JSON in UTF-8, bookkeeping left out."""
    fields = {k: v for k, v in lesson.items() if k not in _UNSIZED}
    return len(json.dumps(fields, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def merge_localized(current: dict[str, Any] | None, changes: dict[str, Any]) -> dict[str, Any]:
    merged = dict(current or {})
    for locale, value in changes.items():
        if value is None:
            merged.pop(locale, None)
        else:
            merged[locale] = value
    return merged


# ------------------------------------------------------------------------------------ read forms

# Stored 2.2 fields that no 2.5 write sets (the seed and future tools do); shown when present.
_GROUP_FIELDS = (
    "groupByIntensity", "groupByStyles", "groupByTypes", "groupByMuscles", "groupByGoals",
    "groupByEquipments", "groupByTrainers", "batch",
)


def localizable(value: dict[str, Any] | None) -> dict[str, Any]:
    """A copy of a stored Localizable with its locales in a stable order (en, zh, zh_Hant, zh_Hans)."""
    value = value or {}
    order = {locale: index for index, locale in enumerate(LOCALES)}
    return {k: value[k] for k in sorted(value, key=lambda k: (order.get(k, len(order)), k))}


def read_session(index: int, session: dict[str, Any]) -> dict[str, Any]:
    """A stored session in the read form (2.3)."""
    out: dict[str, Any] = {"index": index}
    if session.get("type") is not None:
        out["category"] = session["type"]
    if session.get("title"):
        out["title"] = localizable(session["title"])
    if session.get("startSeconds") is not None:
        out["start"] = session["startSeconds"]
    if session.get("endSeconds") is not None:
        out["end"] = session["endSeconds"]
    if session.get("repPoseId") is not None:
        out["repPoseId"] = session["repPoseId"]
    if session.get("repCount") is not None:
        out["targetRepCount"] = session["repCount"]
    return out


def lesson_reference(data: dict[str, Any]) -> dict[str, Any]:
    """A related lesson named, not copied (2.2: every field may be absent): the app list holds it whole."""
    return {"id": data["id"], "idHtmlEncoded": html.escape(data["id"], quote=True), "clientId": data["clientId"],
            "uniqueID": data.get("uniqueID") or f"{data['clientId']}:{data['id']}"}


def lesson_config(data: dict[str, Any], related: list[dict[str, Any]] | None = None,
                  by_reference: bool = False) -> dict[str, Any]:
    """LessonConfig (2.2) of a stored lesson; `related` are the stored related lessons to embed.

    Embedded related lessons are LessonConfigs without their own relatedLessons (no cycles); `by_reference`
    embeds only their ids (lesson_reference).
    """
    lesson_id = data["id"]
    out: dict[str, Any] = {
        "id": lesson_id,
        "idHtmlEncoded": html.escape(lesson_id, quote=True),
        "clientId": data["clientId"],
        "uniqueID": data.get("uniqueID") or f"{data['clientId']}:{lesson_id}",
    }
    for name in ("baseLessonID", "videoId", "planEnrollmentId"):
        if data.get(name) is not None:
            out[name] = data[name]
    if data.get("modifiedBy"):
        out["modifiedBy"] = data["modifiedBy"]
    if data.get("createdBy"):
        out["createdBy"] = data["createdBy"]
    for name in ("imageUrl", "imageBlurDataUrl", "thumbImageUrl"):
        if data.get(name) is not None:
            out[name] = data[name]
    out["status"] = data.get("status") or DEFAULT_STATUS
    out["title"] = localizable(data.get("title"))
    if data.get("description"):
        out["description"] = localizable(data["description"])
    if data.get("subtitleUrl"):
        out["subtitleUrl"] = localizable(data["subtitleUrl"])
    if data.get("videoURLs"):
        out["videoURLs"] = list(data["videoURLs"])
    if data.get("MET") is not None:
        out["MET"] = data["MET"]
    if data.get("durationSeconds") is not None:
        out["duration"] = data["durationSeconds"]
    for name in ("isIndividual", "requiredWarmup", "requiredCooldown", "sync"):
        if data.get(name) is not None:
            out[name] = bool(data[name])
    for name in ("intensity", "algorithm"):
        if data.get(name) is not None:
            out[name] = data[name]
    out["sessions"] = [read_session(i, s) for i, s in enumerate(data.get("sessions") or [])]
    for name in _GROUP_FIELDS:
        if data.get(name) is not None:
            out[name] = data[name]
    if related is not None:
        out["relatedLessons"] = [lesson_reference(r) if by_reference else lesson_config(r) for r in related]
    out["modifyDatetime"] = timestamp_object(data.get("modifiedAt"))
    out["createDatetime"] = timestamp_object(data.get("createdAt"))
    # Documented-as-additional fields (2.2 "additional undocumented fields may appear", 9.6).
    out["isLive"] = bool(data.get("isLive"))
    out["membershipTiers"] = list(data.get("membershipTiers") or [])
    out["categories"] = list(data.get("categories") or [])
    out["areas"] = list(data.get("areas") or [])
    if data.get("equipment") is not None:
        out["equipment"] = data["equipment"]
    if data.get("thumbnailTimeInSeconds") is not None:
        out["thumbnailTimeInSeconds"] = data["thumbnailTimeInSeconds"]
    return {k: v for k, v in out.items() if v is not None}


def catalog_session(session: dict[str, Any]) -> dict[str, Any]:
    """A stored session in the catalog form (2.4); repPoseId and repCount are added when set."""
    out: dict[str, Any] = {
        "title": localizable(session.get("title")),
        "startSeconds": session.get("startSeconds", 0),
        "endSeconds": session.get("endSeconds", session.get("startSeconds", 0)),
        "type": session.get("type") or "",
    }
    for name in ("repPoseId", "repCount"):
        if session.get(name) is not None:
            out[name] = session[name]
    return out


def catalog_lesson(data: dict[str, Any]) -> dict[str, Any]:
    """The catalog lesson summary (2.4) of a stored lesson."""
    seconds = data.get("durationSeconds")
    return {
        "id": data["id"],
        "name": localizable(data.get("title")),
        "duration": seconds_to_minutes(seconds) if seconds is not None else 0,
        "categories": list(data.get("categories") or []),
        "areas": list(data.get("areas") or []),
        "membershipTiers": list(data.get("membershipTiers") or []),
        "equipment": data.get("equipment") or "",
        "intensity": str(data["intensity"]) if data.get("intensity") is not None else "",
        "algorithm": data.get("algorithm") or "",
        "status": data.get("status") or DEFAULT_STATUS,
        "createdDate": clock.iso(data.get("createdAt")),
        "isLive": bool(data.get("isLive")),
        "subtitleUrl": localizable(data.get("subtitleUrl")),
        "sessions": [catalog_session(s) for s in data.get("sessions") or []],
    }


def catalog_envelope(client_id: str, lessons: list[dict[str, Any]], configured_tiers: list[str]) -> dict[str, Any]:
    """The catalog summary envelope (2.4): allTiers = configured tiers, then any other tier in use."""
    used = sorted({tier for lesson in lessons for tier in lesson.get("membershipTiers") or []} - set(configured_tiers))
    return {
        "clientId": client_id,
        "lessons": [catalog_lesson(lesson) for lesson in lessons],
        "liveLessonIds": [lesson["id"] for lesson in lessons if lesson.get("isLive")],
        "allTiers": [*configured_tiers, *used],
    }


def plan_conflict(plan: dict[str, Any]) -> dict[str, Any]:
    return {"id": plan["id"], "title": localizable(plan.get("title"))}


# ------------------------------------------------------------------------------------ query and form


class ListLessonsQuery(BaseModel):
    """GET /api/lessons: the client whose live lessons to read."""

    clientId: str = Field(max_length=MAX_CLIENT_ID,
                          description="The caller's own client; platform administrators may name any client.")


class ClientQuery(BaseModel):
    clientId: str | None = Field(default=None, max_length=MAX_CLIENT_ID,
                                 description="Defaults to the caller's own client; only platform administrators may "
                                             "name another client.")


class SubtitleForm(BaseModel):
    """multipart/form-data fields of a subtitle upload (4.1 rule 5); documentation only: the route reads the form."""

    locale: Literal["en", "zh_Hant", "zh_Hans"] = Field(description="en, zh_Hant or zh_Hans.")
    file: bytes = Field(max_length=MAX_SUBTITLE_BYTES,
                        description=f"A WebVTT (.vtt) file of at most {MAX_SUBTITLE_BYTES // 1024} KiB.")



# ------------------------------------------------------------------------------------ plays (reported by the app)

PLAY_STATUSES = ("started", "completed")
PLAY_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")  # fullmatch: "$" would let a trailing newline in


class PlayBody(_Strict):
    """PUT /api/lessons/{lessonId}/plays/{playId}: where the play stands."""

    status: Literal["started", "completed"] = Field(
        description="started when the video begins, completed when it is watched to the end. A completed play "
                    "stays completed: reporting it started again changes nothing.")


def play_view(play: dict[str, Any]) -> dict[str, Any]:
    return {
        "playId": play["playId"], "lessonId": play["lessonId"], "status": play["status"],
        "startedAt": clock.iso(play["startedAt"]),
        "completedAt": clock.iso(play["completedAt"]) if play.get("completedAt") else None,
    }
