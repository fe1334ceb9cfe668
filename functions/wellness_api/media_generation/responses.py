"""What media generation answers with (2.13); the handlers' bodies are checked against these."""

from typing import Literal

from pydantic import Field

from ..core.openapi import Closed

Status = Literal["queued", "processing", "uploading", "available", "failed", "attached"]


class MediaPromptContext(Closed):
    name: str | None = None
    category: str | None = None
    description: str | None = None


class MediaPromptInput(Closed):
    promptText: str
    context: MediaPromptContext


class MediaReferenceImage(Closed):
    url: str
    name: str | None = None
    mediaType: Literal["image"]


class MediaJob(Closed):
    """A media-generation job (2.13)."""

    jobId: str
    clientId: str
    mediaType: Literal["image", "video"]
    module: str
    targetType: str
    targetEntityId: str
    status: Status
    promptPreset: str
    promptInput: MediaPromptInput
    referenceImages: list[MediaReferenceImage]
    normalizedPrompt: str = Field(description="The prompt the provider receives: the preset's template filled "
                                              "from promptInput.")
    policyProfile: str
    generationMode: str
    model: str
    durationSeconds: float = Field(description="Videos: the clip's length; 0 for images.")
    aspectRatio: str
    resolution: str = Field(description="WIDTHxHEIGHT.")
    seed: int | None = Field(description="The requested seed, when applied.")
    providerGenerationId: str | None = Field(description="The vendor's id of the generation, when it gives one.")
    providerCostUsd: float | None = Field(description="What the vendor charged, when it says.")
    billingPresetKey: str
    warnings: list[str] = Field(description="requestedSettings the policy did not apply, and why.")
    hostedVideoId: str | None = Field(description="Videos: the media asset id of the stored video.")
    mediaAssetId: str | None = Field(description="The media library record of the result.")
    resultVideoUrl: str | None = Field(description="Videos, once available: a download URL that needs no "
                                                   "credentials.")
    resultImageUrl: str | None = Field(description="Images, once available: a download URL that needs no "
                                                   "credentials.")
    resultMediaType: str | None = Field(description="The result's content type: image/png or video/mp4.")
    errorMessage: str | None
    attemptCount: int = Field(description="How many times a worker started the job.")
    createdAt: str
    updatedAt: str
    attachedAt: str | None


class MediaExecution(Closed):
    mode: Literal["background"] = Field(description="Jobs always run in the background.")
    processor: str = Field(description="The Cloud Tasks queue that runs the job.")
    queueEventId: str = Field(description="Opaque; correlates the job's execution with server logs.")


class MediaJobQueued(Closed):
    job: MediaJob
    execution: MediaExecution


class MediaJobList(Closed):
    jobs: list[MediaJob]
    nextStartAfter: str | None = Field(description="Pass as startAfter for the next page; null on the last.")


class MediaJobRemoved(Closed):
    success: Literal[True]
    jobId: str
    status: Literal["cancelled", "removed"] = Field(description="cancelled: it was queued and never ran; removed: "
                                                                "a failed job left the history.")
