"""The public metrics object of a session (2.12): a whitelist of names and types.

Whatever a measurement engine returns passes through `public_metrics` before it is stored: names
are kept exactly as the spec writes them (case-sensitive), a value of the wrong type or a non-finite
number is dropped, nested objects keep only their documented members and disappear when empty, and
anything else (internal quality fields, raw capture data) never leaves the server. Nothing is ever
filled in: an unavailable measurement is simply absent.
"""

import math
from typing import Any

NUMBER = "number"
STRING = "string"
NUMBERS_OR_STRING = "numbers_or_string"

_NUMBER_FIELDS = (
    "hr", "hrv", "sbp", "dbp", "spo2", "rr", "si", "check_feature_buffer_for_hrv", "PRQ", "shock_index",
    "wellness_score", "activity", "equilibrium", "health", "metabolism", "relaxation", "sleep", "hemoglobin",
    "cardiovascular_age", "cardiovascular_bmi", "reference_sbp", "reference_dbp", "calibrated_sbp",
    "calibrated_dbp", "wrong_input_group_risk", "miscalibration_risk",
)

SCHEMA: dict[str, Any] = {
    **{name: NUMBER for name in _NUMBER_FIELDS},
    "afib": STRING,
    "hrv_indices": {name: NUMBER for name in (
        "HF", "LF", "LF_HF_RATIO", "MEAN_RR", "PHF", "PLF", "RMSSD", "RRIV", "SDNN", "SD1", "SD2", "SDNNI")},
    "ANSIndex": {"PNS": NUMBER, "SNS": NUMBER},
    "HbA1c": {"value": NUMBER, "risk": NUMBER, "range": NUMBERS_OR_STRING},
    "cholesterol": {"value": NUMBER, "risk": NUMBER, "range": STRING},
    "cvd_risk": {"points": NUMBER, "percentage": NUMBER},
}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _clean(kind: Any, value: Any) -> Any:
    """The value if it fits its kind, else None (dropped)."""
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            return None
        nested = {k: v for k, v in ((k, _clean(kind[k], value[k])) for k in kind if k in value) if v is not None}
        return nested or None
    if kind == NUMBER:
        return value if _is_number(value) else None
    if kind == STRING:
        return value if isinstance(value, str) and value.strip() else None
    if kind == NUMBERS_OR_STRING:
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value and all(_is_number(v) for v in value):
            return list(value)
        return None
    return None


def public_metrics(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """The storable, public metrics of an engine result; None stays None (no stored result)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        return None
    cleaned = {name: _clean(kind, raw[name]) for name, kind in SCHEMA.items() if name in raw}
    return {name: value for name, value in cleaned.items() if value is not None}
