"""The load run's tenant: players signed in, a live lesson, an exercise, a public content item and an API
key from the api-keys endpoint."""

import contextlib
import dataclasses
import io
import uuid

import requests

from bench.load.plan import PLAYERS, POINTS, TIMEOUT_S


def quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep the platform's log lines out of the tables


@dataclasses.dataclass
class World:
    base_url: str
    tenant: object
    players: list
    api_key: str
    lesson_id: str
    exercise_id: str
    content_key: str
    quiz: dict


def setup(base_url: str) -> World:
    from support.catalogue import seed_catalogue
    from support.fall_risk import quiz
    from support.tenants import Tenant

    with quiet():
        tenant = Tenant(f"load-{uuid.uuid4().hex[:8]}")
        tenant.configure("modules.aiMove=true", "modules.vitalScan=true", "modules.mediaGeneration=true",
                         "modules.wellnessChat=true", "modules.analytics=true", f"vitalScan.points={POINTS}",
                         "vitalScan.requestsPerMinute=100000", "wellnessChat.requestsPerMinute=100000",
                         # Several callers share each player: the assistant's caps on requests running at once
                         # (per user 2, per client 20 by default) would measure refusals, not throughput.
                         "wellnessChat.maxConcurrentPerUser=20", "wellnessChat.maxConcurrentPerClient=200",
                         "mediaGeneration.maxActiveJobs=20")
        players = [tenant.player] + [tenant.add_member("player") for _ in range(PLAYERS - 1)]
        for member in (tenant.admin, *players):
            member.token  # noqa: B018 - sign in now, not inside the timed requests
        catalogue = seed_catalogue(tenant.client, tenant.client_id, content_key="load-notice")
    # The key comes from the api-keys endpoint, as a partner's administrator gets one.
    created = requests.post(f"{base_url}/api/clients/{tenant.client_id}/api-keys", json={"label": "load run"},
                            headers=tenant.admin.headers, timeout=TIMEOUT_S)
    created.raise_for_status()
    return World(base_url, tenant, players, created.json()["secret"], catalogue.lesson_id, catalogue.exercise_id,
                 catalogue.content_key, quiz())
