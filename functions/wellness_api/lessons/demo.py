"""Demo lessons for `platformctl seed`: a realistic catalog (localized titles, sessions, tiers), six live
lessons and two hidden drafts, an English WebVTT subtitle on the first lesson, and a live plan.

Idempotent: every lesson and plan has a fixed id and is created only when missing; the tier setting is
set only when the client has none.
"""

import datetime as dt
from typing import Any

from ..core import clock, firebase, provisioning, tenancy, users
from ..core.tenancy import Client
from . import repository as repo
from . import service
from .models import CreateLessonBody, UpdateLessonBody

ACTOR = "platformctl seed"
TIERS = "Free,Plus,Premium"
MEDIA = "https://media.demo-fitness.example/lessons"


def _session(en: str, zh_hant: str, zh_hans: str, start: int, end: int, kind: str, **extra) -> dict:
    return {"title": {"en": en, "zh_Hant": zh_hant, "zh_Hans": zh_hans}, "startSeconds": start, "endSeconds": end,
            "type": kind, **extra}


def _lesson(lesson_id: str, titles: tuple[str, str, str], description: str, **fields) -> dict:
    en, zh_hant, zh_hans = titles
    return {
        "id": lesson_id,
        "body": {
            "title": {"en": en, "zh_Hant": zh_hant, "zh_Hans": zh_hans},
            "description": {"en": description},
            "imageUrl": f"{MEDIA}/{lesson_id}/poster.jpg",
            "thumbImageUrl": f"{MEDIA}/{lesson_id}/thumb.jpg",
            "videoURLs": [f"{MEDIA}/{lesson_id}/video.m3u8"],
            **fields,
        },
    }


