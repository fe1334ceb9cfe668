"""What the lessons family answers with (4.1, 2.2-2.4, 7.3); the handlers' bodies are checked against these."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.openapi import Closed, PlainError

Localizable = dict[str, str]  # keyed by language: en, zh, zh_Hant, zh_Hans (2.1)



class FirestoreTimestamp(Closed):
    seconds: int = Field(alias="_seconds")
    nanoseconds: int = Field(alias="_nanoseconds")


class LessonSession(Closed):
    """A session of a lesson, read form (2.3); times in seconds from the start of the video."""

    index: int
    category: str | None = None
    title: Localizable | None = None
    start: float | None = None
    end: float | None = None
    repPoseId: str | None = None
    targetRepCount: int | None = None


class LessonReference(Closed):
    """A related lesson in the app list: named, not copied, since the same list holds it whole."""

    id: str
    idHtmlEncoded: str
    clientId: str
    uniqueID: str


class LessonConfig(BaseModel):
    """A lesson, read form (2.2). Fields may be absent; additional fields may appear (9.6)."""

    model_config = ConfigDict(extra="allow")

    id: str
    idHtmlEncoded: str
    clientId: str
    uniqueID: str
    baseLessonID: str | None = None
    videoId: str | None = None
    planEnrollmentId: str | None = None
    modifiedBy: str | None = None
    createdBy: str | None = None
    imageUrl: str | None = None
    imageBlurDataUrl: str | None = None
    thumbImageUrl: str | None = None
    status: str = Field(description="GENERAL_STATUS: ACTIVE, INACTIVE or ARCHIVED.")
    title: Localizable
    description: Localizable | None = None
    subtitleUrl: Localizable | None = None
    videoURLs: list[str] | None = None
    MET: float | None = None
    duration: float | None = Field(default=None, description="Seconds.")
    isIndividual: bool | None = None
    requiredWarmup: bool | None = None
    requiredCooldown: bool | None = None
    sync: bool | None = None
    intensity: float | str | None = None
    algorithm: str | None = None
    sessions: list[LessonSession]
    groupByIntensity: str | None = None
    groupByStyles: list[str] | None = None
    groupByTypes: list[str] | None = None
    groupByMuscles: list[str] | None = None
    groupByGoals: list[str] | None = None
    groupByEquipments: list[str] | None = None
    groupByTrainers: list[str] | None = None
    batch: float | None = None
    relatedLessons: list["LessonConfig | LessonReference"] | None = Field(
        default=None, description="GET /api/lessons/{lessonId}: the live related lessons whole. GET /api/lessons: "
                                  "references to them (the list holds each whole), at most 20.")
    modifyDatetime: FirestoreTimestamp | None = None
    createDatetime: FirestoreTimestamp | None = None
    isLive: bool
    membershipTiers: list[str]
    categories: list[str]
    areas: list[str]
    equipment: str | None = None
    thumbnailTimeInSeconds: float | None = None


class LessonList(Closed):
    """The live lessons of the client."""

    data: list[LessonConfig]


class OneLesson(Closed):
    """One live lesson, with its related lessons."""

    lesson: LessonConfig


class CatalogSession(Closed):
    title: Localizable
    startSeconds: float
    endSeconds: float
    type: str
    repPoseId: str | None = None
    repCount: int | None = None


class CatalogLesson(Closed):
    """A catalog lesson summary (2.4); duration in minutes."""

    id: str
    name: Localizable
    duration: float = Field(description="Minutes.")
    categories: list[str]
    areas: list[str]
    membershipTiers: list[str]
    equipment: str
    intensity: str
    algorithm: str
    status: str
    createdDate: str | None
    isLive: bool
    subtitleUrl: Localizable
    sessions: list[CatalogSession]


class Catalog(Closed):
    """The catalog summary (2.4) of the managed client."""

    clientId: str
    lessons: list[CatalogLesson]
    liveLessonIds: list[str]
    allTiers: list[str] = Field(description="The configured membership tiers, then any other tier in use.")


class CatalogUpdated(Closed):
    """The catalog after the change."""

    success: Literal[True]
    catalog: Catalog


class LessonCreated(Closed):
    """The new lesson's id and the catalog."""

    success: Literal[True]
    lessonId: str
    catalog: Catalog


class SubtitleUploaded(Closed):
    """The stored subtitle's URL and the catalog."""

    success: Literal[True]
    subtitleUrl: str
    catalog: Catalog


class PlanConflict(Closed):
    id: str
    title: Localizable


class LivePlanConflict(PlainError):
    """The change would turn off lessons held by live plans; repeat with force true after confirming."""

    conflicts: list[PlanConflict]


class LessonPlay(Closed):
    playId: str
    lessonId: str
    status: Literal["started", "completed"]
    startedAt: str
    completedAt: str | None


class PlayReported(Closed):
    """The play as it stands after the report."""

    play: LessonPlay
