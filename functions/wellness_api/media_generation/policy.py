"""Which settings a job runs with (4.9 rule 3): the preset's, and what the caller may change of them.

- Platform administrators: every requested key is honoured (checked for consistency).
- A client whose `mediaGeneration.policy` is `standard` (the default): the preset's settings; only `seed` is
  honoured.
- `flexible`: also `aspectRatio` (from a short list per media type; the resolution follows it at the
  preset's size) and, for videos, `durationSeconds` up to FLEXIBLE_MAX_SECONDS.

A key the policy does not honour is not an error: the job runs with the preset's value and says so in
`warnings`, so the administrator sees exactly what was applied.
"""

import dataclasses
import math
from typing import Any

from ..core.errors import ApiError
from . import models
from .models import RequestedSettings
from .presets import IMAGE, VIDEO, Preset

STANDARD, FLEXIBLE = "standard", "flexible"
POLICIES = (STANDARD, FLEXIBLE)
FLEXIBLE_RATIOS = {IMAGE: ("1:1", "3:4", "4:3", "2:3", "3:2", "9:16", "16:9"), VIDEO: ("16:9", "9:16", "1:1")}
FLEXIBLE_MAX_SECONDS = 8
RATIO_TOLERANCE = 0.01


@dataclasses.dataclass(frozen=True)
class Applied:
    model: str
    generationMode: str
    aspectRatio: str
    resolution: str
    durationSeconds: float
    seed: int | None
    warnings: tuple[str, ...]



def _sides(resolution: str) -> tuple[int, int]:
    width, height = resolution.split("x")
    return int(width), int(height)


def _ratio_of(ratio: str) -> float:
    width, height = ratio.split(":")
    return int(width) / int(height)


def _even(value: float) -> int:
    return max(models.MIN_SIDE, round(value / 2) * 2)


def resolution_for(ratio: str, like: str) -> str:
    """A resolution of `ratio` whose long side is the long side of `like`."""
    long_side = max(_sides(like))
    r = _ratio_of(ratio)
    width, height = (long_side, long_side / r) if r >= 1 else (long_side * r, long_side)
    return f"{_even(width)}x{_even(height)}"


def ratio_for(resolution: str) -> str:
    width, height = _sides(resolution)
    divisor = math.gcd(width, height)
    return f"{width // divisor}:{height // divisor}"


def _not_applied(key: str, reason: str) -> str:
    return f"requestedSettings.{key} was not applied: {reason}."


def apply(preset: Preset, requested: RequestedSettings | None, *, has_references: bool, platform_admin: bool,
          policy: str, default_model: str) -> Applied:
    """The settings of a new job; 400 for requests that contradict themselves or the preset's media type."""
    requested = requested or RequestedSettings()
    _check_shape(preset, requested, has_references)
    base = preset.defaults
    mode_kind = "image" if has_references else "text"
    settings: dict[str, Any] = {
        "model": default_model,
        "generationMode": f"{mode_kind}-to-{preset.media_type}",
        "aspectRatio": base.aspectRatio,
        "resolution": base.resolution,
        "durationSeconds": base.durationSeconds,
    }
    sent = requested.model_dump(exclude_none=True)
    seed = sent.pop("seed", None)
    if platform_admin:
        honoured = set(sent)
    elif policy == FLEXIBLE:
        honoured = {k for k in sent if k in ("aspectRatio", "durationSeconds")}
    else:
        honoured = set()
    warnings = []
    for key in sent:
        if key not in honoured:
            reason = ("only platform administrators choose it" if key in ("model", "generationMode", "resolution")
                      and policy == FLEXIBLE else f"the client's policy ({policy}) uses the preset's settings")
            warnings.append(_not_applied(key, reason))
    if not platform_admin and "aspectRatio" in honoured and sent["aspectRatio"] not in FLEXIBLE_RATIOS[preset.media_type]:
        honoured.discard("aspectRatio")
        allowed = ", ".join(FLEXIBLE_RATIOS[preset.media_type])
        warnings.append(_not_applied("aspectRatio", f"the client's policy allows {allowed}"))
    if not platform_admin and "durationSeconds" in honoured and sent["durationSeconds"] > FLEXIBLE_MAX_SECONDS:
        settings["durationSeconds"] = FLEXIBLE_MAX_SECONDS
        honoured.discard("durationSeconds")
        warnings.append(_not_applied("durationSeconds", f"the client's policy allows at most "
                                                        f"{FLEXIBLE_MAX_SECONDS} seconds, which the job uses"))
    for key in honoured:
        settings[key] = sent[key]
    if "resolution" in honoured and "aspectRatio" not in honoured:
        settings["aspectRatio"] = ratio_for(settings["resolution"])
    elif "aspectRatio" in honoured and "resolution" not in honoured:
        settings["resolution"] = resolution_for(settings["aspectRatio"], base.resolution)
    _check_result(preset, settings)
    return Applied(**settings, seed=seed, warnings=tuple(warnings))


def _check_shape(preset: Preset, requested: RequestedSettings, has_references: bool) -> None:
    if preset.media_type == IMAGE and requested.durationSeconds is not None:
        raise ApiError(400, "requestedSettings.durationSeconds is only for videos.")
    mode = requested.generationMode
    if mode is not None:
        if not mode.endswith(f"-to-{preset.media_type}"):
            raise ApiError(400, f"requestedSettings.generationMode must make {_article(preset.media_type)}: "
                       f"text-to-{preset.media_type} or image-to-{preset.media_type}.")
        if mode.startswith("image-") and not has_references:
            raise ApiError(400, f"requestedSettings.generationMode {mode} needs referenceImages.")
    limit = models.MAX_SIDE[preset.media_type]
    if requested.resolution and any(side > limit for side in _sides(requested.resolution)):
        raise ApiError(400, f"requestedSettings.resolution: {_article(preset.media_type)} is at most {limit} pixels a side.")
    if requested.aspectRatio and requested.resolution:
        width, height = _sides(requested.resolution)
        if abs(width / height - _ratio_of(requested.aspectRatio)) > RATIO_TOLERANCE * _ratio_of(requested.aspectRatio):
            raise ApiError(400, f"requestedSettings.resolution {requested.resolution} is not "
                       f"{requested.aspectRatio}.")


def _article(media_type: str) -> str:
    return f"an {media_type}" if media_type[0] in "aeiou" else f"a {media_type}"


def _check_result(preset: Preset, settings: dict) -> None:
    """The resolution a ratio was turned into must still be that ratio (a very narrow one hits the minimum side)."""
    width, height = _sides(settings["resolution"])
    ratio = _ratio_of(settings["aspectRatio"])
    if abs(width / height - ratio) > RATIO_TOLERANCE * ratio:
        raise ApiError(400, f"requestedSettings.aspectRatio {settings['aspectRatio']} is too narrow for the preset's size "
                   f"(sides of {models.MIN_SIDE} to {models.MAX_SIDE[preset.media_type]} pixels).")

