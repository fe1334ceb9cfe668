"""Demo Vital Scan data for `platformctl seed`: one completed scan of the demo player (userId = the player's uid),
measured by the platform's own engine from a synthetic 20-second face trace with a 72 bpm pulse, so that the
wellness chat's Vital Scan tool answers with real data. Written directly (no point is spent); idempotent by its
fixed id.
"""

import datetime as dt
import math
import random

from ..core import clock, firebase, tenancy, users
from ..core.tenancy import Client
from . import engine
from . import metrics as metrics_mod
from . import repository as repo
from .models import COMPLETED

SESSION_ID = "demo-completed-scan"
PULSE_HZ = 1.2  # 72 beats per minute
FPS = 30
SECONDS = 20


def _trace() -> engine.Trace:
    noise = random.Random(72)  # noqa: S311 - a fixed, reproducible demo trace
    t = [i * 1000 / FPS for i in range(SECONDS * FPS + 1)]
    rgb = []
    for ms in t:
        pulse = math.sin(2 * math.pi * PULSE_HZ * ms / 1000) + 0.3 * math.sin(4 * math.pi * PULSE_HZ * ms / 1000)
        rgb.append([150 + 0.4 * pulse + noise.gauss(0, 0.05), 100 + 1.0 * pulse + noise.gauss(0, 0.05),
                    80 + 0.2 * pulse + noise.gauss(0, 0.05)])
    return engine.Trace(FPS, t, rgb)


def seed(client: Client) -> None:
    uid = users.first_member(client.client_id, tenancy.ROLE_PLAYER)
    if uid is None or repo.read_session(client.client_id, SESSION_ID) is not None:
        return
    now = clock.now()
    started, completed = now - dt.timedelta(days=1), now - dt.timedelta(days=1) + dt.timedelta(minutes=1)
    metrics = metrics_mod.public_metrics(engine.current().estimate(_trace())) or {}
    batch = firebase.db().batch()
    batch.set(repo.session_ref(client.client_id, SESSION_ID), {
        "vitalScanResultId": SESSION_ID, "clientId": client.client_id, "userId": uid, "locale": "en",
        "returnUrl": None, "status": COMPLETED, "createdAt": started, "updatedAt": completed,
        "expiresAt": started + dt.timedelta(hours=1), "startedAt": started,
        "completedAt": completed, "failedAt": None, "error": None, "metrics": metrics,
        "deleted": False, "deletedAt": None, "lastPolledAt": None, "scanTokenHash": None, "keyId": None,
    })
    # counted as the partner API and the hosted page would have counted it, in the same commit
    repo.ACTIVITY.add(client.client_id, {"created": 1, "started": 1}, user=uid, moment=started, within=batch)
    repo.ACTIVITY.add(client.client_id, {"completed": 1}, user=uid, moment=completed, within=batch)
    batch.commit()
