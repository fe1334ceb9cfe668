"""Lessons benchmarks (issue 4), run by bench/run.py inside the emulators.

Firestore reads per GET /api/lessons for catalogs of several sizes and live/hidden mixes: the reads
follow the number of lessons returned (live ones) and nothing else; hidden lessons, related lessons
and the catalog's size add none. Writes: the one usage-metering increment per request.
"""

import contextlib
import io
import uuid

# (live lessons, hidden lessons) per catalog.
CATALOGS = [(0, 0), (5, 0), (5, 45), (25, 25), (100, 0), (100, 100)]


def _quiet():
    return contextlib.redirect_stdout(io.StringIO())  # keep access logs out of the table


def reads_per_list() -> None:
    from support.firestore_ops import counting
    from support.tenants import Tenant
    from support.tokens import bearer
    from wellness_api.api_keys import service as api_keys
    from wellness_api.core import client_tokens
    from wellness_api.lessons import service
    from wellness_api.lessons.models import CreateLessonBody
    from wellness_api.lessons.routes import app

    http = app.test_client()
    rows = []
    for live, hidden in CATALOGS:
        with _quiet():
            tenant = Tenant(f"bench-{uuid.uuid4().hex[:8]}")
            ids = []
            for index in range(live + hidden):
                body = CreateLessonBody.model_validate({
                    "title": {"en": f"Lesson {index}", "zh_Hant": f"課程 {index}"}, "duration": 10 + index % 20,
                    "isLive": index < live, "membershipTiers": ["Free"],
                    "sessions": [{"startSeconds": 0, "endSeconds": 60, "type": "warmup"}],
                    # Each lesson points at up to three earlier ones, live or hidden.
                    "relatedLessonIds": ids[-3:],
                }, strict=True)
                ids.append(service.create_lesson(tenant.client, body, "bench"))
            headers = tenant.player.headers
            url = f"/api/lessons?clientId={tenant.client_id}"
            http.get(url, headers=headers)  # warm: token verification keys, connections
            with counting() as ops:
                response = http.get(url, headers=headers)
            detail_reads = None
            if live:
                with counting() as detail:
                    http.get(f"/api/lessons/{ids[live - 1]}", headers=headers)
                detail_reads = detail.reads
            with counting() as admin_ops:
                http.get("/api/b2b/lessons/catalog", headers=tenant.admin.headers)
            key = api_keys.create_key(tenant.client_id, "bench", False, "bench").api_key
            app_token = bearer(client_tokens.sign(tenant.client_id, key["keyId"]))
            with counting() as token_ops:
                http.get(url, headers=app_token)
        returned = len(response.json["data"])
        rows.append((live, hidden, response.status_code, returned, ops.reads, ops.writes, token_ops.reads,
                     detail_reads, admin_ops.reads))

    print("\n== Lessons: Firestore reads per GET /api/lessons by catalog size")
    print("(ID token of a player; 'client token' = the same GET with a client token of 4.2)")
    print(f"{'live':>5} {'hidden':>6} {'status':>6} {'returned':>8} {'reads':>6} {'reads-returned':>14} {'writes':>6}"
          f" {'client token':>12} {'detail':>6} {'catalog GET':>11}")
    for live, hidden, status, returned, reads, writes, token_reads, detail_reads, admin_reads in rows:
        print(f"{live:>5} {hidden:>6} {status:>6} {returned:>8} {reads:>6} {reads - returned:>14} {writes:>6}"
              f" {token_reads:>12} {detail_reads if detail_reads is not None else '-':>6} {admin_reads:>11}")
    constant = {row[4] - row[3] for row in rows}
    print(f"reads - returned is {sorted(constant)} for every catalog: reads grow with the lessons returned only.")
    print("(client token: + 1 read, its API key's status. GET /api/lessons/[id]: 1 + its related lessons, at most 20."
          " Catalog GET: 1 client + every lesson. Writes: one usage-shard increment per request.)")


def main() -> None:
    reads_per_list()
