"""The generation presets (4.9 rule 1): media type, prompt template, policy profile, billing key and defaults.

A preset is what an administrator picks ("a thumbnail for this exercise"); the template turns the job's
promptInput into the prompt the provider receives, and the defaults are the settings a client gets unless its
policy lets it change them (README, Media generation: the client policy).
"""

import dataclasses
import re

IMAGE, VIDEO = "image", "video"
MAX_PROMPT_CHARS = 2000


@dataclasses.dataclass(frozen=True)
class Settings:
    model: str
    generationMode: str
    aspectRatio: str
    resolution: str
    durationSeconds: float = 0


@dataclasses.dataclass(frozen=True)
class Preset:
    key: str
    media_type: str
    template: str  # {name}, {category}, {description} from promptInput.context; {promptText}
    policy_profile: str
    billing_preset_key: str
    defaults: Settings


LOCAL_IMAGE, LOCAL_VIDEO = "local-image-1", "local-video-1"

PRESETS = {p.key: p for p in (
    Preset("image-exercise-thumbnail", IMAGE,
           "A clear, friendly thumbnail of the exercise {name} ({category}): {description}. {promptText}",
           "catalog-thumbnail", "image-standard", Settings(LOCAL_IMAGE, "text-to-image", "1:1", "1024x1024")),
    Preset("image-coach-portrait", IMAGE,
           "A warm, professional portrait of the coach {name} ({category}): {description}. {promptText}",
           "people-portrait", "image-standard", Settings(LOCAL_IMAGE, "text-to-image", "3:4", "768x1024")),
    Preset("image-promo-visual", IMAGE,
           "A bright promotional visual for {name} ({category}): {description}. {promptText}",
           "marketing", "image-premium", Settings(LOCAL_IMAGE, "text-to-image", "16:9", "1280x720")),
    Preset("image-wellness-background", IMAGE,
           "A calm wellness background evoking {name} ({category}): {description}. {promptText}",
           "background", "image-standard", Settings(LOCAL_IMAGE, "text-to-image", "9:16", "720x1280")),
    Preset("image-app-hero", IMAGE,
           "A hero image for the app screen {name} ({category}): {description}. {promptText}",
           "marketing", "image-premium", Settings(LOCAL_IMAGE, "text-to-image", "16:9", "1600x900")),
    Preset("exercise-cover-motion", VIDEO,
           "A short looping cover video of the exercise {name} ({category}): {description}. {promptText}",
           "catalog-motion", "video-short", Settings(LOCAL_VIDEO, "text-to-video", "16:9", "640x360", 4)),
)}

_SPACES = re.compile(r"\s+")
_DOUBLED_STOP = re.compile(r"([.!?])\.(?=\s|$)")


def normalize_prompt(preset: Preset, prompt_text: str, context: dict[str, str]) -> str:
    """The preset's template filled from promptInput, on one line, without empty fragments, capped in length."""
    fields = {"name": context.get("name") or "", "category": context.get("category") or "general",
              "description": context.get("description") or "", "promptText": prompt_text or ""}
    prompt = preset.template.format(**{k: _SPACES.sub(" ", v).strip() for k, v in fields.items()})
    prompt = prompt.replace(" ()", "").replace(": .", ".").replace(" .", ".")
    prompt = _DOUBLED_STOP.sub(r"\1", prompt)  # a description that ends with its own full stop
    return _SPACES.sub(" ", prompt).strip()[:MAX_PROMPT_CHARS]
