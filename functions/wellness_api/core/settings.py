"""Tenant settings (`platformctl client configure --set KEY=VALUE`): every key, its type and default.

Settings are stored nested under the client document's `settings` map (`auth.externalUser` ->
settings.auth.externalUser). This table is the single source of truth for parsing, defaults and the
README's settings table.
"""

import dataclasses
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit


class SettingError(ValueError):
    pass


@dataclasses.dataclass(frozen=True)
class Setting:
    key: str
    kind: str  # "enum", "bool", "int", "origins", "list"
    default: Any
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None  # an int setting that sizes shared work (a cap) has a ceiling too
    name_chars: str = " ._-"  # what a "list" item may hold besides letters and digits

    def parse(self, text: str) -> Any:
        return _PARSERS[self.kind](self, text.strip())


def _parse_enum(setting: Setting, text: str) -> str:
    if text not in setting.choices:
        raise SettingError(f"{setting.key} must be one of: {', '.join(setting.choices)}")
    return text


def _parse_bool(setting: Setting, text: str) -> bool:
    if text not in ("true", "false"):
        raise SettingError(f"{setting.key} must be true or false")
    return text == "true"


def _parse_int(setting: Setting, text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise SettingError(f"{setting.key} must be an integer") from None
    if setting.minimum is not None and value < setting.minimum:
        raise SettingError(f"{setting.key} must be at least {setting.minimum}")
    if setting.maximum is not None and value > setting.maximum:
        raise SettingError(f"{setting.key} must be at most {setting.maximum}")
    return value


def normalize_origin(text: str) -> str:
    """`https://host[:port]` in lower case; anything with a path, query or credentials is refused."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise SettingError(f"not an origin: {text!r}")
    if parts.username or parts.password or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise SettingError(f"not an origin: {text!r}")
    port = f":{parts.port}" if parts.port and parts.port != {"https": 443, "http": 80}[parts.scheme] else ""
    return f"{parts.scheme}://{parts.hostname.lower()}{port}"


def _parse_origins(setting: Setting, text: str) -> list[str]:
    origins = [normalize_origin(part) for part in text.split(",") if part.strip()]
    return sorted(set(origins))


def _parse_list(setting: Setting, text: str) -> list[str]:
    """Comma-separated names, trimmed, in the order given, without duplicates or empty items."""
    items = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    for item in items:
        if len(item) > 40 or not all(c.isalnum() or c in setting.name_chars for c in item):
            allowed = ", ".join("spaces" if c == " " else f"'{c}'" for c in setting.name_chars)
            raise SettingError(f"{setting.key}: {item!r} is not a name (letters, digits, {allowed}; at most 40)")
    if len(items) > 20:
        raise SettingError(f"{setting.key} holds at most 20 names")
    return items


_PARSERS: dict[str, Callable[[Setting, str], Any]] = {
    "enum": _parse_enum,
    "bool": _parse_bool,
    "int": _parse_int,
    "origins": _parse_origins,
    "list": _parse_list,
}

_MODULES = ("aiMove", "vitalScan", "mediaGeneration", "wellnessChat", "analytics")

# privacy.retentionDays.*: health data a client keeps, read by privacy/retention.py. Ten years at most: longer is
# "forever", which 0 says plainly. Conversations are the most revealing and the least needed later: the shortest.
RETENTION_MAX_DAYS = 3650
RETENTION_DEFAULTS = (
    ("vitalScan", 730, "Vital Scan sessions (with their measurements)", "they were created"),
    ("fallRisk", 730, "fall-risk results (and the member's latest-result summary pointing at one)",
     "they were created"),
    ("aiMove", 730, "AI Move exercise sessions", "they were created"),
    ("assistant", 90, "wellness-chat conversations (with their messages)", "their last message"),
)

SETTINGS: dict[str, Setting] = {
    s.key: s
    for s in [
        Setting("auth.externalUser", "enum", "off",
                "External-user grant of POST /api/auth/custom-token: off, existingOnly or jit (just-in-time provisioning).",
                choices=("off", "existingOnly", "jit")),
        Setting("auth.guestSignIn", "bool", False, "Whether POST /api/auth/guest-custom-token issues guest tokens."),
        Setting("auth.requestsPerMinute", "int", 600,
                "Custom-token sign-ins per minute for the client (external_user grant after the key is checked, "
                "password grant once a member's password is verified).", minimum=1),
        Setting("auth.provisioningPerMinute", "int", 60,
                "Users created just in time by the external_user grant per minute for the client.", minimum=1),
        Setting("auth.passwordAttemptsPerMinute", "int", 30,
                "Password-grant attempts per minute per caller (an IPv4 address or an IPv6 /64) and client, counted "
                "before verification.",
                minimum=1),
        Setting("auth.guestAttemptsPerMinute", "int", 10,
                "Guest sign-in attempts per minute per caller (an IPv4 address or an IPv6 /64) and client.", minimum=1),
        Setting("auth.guestSignInsPerMinute", "int", 120,
                "Guest sign-ins per minute for the whole client, all callers together (each one can become a "
                "Firebase Auth account of the shared project).", minimum=1, maximum=6000),
        Setting("auth.passwordFailuresPerAccount", "int", 10,
                "Failed password-grant attempts per account (email) and client in a 15-minute window, from "
                "callers that have not signed this account in before; those callers are then refused until "
                "the window ends.", minimum=1, maximum=1000),
        *[
            Setting(f"modules.{name}", "bool", False, f"Whether the {name} module is enabled for the client.")
            for name in _MODULES
        ],
        Setting("vitalScan.points", "int", 0, "Vital Scan points granted per cycle.", minimum=0),
        Setting("vitalScan.requestsPerMinute", "int", 60,
                "Vital Scan requests per minute for the workspace, shared by all session operations.", minimum=1),
        Setting("vitalScan.allowedReturnOrigins", "origins", [],
                "Comma-separated origins a Vital Scan returnUrl may point to."),
        Setting("vitalScan.access", "enum", "active", "Vital Scan access state of the workspace.",
                choices=("active", "productNotAvailable", "notEntitled", "entitlementInactive",
                         "entitlementExpired", "freeMembershipRequired")),
        Setting("mediaGeneration.policy", "enum", "standard",
                "Which requestedSettings of media-generation jobs the client's administrators may change: standard "
                "(the preset's settings; only seed) or flexible (also aspectRatio and a video's durationSeconds).",
                choices=("standard", "flexible")),
        Setting("mediaGeneration.maxActiveJobs", "int", 3,
                "Media-generation jobs the client may have queued or running at once; creating or retrying one more "
                "answers 429. The worker runs 4 jobs at once for all clients: at 3 or less, one client never holds "
                "all of them.", minimum=1, maximum=20),
        Setting("wellnessChat.requestsPerMinute", "int", 20,
                "Wellness-chat and /api/openai/ requests per minute per user.", minimum=1),
        Setting("wellnessChat.monthlyTokenBudget", "int", 2_000_000,
                "Tokens (prompt and completion) the client's users may use per calendar month (UTC) in the wellness "
                "chat and the /api/openai/ proxy together; 0 refuses every request.", minimum=0),
        Setting("wellnessChat.models", "list", [],
                "Comma-separated models the /api/openai/ proxy accepts for the client; empty: the platform's "
                "configured model only (local when no LLM is configured).", name_chars="._-:/"),
        Setting("wellnessChat.maxCompletionTokens", "int", 4096,
                "Completion tokens one model answer may produce (the proxy's max_tokens / max_completion_tokens, "
                "sent as max_completion_tokens when the caller gives neither; the chat's every answer). A request's "
                "budget reservation counts this many per choice.", minimum=1, maximum=32_768),
        Setting("wellnessChat.maxN", "int", 4,
                "Choices (the proxy's `n`) one chat-completions request may ask for.", minimum=1, maximum=16),
        Setting("wellnessChat.maxConcurrentPerUser", "int", 2,
                "Wellness-chat turns and /api/openai/ requests of one user running at once.", minimum=1, maximum=20),
        Setting("wellnessChat.maxConcurrentPerClient", "int", 20,
                "Wellness-chat turns and /api/openai/ requests of the client's users running at once.", minimum=1,
                maximum=200),
        Setting("lessons.membershipTiers", "list", [],
                "Comma-separated membership tiers offered in the B2B lesson catalog (allTiers), in display order."),
        *[
            Setting(f"privacy.retentionDays.{name}", "int", days,
                    f"Days {what} are kept after {since}; older ones are deleted by the hourly retention sweep "
                    "(activity rollups keep their counts). 0 keeps them until erased.",
                    minimum=0, maximum=RETENTION_MAX_DAYS)
            for name, days, what, since in RETENTION_DEFAULTS
        ],
        Setting("privacy.exportRetentionDays", "int", 7,
                "Days an export's archive is kept in Storage after the export completed; the hourly retention sweep "
                "then deletes it and its download answers 404.", minimum=1, maximum=30),
    ]
}


def parse_assignment(assignment: str) -> tuple[str, Any]:
    """`KEY=VALUE` -> (key, typed value)."""
    key, sep, text = assignment.partition("=")
    key = key.strip()
    if not sep:
        raise SettingError(f"expected KEY=VALUE, got {assignment!r}")
    setting = SETTINGS.get(key)
    if setting is None:
        raise SettingError(f"unknown setting {key!r}; known: {', '.join(SETTINGS)}")
    return key, setting.parse(text)


def get(stored: dict[str, Any] | None, key: str) -> Any:
    """A setting's value from a client's nested `settings` map, or its default."""
    node: Any = stored or {}
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return SETTINGS[key].default
        node = node[part]
    return node


def put(stored: dict[str, Any], key: str, value: Any) -> None:
    node = stored
    *parents, leaf = key.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def flatten(stored: dict[str, Any] | None) -> dict[str, Any]:
    """Every known setting with its effective value, keyed by its dotted name."""
    return {key: get(stored, key) for key in SETTINGS}