LESSONS = [
    _lesson("demo-morning-mobility", ("Morning Mobility Flow", "晨間活動度練習", "晨间活动度练习"),
            "Wake up stiff joints with a gentle, guided flow.",
            duration=15, MET=2.5, algorithm="Video", intensity="Low", categories=["Mobility", "Stretching"],
            areas=["Full body"], equipment="Yoga mat", thumbnailTimeInSeconds=42, isLive=True,
            membershipTiers=["Free"],
            sessions=[_session("Warm-up", "熱身", "热身", 0, 120, "warmup"),
                      _session("Hip openers", "髖部伸展", "髋部伸展", 120, 480, "main"),
                      _session("Spine flow", "脊椎律動", "脊椎律动", 480, 780, "main"),
                      _session("Cool-down", "緩和", "缓和", 780, 900, "cooldown")]),
    _lesson("demo-chair-strength", ("Chair Strength for Seniors", "長者椅子肌力訓練", "长者椅子肌力训练"),
            "Build leg and core strength safely with a sturdy chair.",
            duration=20, MET=3.0, algorithm="Reps", intensity="Low", categories=["Strength"],
            areas=["Legs", "Core"], equipment="Chair", isLive=True, membershipTiers=["Free", "Plus"],
            sessions=[_session("Warm-up", "熱身", "热身", 0, 180, "warmup"),
                      _session("Sit to stand", "坐站訓練", "坐站训练", 180, 600, "reps",
                               repPoseId="sit-to-stand", repCount=10),
                      _session("Seated knee lifts", "坐姿抬膝", "坐姿抬膝", 600, 1020, "reps",
                               repPoseId="seated-knee-lift", repCount=12),
                      _session("Cool-down", "緩和", "缓和", 1020, 1200, "cooldown")]),
    _lesson("demo-balance-basics", ("Balance Basics", "平衡基礎", "平衡基础"),
            "Steadier on your feet: simple balance drills that lower fall risk.",
            duration=12, MET=2.3, algorithm="Mirroring", intensity="Low", categories=["Balance", "Fall prevention"],
            areas=["Legs"], equipment="None", isLive=True, membershipTiers=["Free"],
            sessions=[_session("Tandem stance", "前後腳站立", "前后脚站立", 0, 240, "hold"),
                      _session("Single-leg stance", "單腳站立", "单脚站立", 240, 540, "hold"),
                      _session("Heel-to-toe walk", "腳跟接腳尖步行", "脚跟接脚尖步行", 540, 720, "main")]),
    _lesson("demo-cardio-dance", ("Cardio Dance Party", "有氧舞蹈派對", "有氧舞蹈派对"),
            "Thirty minutes of feel-good dance cardio.",
            duration=30, MET=5.5, algorithm="Engagement", intensity="Medium", categories=["Cardio", "Dance"],
            areas=["Full body"], equipment="None", isLive=True, membershipTiers=["Plus", "Premium"],
            sessions=[_session("Groove warm-up", "律動熱身", "律动热身", 0, 300, "warmup"),
                      _session("Dance blocks", "舞蹈組合", "舞蹈组合", 300, 1500, "main"),
                      _session("Stretch", "伸展", "伸展", 1500, 1800, "cooldown")]),
    _lesson("demo-hiit-express", ("HIIT Express", "高強度間歇快練", "高强度间歇快练"),
            "Short, sharp intervals for busy days.",
            duration=18, MET=8.0, algorithm="Reps", intensity="High", categories=["Cardio", "Strength"],
            areas=["Full body"], equipment="Dumbbells", isLive=True, membershipTiers=["Premium"],
            sessions=[_session("Warm-up", "熱身", "热身", 0, 180, "warmup"),
                      _session("Squat jumps", "深蹲跳", "深蹲跳", 180, 540, "reps", repPoseId="squat", repCount=15),
                      _session("Push-ups", "掌上壓", "俯卧撑", 540, 900, "reps", repPoseId="push-up", repCount=12),
                      _session("Cool-down", "緩和", "缓和", 900, 1080, "cooldown")]),
    _lesson("demo-tai-chi", ("Tai Chi for Beginners", "太極入門", "太极入门"),
            "Slow, flowing movement for balance and calm.",
            duration=25, MET=3.0, algorithm="Video", intensity="Low", categories=["Mind & body", "Balance"],
            areas=["Full body"], equipment="None", isLive=True, membershipTiers=["Plus"],
            sessions=[_session("Opening form", "起勢", "起势", 0, 600, "main"),
                      _session("Cloud hands", "雲手", "云手", 600, 1500, "main")]),
    _lesson("demo-guided-breathing", ("Guided Breathing", "引導式呼吸", "引导式呼吸"),
            "A short breathing practice to settle the mind (draft).",
            duration=8, MET=1.3, algorithm="Video", intensity="Low", categories=["Relaxation"],
            areas=["Breathing"], equipment="None", isLive=False, membershipTiers=["Free"]),
    _lesson("demo-core-pilates", ("Core Pilates", "核心普拉提", "核心普拉提"),
            "Mat Pilates for a stronger core (coming soon).",
            duration=22, MET=3.8, algorithm="Mirroring", intensity="Medium", categories=["Pilates", "Core"],
            areas=["Core"], equipment="Yoga mat", isLive=False, membershipTiers=["Premium"]),
]
RELATED = {
    "demo-morning-mobility": ["demo-balance-basics", "demo-tai-chi"],
    "demo-chair-strength": ["demo-balance-basics", "demo-morning-mobility", "demo-core-pilates"],
    "demo-balance-basics": ["demo-chair-strength", "demo-tai-chi"],
}
EXTRAS = {
    "demo-morning-mobility": {"requiredWarmup": False, "requiredCooldown": False, "isIndividual": True,
                              "groupByIntensity": "LOW", "groupByTrainers": ["Coach Mei"]},
    "demo-chair-strength": {"requiredWarmup": True, "requiredCooldown": True, "isIndividual": True,
                            "groupByIntensity": "LOW", "groupByTrainers": ["Coach Sam"]},
}
PLAN: dict[str, Any] = {
    "id": "demo-plan-first-week",
    "title": {"en": "Your First Week", "zh_Hant": "第一週入門計畫", "zh_Hans": "第一周入门计划"},
    "lessonIds": ["demo-morning-mobility", "demo-chair-strength", "demo-balance-basics"],
}
SUBTITLE_EN = """WEBVTT

1
00:00:00.000 --> 00:00:04.000
Welcome to Morning Mobility Flow.

2
00:00:04.000 --> 00:00:09.500
Stand tall, feet hip-width apart, and take a slow breath in.

3
00:02:00.000 --> 00:02:05.000
Now we move into the hip openers.
"""


