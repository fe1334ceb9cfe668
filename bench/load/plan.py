"""What the load run sends, how much and how long: its levels, caps, mix and fixed bodies."""

LEVELS = (1, 4, 16, 64)
PER_CALLER = 30  # requests per caller and level ...
MAX_REQUESTS = 400  # ... but never more than this per level
TIME_CAP_S = 45.0  # nor longer than this
PLAYERS = 8  # callers share these players round robin, so several callers write one user's statistics at once
COMPACT_EVERY_S = 10.0
MEDIA_WAIT_S = 90.0  # a task whose deliveries failed is retried 10, 30, 70 s ... after the first
MEDIA_WORKERS = 4  # the queue's max_concurrent_dispatches (main.py)
POINTS = 100_000
TIMEOUT_S = 30.0  # a request still unanswered then is abandoned (an unknown outcome): it bounds a level's tail
SEED = 16

# Weighted: each caller walks this list (shuffled once) from its own offset, so every level sees the same mix.
MIX = {
    "lessons.list": 2, "lessons.play": 2, "aiMove.session": 2, "aiMove.statistics": 1, "vitalScan.create": 2,
    "fallRisk.assessment": 1, "assistant.chat": 1, "media.job": 1, "analytics.overview": 1, "content.public": 1,
}
CHAT_MESSAGES = ("How are my workouts going?", "Which lessons help with balance?", "Any tips for sleeping better?")
MEDIA_BODY = {"mediaType": "image", "module": "aiMove", "targetType": "exercise", "targetEntityId": "squat",
              "promptPreset": "image-exercise-thumbnail",
              "promptInput": {"promptText": "load run", "context": {"name": "Squat", "category": "strength"}}}
TERMINAL_JOB_STATES = ("available", "failed")
