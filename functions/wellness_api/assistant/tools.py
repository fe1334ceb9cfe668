"""The tools the model may call, each reading only the signed-in user's own data in their own client.

No tool takes a user or client id: the context (the verified ID token's uid and client) decides whose data is
read, so no prompt can make a tool read another user's. Results hold the minimum an answer needs (no ids of
other records, no raw traces, only the commonly understood vital signs). A tool of a module the client has off
(AI Move, Vital Scan) is not offered.
"""

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from ..core import clock, tenancy
from ..core import logging as log
from ..core.tenancy import Client
from . import tokens

RECENT_SESSIONS = 3
FINISHED = ("completed", "failed", "abandoned")
MAX_LESSONS = 3
MAX_ARTICLES = 3
EXCERPT_CHARS = 280
# Words of a request that say nothing about its subject.
STOPWORDS = frozenset((
    "a", "an", "and", "any", "are", "can", "could", "do", "does", "for", "from", "give", "have", "how", "i", "in",
    "is", "it", "me", "my", "of", "on", "or", "please", "recommend", "show", "some", "suggest", "that", "the", "to",
    "want", "what", "which", "with", "you", "your", "lesson", "lessons", "class", "classes", "course", "goal",
    "goals", "help", "article", "articles", "about", "find"))
# Lessons store zh_Hant / zh_Hans (and zh); the chat's locales are BCP 47.
LESSON_LOCALES = {"en": ("en",), "zh-Hant": ("zh_Hant", "zh"), "zh-Hans": ("zh_Hans", "zh")}


@dataclasses.dataclass(frozen=True)
class Context:
    client: Client
    uid: str
    locale: str


@dataclasses.dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    module: str | None  # the module setting that must be on for the tool to be offered
    run: Callable[[Context, dict[str, Any]], dict[str, Any]]

    def definition(self) -> dict[str, Any]:
        """The tool in OpenAI's `tools` format."""
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


NO_PARAMETERS = {"type": "object", "properties": {}, "additionalProperties": False}


def _text_parameter(name: str, description: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": "string", "description": description, "maxLength": 200}},
            "required": [name], "additionalProperties": False}


def _words(text: str) -> set[str]:
    """A text's words without stopwords, and its Chinese character pairs."""
    return {f for f in tokens.features(text) if f not in STOPWORDS and not (len(f) == 1 and tokens.is_cjk(f))}


def _relevance(query: str, text: str) -> int:
    return len(_words(query) & _words(text))


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS - 1].rstrip() + "…"


# ------------------------------------------------------------------------------------------ the tools


def exercise_activity(ctx: Context, _args: dict[str, Any]) -> dict[str, Any]:
    from ..ai_move import service as ai_move

    stats = ai_move.statistics(ctx.client, ctx.uid)
    # Finished sessions only: one still in progress says nothing yet.
    recent = [s for s in ai_move.list_sessions(ctx.client, ctx.uid, 20, None)["sessions"]
              if s["status"] in FINISHED][:RECENT_SESSIONS]
    return {
        "sessionsCompleted": stats["sessionsCompleted"],
        "totalReps": stats["totalReps"],
        "totalMinutes": round(stats["totalDurationSeconds"] / 60, 1),
        "recentSessions": [{
            "exercise": s["exerciseId"], "status": s["status"], "reps": s.get("repsCompleted"),
            "durationSeconds": s.get("durationSeconds"), "formScore": s.get("formScore"),
            "date": (s.get("completedAt") or s.get("createdAt") or "")[:10],
        } for s in recent],
    }


# vital-sign metric -> the name the model sees (the commonly understood signs only)
VITAL_SIGNS = {"hr": "heartRateBpm", "rr": "breathingRatePerMinute", "hrv": "hrvMs", "spo2": "oxygenSaturationPercent"}


def vital_scan_user_id(ctx: Context) -> str:
    """The userId partners give Vital Scan sessions for this user: their external user id, else their uid."""
    member = tenancy.user_ref(ctx.client.client_id, ctx.uid).get()
    external = (member.to_dict() or {}).get("externalUserId") if member.exists else None
    return external or ctx.uid


