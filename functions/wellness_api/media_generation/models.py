"""What media-generation requests carry (4.9), validated strictly, and the job's states (3.3)."""

import re
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt, StrictStr

from ..core.http import QueryInt
from . import presets, references

QUEUED, PROCESSING, UPLOADING, AVAILABLE, FAILED, ATTACHED = (
    "queued", "processing", "uploading", "available", "failed", "attached")
STATUSES = (QUEUED, PROCESSING, UPLOADING, AVAILABLE, FAILED, ATTACHED)
RUNNING = (PROCESSING, UPLOADING)  # a worker holds the job (its lease)
DELETABLE = (QUEUED, FAILED)  # 3.3: queued jobs are cancelled, failed ones removed
RETRYABLE = (FAILED, AVAILABLE, ATTACHED)  # 3.3: "failed or completed earlier"; stalled running jobs too

PAGE_DEFAULT, PAGE_MAX = 20, 100
MAX_REFERENCES = 4
MAX_PROMPT_TEXT = 2000
IMAGE_MODES = ("text-to-image", "image-to-image")
VIDEO_MODES = ("text-to-video", "image-to-video")
MAX_SIDE = {presets.IMAGE: 4096, presets.VIDEO: 1920}
MIN_SIDE = 64
MAX_VIDEO_SECONDS = 10
MAX_SEED = 2**31 - 1
MAX_NAME = 40
MAX_ENTITY_ID = 128
MAX_ID = 64  # tenancy.valid_id: client and job ids

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
_MODEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$")
_RATIO = re.compile(r"^([1-9][0-9]?):([1-9][0-9]?)$")
_RESOLUTION = re.compile(r"^([1-9][0-9]{1,3})x([1-9][0-9]{1,3})$")


def _name(value: str) -> str:
    if not _NAME.match(value):
        raise ValueError("must start with a letter and hold at most 40 letters, digits, - or _")
    return value


def _entity_id(value: str) -> str:
    if not value.strip() or len(value) > 128 or any(c < " " for c in value):
        raise ValueError("must be 1 to 128 characters, without control characters")
    return value


def _model(value: str) -> str:
    if not _MODEL.match(value):
        raise ValueError("must be a model name of at most 100 letters, digits and . _ : / -")
    return value


def _ratio(value: str) -> str:
    if not _RATIO.match(value):
        raise ValueError("must be WIDTH:HEIGHT with whole numbers from 1 to 99, like 16:9")
    return value


def _resolution(value: str) -> str:
    match = _RESOLUTION.match(value)
    if not match or not all(MIN_SIDE <= int(side) <= MAX_SIDE[presets.IMAGE] for side in match.groups()):
        raise ValueError(f"must be WIDTHxHEIGHT with sides from {MIN_SIDE} to {MAX_SIDE[presets.IMAGE]}, "
                         "like 1024x1024")
    return value


def _reference_url(value: str) -> str:
    try:
        references.screen(value)
    except references.UnsafeReference as exc:
        raise ValueError(str(exc)) from None
    return value


# Literal types built from the tuples above and the presets' table, which stay the one list of each; mypy cannot
# unpack a tuple into a Literal, so to it they are plain strings.
if TYPE_CHECKING:
    GenerationMode = str
    PresetName = str
    JobStatus = str
else:
    GenerationMode = Literal[*IMAGE_MODES, *VIDEO_MODES]
    PresetName = Literal[*presets.PRESETS]
    JobStatus = Literal[*STATUSES]