def seed(client: Client) -> None:
    if not client.setting(service.TIERS_SETTING):
        provisioning.configure_client(client.client_id, [f"{service.TIERS_SETTING}={TIERS}"])
        client = provisioning.require_client(client.client_id)
    for spec in LESSONS:
        if repo.get_lesson(client.client_id, spec["id"]) is None:
            body = CreateLessonBody.model_validate(spec["body"], strict=True)
            service.create_lesson(client, body, ACTOR, lesson_id=spec["id"], extras=EXTRAS.get(spec["id"]))
    # Related lessons once all exist (a lesson may point at one created after it).
    for lesson_id, related in RELATED.items():
        lesson = repo.get_lesson(client.client_id, lesson_id)
        if lesson is not None and not lesson.get("relatedLessonIds"):
            service.update_lesson(client, lesson_id, UpdateLessonBody(relatedLessonIds=related), ACTOR)
    first = repo.get_lesson(client.client_id, LESSONS[0]["id"])
    if first is not None and not (first.get("subtitleUrl") or {}).get("en"):
        upload = service.SubtitleFile("en.vtt", "text/vtt", SUBTITLE_EN.encode())
        service.upload_subtitle(client, first["id"], "en", upload, ACTOR)
    if not repo.plans_collection(client.client_id).document(PLAN["id"]).get().exists:
        service.create_plan(client.client_id, PLAN["title"], PLAN["lessonIds"], True, plan_id=PLAN["id"], actor=ACTOR)
    _seed_plays(client)


PLAY_DAYS = 28
PLAYS_PER_BATCH = 150  # 3 writes each: the play, and its day and lifetime rollup shards


def _plays_on(days_ago: int, number: int) -> bool:
    """Whether demo player `number` plays a lesson `days_ago` days back: about half of them on a weekday, a
    fifth at weekends; the first player always today (the marker that the plays are seeded) and on the first day,
    so that the plays span the four weeks whatever weekdays those are (on some dates no one else plays then)."""
    weekend = (clock.now() - dt.timedelta(days=days_ago)).weekday() >= 5
    return (days_ago in (0, PLAY_DAYS) and number == 0) or (days_ago * 7 + number * 3) % 10 < (2 if weekend else 5)


def _seed_plays(client: Client) -> None:
    """Four weeks of lesson plays by the client's players, most watched to the end; once (seeding again finds
    the last of them and writes nothing)."""
    live = [lesson["id"] for lesson in repo.live_lessons(client.client_id)]
    players = users.member_uids(client.client_id, tenancy.ROLE_PLAYER, limit=12)
    # the last play seeded is today's of the first player: when it exists, so do the others
    if not live or not players or repo.play_ref(client.client_id, players[0], "demo-play-00-00").get().exists:
        return
    # Written as the play endpoint writes them (the play and its rollup counts), in a few batches rather than
    # two transactions a play: a fresh demo world is seeded often (make serve, the tests).
    db, plays = firebase.db(), []
    for days_ago in range(PLAY_DAYS, -1, -1):
        for number in reversed(range(len(players))):
            if _plays_on(days_ago, number):
                plays.append((days_ago, number))
    for start in range(0, len(plays), PLAYS_PER_BATCH):
        batch = db.batch()
        for days_ago, number in plays[start:start + PLAYS_PER_BATCH]:
            completed = (days_ago * number) % 4 != 1
            with clock.shifted(dt.timedelta(days=-days_ago, hours=-3)):
                play = service.new_play(client.client_id, players[number], live[(days_ago + number) % len(live)],
                                        f"demo-play-{days_ago:02d}-{number:02d}", completed, clock.now())
                repo.write_play(batch, play, {"plays": 1, "completedPlays": int(completed)})
        batch.commit()