def latest_vital_scan(ctx: Context, _args: dict[str, Any]) -> dict[str, Any]:
    from ..vital_scan import service as vital_scan

    found = vital_scan.latest_metrics(ctx.client.client_id, vital_scan_user_id(ctx))
    if found is None:
        return {"scan": None}
    completed_at, metrics = found
    scan: dict[str, Any] = {"measuredAt": clock.iso(completed_at)[:10]}
    scan.update({name: metrics[metric] for metric, name in VITAL_SIGNS.items() if metrics.get(metric) is not None})
    if metrics.get("sbp") is not None and metrics.get("dbp") is not None:
        scan["bloodPressureMmHg"] = {"systolic": metrics["sbp"], "diastolic": metrics["dbp"]}
    return {"scan": scan}


def _localized(value: dict[str, Any] | None, locale: str) -> str:
    value = value or {}
    for key in (*LESSON_LOCALES[locale], "en"):
        if value.get(key):
            return str(value[key])
    return next((str(v) for v in value.values() if v), "")


def find_lessons(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    from ..lessons import service as lessons

    goal = str(args.get("goal") or "")
    scored = []
    for lesson in lessons.list_live(ctx.client.client_id):
        title, description = _localized(lesson.get("title"), ctx.locale), _localized(lesson.get("description"), ctx.locale)
        every_language = " ".join(map(str, [*(lesson.get("title") or {}).values(),
                                            *(lesson.get("description") or {}).values()]))
        score = _relevance(goal, every_language)
        if score:
            scored.append((score, title, description))
    scored.sort(key=lambda entry: -entry[0])
    return {"lessons": [{"title": title, "description": _excerpt(description) or None}
                        for _, title, description in scored[:MAX_LESSONS]]}


def search_help_articles(ctx: Context, args: dict[str, Any]) -> dict[str, Any]:
    from ..content import models as content_models
    from ..content import service as content
    from ..core import config

    query = str(args.get("query") or "")
    scored = []
    for item in content.visible_in_category(content.reader(ctx.client.client_id), "help"):
        every_language = " ".join([*(item.get("title") or {}).values(), *(item.get("body") or {}).values()])
        score = _relevance(query, every_language)
        if score:
            view = content_models.public_item(item, ctx.locale)
            scored.append((score, view))
    scored.sort(key=lambda entry: -entry[0])
    return {"articles": [{"title": view["title"], "excerpt": _excerpt(view["body"]),
                          "url": f"{config.base_url()}/ct/{view['contentId']}?lang={view['locale']}"}
                         for _, view in scored[:MAX_ARTICLES]]}


TOOLS = (
    Tool("get_exercise_activity",
         "The user's AI Move exercise record: completed sessions, total reps and minutes, and the latest sessions.",
         NO_PARAMETERS, "aiMove", exercise_activity),
    Tool("get_latest_vital_scan",
         "The vital signs (heart rate, breathing rate, HRV, oxygen saturation, blood pressure, where measured) of the "
         "user's latest completed Vital Scan, with its date.",
         NO_PARAMETERS, "vitalScan", latest_vital_scan),
    Tool("find_lessons", "Up to three of the program's lessons that match a goal.",
         _text_parameter("goal", "What the user wants to work on, in their words."), None, find_lessons),
    Tool("search_help_articles", "Up to three help articles of the app that match a question about using it.",
         _text_parameter("query", "The user's question, in their words."), None, search_help_articles),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def offered(client: Client) -> list[Tool]:
    return [tool for tool in TOOLS if tool.module is None or client.setting(f"modules.{tool.module}")]


def call(ctx: Context, offered_names: set[str], name: str, arguments: str) -> dict[str, Any]:
    """Run a tool call of the model; a call the tools do not allow, or a failure, is an error result for the model."""
    tool = BY_NAME.get(name)
    if tool is None or name not in offered_names:
        return {"error": f"There is no tool named {name!r}."}
    try:
        args = json.loads(arguments or "{}")
    except ValueError:
        return {"error": "The arguments are not JSON."}
    if not isinstance(args, dict):
        return {"error": "The arguments must be an object."}
    try:
        return tool.run(ctx, args)
    except Exception as exc:  # noqa: BLE001 - the model is told the tool failed; the answer goes on
        log.error(f"assistant tool {name} failed: {type(exc).__name__}: {exc}", clientId=ctx.client.client_id)
        return {"error": "The data could not be read just now."}