class PromptContext(BaseModel):
    """What the media is about, filled into the preset's template."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[StrictStr, Field(max_length=200)] | None = Field(
        default=None, description="The entity's name, e.g. the exercise's.")
    category: Annotated[StrictStr, Field(max_length=100)] | None = Field(default=None, description="Its category, e.g. strength.")
    description: Annotated[StrictStr, Field(max_length=2000)] | None = Field(default=None, description="A short description.")


class PromptInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    promptText: Annotated[StrictStr, Field(max_length=MAX_PROMPT_TEXT)] = Field(
        description="The administrator's wishes, appended to the preset's template (may be empty when context.name "
                    "is given).")
    context: PromptContext = Field(default_factory=PromptContext)


class RequestedSettings(BaseModel):
    """4.9 rule 3: honoured for platform administrators, filtered by the client's policy for others."""

    model_config = ConfigDict(extra="forbid")

    model: Annotated[StrictStr, Field(max_length=100), AfterValidator(_model)] | None = Field(
        default=None, description="A model name, at most 100 characters (platform administrators).")
    generationMode: GenerationMode | None = None
    durationSeconds: Annotated[StrictInt, Field(ge=1, le=MAX_VIDEO_SECONDS)] | None = Field(
        default=None, description=f"Videos only: 1 to {MAX_VIDEO_SECONDS} seconds.")
    aspectRatio: Annotated[StrictStr, Field(max_length=5), AfterValidator(_ratio)] | None = Field(
        default=None, description="W:H, each 1 to 99.")
    resolution: Annotated[StrictStr, Field(max_length=9), AfterValidator(_resolution)] | None = Field(
        default=None, description=f"WIDTHxHEIGHT in pixels, {MIN_SIDE} to {MAX_SIDE[presets.IMAGE]} a side "
                                  f"({MAX_SIDE[presets.VIDEO]} for videos).")
    seed: Annotated[StrictInt, Field(ge=0, le=MAX_SEED)] | None = Field(
        default=None, description="The same prompt and seed render the same picture with the local generator.")


class ReferenceImage(BaseModel):
    """4.9 rule 2; fetched by the worker, never from a private, loopback or link-local address."""

    model_config = ConfigDict(extra="forbid")

    url: Annotated[StrictStr, Field(max_length=references.MAX_URL_LENGTH), AfterValidator(_reference_url)] = Field(
        description="A public https URL (port 443) of an image, at most 2,048 characters.")
    name: Annotated[StrictStr, Field(max_length=200)] | None = None
    mediaType: Literal["image"] = "image"


class CreateJobBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mediaType: Literal["image", "video"] = Field(description="Must be the preset's media type.")
    module: Annotated[StrictStr, Field(max_length=MAX_NAME), AfterValidator(_name)] = Field(
        description="The product module, e.g. aiMove.")
    targetType: Annotated[StrictStr, Field(max_length=MAX_NAME), AfterValidator(_name)] = Field(
        description="What the media is for, e.g. exercise.")
    targetEntityId: Annotated[StrictStr, Field(max_length=MAX_ENTITY_ID), AfterValidator(_entity_id)] = Field(
        description=f"Its id, 1 to {MAX_ENTITY_ID} characters.")
    promptPreset: PresetName = Field(description="One of the presets (GET the README's table).")
    promptInput: PromptInput
    requestedSettings: RequestedSettings | None = None
    referenceImages: Annotated[list[ReferenceImage], Field(max_length=MAX_REFERENCES)] = Field(
        default_factory=list, description=f"At most {MAX_REFERENCES}.")


class LegacyCreateJobBody(CreateJobBody):
    """The legacy video path: mediaType defaults to video, as older integrations never sent it."""

    mediaType: Literal["image", "video"] = Field(default="video", description="Defaults to video on this path.")


class ClientQuery(BaseModel):
    clientId: Annotated[str, Field(max_length=MAX_ID)] | None = Field(
        default=None, description="Defaults to the caller's client; only platform administrators may name another "
                                  "client.")


class JobsQuery(ClientQuery):
    status: JobStatus | None = None
    query: Annotated[str, Field(max_length=200)] | None = Field(
        default=None, description="Case-insensitive text found in the job id, the prompt text, the target entity "
                                  "id or the model.")
    limit: QueryInt = Field(default=PAGE_DEFAULT, ge=1, le=PAGE_MAX, description=f"Page size, 1 to {PAGE_MAX}.")
    startAfter: Annotated[str, Field(max_length=MAX_ID)] | None = Field(
        default=None, description="The nextStartAfter of the previous page.")
