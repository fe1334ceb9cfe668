"""Demo content for `platformctl seed`: the operator's shared terms and announcement and a private note, the demo
client's own items in every built-in category in en, zh-Hant and zh-Hans (one scheduled, one expired), and two
custom categories (`wellness-tips` with a shared tip; `events`, empty).

Idempotent: items have fixed ids and are created only when missing; categories only when missing.
"""

import datetime as dt
from typing import Any

from ..core import clock, provisioning
from ..core.errors import ApiError
from ..core.tenancy import Client
from . import repository as repo
from . import service
from .models import CreateCategoryBody, CreateContentBody

ACTOR = "platformctl seed"
CATEGORIES = [
    {"key": "wellness-tips", "name": {"en": "Wellness tips", "zh-Hant": "健康小貼士", "zh-Hans": "健康小贴士"},
     "description": {"en": "Short tips from the platform's coaches."},
     "defaultPermissions": {"viewShared": True, "publish": False}},
    {"key": "events", "name": {"en": "Events", "zh-Hant": "活動", "zh-Hans": "活动"},
     "defaultPermissions": {"viewShared": True, "publish": True}},
]


def _texts(en: str, zh_hant: str, zh_hans: str) -> dict[str, str]:
    return {"en": en, "zh-Hant": zh_hant, "zh-Hans": zh_hans}


OPERATOR_ITEMS: list[tuple[str, dict[str, Any]]] = [
    ("demo-operator-terms", dict(
        key="terms-of-service", categoryKey="legal", visibility="shared",
        title=_texts("Terms of Service", "服務條款", "服务条款"),
        body=_texts("## Terms of Service\n\nBy using the app you agree to these terms.\n\n"
                    "1. Use the exercises at your own pace.\n2. Stop if you feel pain or dizziness.\n\n"
                    "Questions? See [our help pages](https://wellness-platform.example/help).",
                    "## 服務條款\n\n使用本應用程式即表示您同意這些條款。\n\n1. 按照自己的步調進行運動。\n"
                    "2. 如感到疼痛或頭暈，請停止。",
                    "## 服务条款\n\n使用本应用程序即表示您同意这些条款。\n\n1. 按照自己的步调进行运动。\n"
                    "2. 如感到疼痛或头晕，请停止。"),
        metadata={"actionUrl": "https://wellness-platform.example/terms", "actionLabel": "Read online"})),
    ("demo-operator-maintenance", dict(
        key="platform-maintenance", categoryKey="announcements", visibility="shared",
        title=_texts("Scheduled maintenance", "系統維護通知", "系统维护通知"),
        body=_texts("The service will be briefly unavailable on **Sunday 02:00-02:30 UTC**.",
                    "服務將於 **星期日 02:00-02:30 (UTC)** 短暫暫停。",
                    "服务将于 **星期日 02:00-02:30 (UTC)** 短暂暂停。"))),
    ("demo-operator-hydration", dict(
        key="hydration-tip", categoryKey="wellness-tips", visibility="shared",
        title=_texts("Drink before you move", "運動前先補水", "运动前先补水"),
        body=_texts("A glass of water 30 minutes before exercise helps you keep going.",
                    "運動前 30 分鐘喝一杯水，讓你更有活力。", "运动前 30 分钟喝一杯水，让你更有活力。"))),
    ("demo-operator-internal", dict(
        key="operator-release-notes", categoryKey="other", visibility="private",
        title={"en": "Release notes (operator only)"},
        body={"en": "Internal: the AI Move library gained tree pose."})),
]
CLIENT_ITEMS: list[tuple[str, dict[str, Any]]] = [
    ("demo-fitness-welcome", dict(
        key="welcome", categoryKey="announcements",
        title=_texts("Welcome to Demo Fitness", "歡迎來到 Demo Fitness", "欢迎来到 Demo Fitness"),
        body=_texts("Start with **Morning Mobility** and try an AI Move squat session today.",
                    "從 **晨間活動度練習** 開始，今天就試試 AI Move 深蹲吧。",
                    "从 **晨间活动度练习** 开始，今天就试试 AI Move 深蹲吧。"),
        metadata={"actionUrl": "/lessons/demo-morning-mobility", "actionLabel": "Start now"})),
    ("demo-fitness-privacy", dict(
        key="privacy-policy", categoryKey="legal",
        title=_texts("Privacy Policy", "私隱政策", "隐私政策"),
        body=_texts("We keep your exercise sessions to show your progress. We never sell your data.",
                    "我們保存您的運動記錄以顯示您的進度，絕不出售您的資料。",
                    "我们保存您的运动记录以显示您的进度，绝不出售您的数据。"))),
    ("demo-fitness-getting-started", dict(
        key="getting-started", categoryKey="help",
        title=_texts("Getting started with AI Move", "AI Move 入門", "AI Move 入门"),
        body=_texts("1. Place your phone at hip height.\n2. Step back until your whole body is visible.\n"
                    "3. Follow the counter on screen.",
                    "1. 將手機放在臀部高度。\n2. 後退直到全身入鏡。\n3. 跟著螢幕上的計數進行。",
                    "1. 将手机放在臀部高度。\n2. 后退直到全身入镜。\n3. 跟着屏幕上的计数进行。"))),
    ("demo-fitness-guidelines", dict(
        key="community-guidelines", categoryKey="other", format="plain",
        title=_texts("Community guidelines", "社群守則", "社区守则"),
        body=_texts("Be kind. Cheer each other on.", "互相尊重，彼此鼓勵。", "互相尊重，彼此鼓励。"))),
    ("demo-fitness-new-year", dict(
        key="new-year-challenge", categoryKey="announcements", publish_in_days=7,
        title=_texts("New Year challenge", "新年挑戰", "新年挑战"),
        body=_texts("Join the 30-day squat challenge on January 1.", "1 月 1 日加入 30 天深蹲挑戰。",
                    "1 月 1 日加入 30 天深蹲挑战。"))),
    ("demo-fitness-autumn", dict(
        key="autumn-promo", categoryKey="announcements", expired=True,
        title=_texts("Autumn offer (ended)", "秋季優惠（已結束）", "秋季优惠（已结束）"),
        body=_texts("Half price on Premium in October.", "十月 Premium 半價。", "十月 Premium 半价。"))),
]


def _put(client: Client, content_id: str, spec: dict) -> None:
    if repo.get_item(content_id) is not None:
        return
    spec = dict(spec)
    now = clock.now()
    if spec.pop("publish_in_days", None):
        spec["publishAt"] = clock.iso(now + dt.timedelta(days=7))
    if spec.pop("expired", None):
        spec["publishAt"] = clock.iso(now - dt.timedelta(days=60))
        spec["expiresAt"] = clock.iso(now - dt.timedelta(days=30))
    try:
        service.create_item(client, CreateContentBody.model_validate(spec), ACTOR, content_id=content_id)
    except ApiError as exc:
        if exc.status != 409:  # the key is taken by an item made through the API: leave it
            raise


def seed(client: Client) -> None:
    stored = repo.stored_categories()
    for category in CATEGORIES:
        if category["key"] not in stored:
            service.create_category(CreateCategoryBody.model_validate(category))
    operator = provisioning.operator_client()
    if operator is not None:
        for content_id, spec in OPERATOR_ITEMS:
            _put(operator, content_id, spec)
    for content_id, spec in CLIENT_ITEMS:
        _put(client, content_id, spec)
