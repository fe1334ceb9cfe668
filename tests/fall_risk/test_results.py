"""Reading fall-risk results: GET /api/fall-risk/results/{id} (one), GET /api/fall-risk/results (a member's)
and GET /api/fall-risk/records (the client's, for staff): who reads what, newest first, paging, filters and
date ranges."""

import datetime as dt

import pytest

from tests.conftest import assert_error, bearer
from tests.fall_risk.conftest import RECORDS, RESULTS, complete, create, quiz, record
from wellness_api.api_keys import service as api_keys
from wellness_api.core import auth, clock, tenancy
from wellness_api.fall_risk import service
from wellness_api.identity.routes import app as identity_app


def client_token(tenant) -> dict:
    """Headers with a client token, obtained as a partner backend does (POST /api/client/token/)."""
    key = api_keys.create_key(tenant.client_id, "partner backend", False, "test")
    response = identity_app.test_client().post("/api/client/token/",
                                               json={"clientId": tenant.client_id, "clientSecret": key.secret})
    assert response.status_code == 200, response.json
    return bearer(response.json["token"])


def headers_of(caller) -> dict:
    return caller if isinstance(caller, dict) else caller.headers


def listing(http, caller, url: str, query: str = "") -> dict:
    response = http.get(f"{url}{query}", headers=headers_of(caller))
    assert response.status_code == 200, response.json
    assert set(response.json) == {"results", "nextStartAfter"}
    return response.json


def ids(page: dict) -> list[str]:
    return [r["fallRiskResultId"] for r in page["results"]]


def walk(http, caller, url: str, query: str, limit: int) -> list[list[str]]:
    """Every page of a list, following nextStartAfter; the pages' ids."""
    pages, cursor = [], None
    while True:
        page = listing(http, caller, url, f"?{query}&limit={limit}" + (f"&startAfter={cursor}" if cursor else ""))
        pages.append(ids(page))
        assert len(pages[-1]) <= limit
        cursor = page["nextStartAfter"]
        if cursor is None:
            return pages
        assert cursor == pages[-1][-1] and len(pages[-1]) == limit
        assert len(pages) < 50, "paging does not end"


def newest_first(*created: dict) -> list[str]:
    return [c["fallRiskResultId"] for c in reversed(created)]


# ------------------------------------------------------------------------------------ one result


def test_the_owner_reads_their_result(http, tenant):
    created = create(http, tenant.player)
    response = http.get(f"{RESULTS}/{created['fallRiskResultId']}", headers=tenant.player.headers)
    assert response.status_code == 200, response.json
    assert set(response.json) == {"result"}
    result = response.json["result"]
    assert result["fallRiskResultId"] == created["fallRiskResultId"]
    assert (result["userId"], result["clientId"], result["status"]) == (tenant.player.uid, tenant.client_id, "created")
    assert result["createdAt"] == created["createdAt"]


def test_another_member_of_the_client_is_403(http, tenant):
    url = f"{RESULTS}/{create(http, tenant.player)['fallRiskResultId']}"
    assert_error(http.get(url, headers=tenant.add_member("player").headers), 403, service.NOT_YOURS)


def test_another_clients_callers_do_not_find_it(http, tenant, other_tenant):
    url = f"{RESULTS}/{create(http, tenant.player)['fallRiskResultId']}"
    # A result is looked up in the caller's own client: elsewhere it does not exist (404, not 403).
    for headers in (other_tenant.player.headers, other_tenant.admin.headers, client_token(other_tenant)):
        assert_error(http.get(url, headers=headers), 404, service.RESULT_NOT_FOUND)


@pytest.mark.parametrize("result_id", ["0000000000000unknown", "no-such-result", "bad id!", "x" * 65, "__x__",
                                       "__name__", "..."])
def test_an_unknown_or_malformed_id_is_404(http, tenant, result_id):
    create(http, tenant.player)
    for member in (tenant.player, tenant.admin):
        assert_error(http.get(f"{RESULTS}/{result_id}", headers=member.headers), 404, service.RESULT_NOT_FOUND)


def test_the_clients_admin_and_client_token_read_any_result(http, tenant):
    created = create(http, tenant.player)
    url = f"{RESULTS}/{created['fallRiskResultId']}"
    owner = http.get(url, headers=tenant.player.headers).json
    for headers in (tenant.admin.headers, client_token(tenant)):
        response = http.get(url, headers=headers)
        assert response.status_code == 200 and response.json == owner


def test_a_platform_admin_finds_another_clients_result_only_through_records(http, tenant, platform_admin):
    created = create(http, tenant.player)
    # By id, a result is looked up in the caller's own client (the operator's).
    response = http.get(f"{RESULTS}/{created['fallRiskResultId']}", headers=platform_admin.headers)
    assert_error(response, 404, service.RESULT_NOT_FOUND)
    # Naming the client, the dashboard list shows it.
    page = listing(http, platform_admin, RECORDS, f"?clientId={tenant.client_id}")
    assert ids(page) == [created["fallRiskResultId"]]
    assert page["results"][0]["clientId"] == tenant.client_id


# ------------------------------------------------------------------------------------ a member's results


def test_a_member_lists_their_own_results_newest_first(http, tenant):
    mine = [create(http, tenant.player) for _ in range(3)]
    create(http, tenant.add_member("player"))  # someone else's: never listed
    by_admin = create(http, tenant.admin, userId=tenant.player.uid)  # started for the player: theirs too
    page = listing(http, tenant.player, RESULTS)
    assert ids(page) == newest_first(*mine, by_admin)
    assert page["nextStartAfter"] is None
    assert [r["origin"] for r in page["results"]] == ["clinician", "app", "app", "app"]
    created_at = [r["createdAt"] for r in page["results"]]
    assert created_at == sorted(created_at, reverse=True)
    # Each listed result is the result in full, as read one by one.
    one = http.get(f"{RESULTS}/{mine[0]['fallRiskResultId']}", headers=tenant.player.headers).json["result"]
    assert page["results"][-1] == one


def test_a_member_without_results_gets_an_empty_list(http, tenant):
    create(http, tenant.admin)
    assert listing(http, tenant.player, RESULTS) == {"results": [], "nextStartAfter": None}


def test_paging_covers_every_result_once(http, tenant):
    created = [create(http, tenant.player) for _ in range(5)]
    expected = newest_first(*created)
    for limit in (1, 2, 3, 5, 6):
        pages = walk(http, tenant.player, RESULTS, "", limit)
        assert [rid for page in pages for rid in page] == expected, limit
    # A full last page says so: nothing follows it.
    assert listing(http, tenant.player, RESULTS, "?limit=5")["nextStartAfter"] is None
    assert listing(http, tenant.player, RESULTS, "?limit=4")["nextStartAfter"] == expected[3]


def test_a_result_created_meanwhile_does_not_shift_the_pages(http, tenant):
    created = [create(http, tenant.player) for _ in range(4)]
    expected = newest_first(*created)
    first = listing(http, tenant.player, RESULTS, "?limit=2")
    assert ids(first) == expected[:2]
    newer = create(http, tenant.player)
    second = listing(http, tenant.player, RESULTS, f"?limit=2&startAfter={first['nextStartAfter']}")
    assert ids(second) == expected[2:]
    assert ids(listing(http, tenant.player, RESULTS))[0] == newer["fallRiskResultId"]


def test_status_filter(http, tenant):
    player = tenant.player
    done = complete(http, player)
    started = create(http, player)
    assert record(http, player, started["fallRiskResultId"], "quiz", quiz()).status_code == 200
    fresh = create(http, player)
    for status, expected in (("completed", [done["fallRiskResultId"]]),
                             ("in-progress", [started["fallRiskResultId"]]),
                             ("created", [fresh["fallRiskResultId"]])):
        page = listing(http, player, RESULTS, f"?status={status}")
        assert ids(page) == expected, status
        assert {r["status"] for r in page["results"]} == {status}
    assert len(ids(listing(http, player, RESULTS))) == 3
    response = http.get(f"{RESULTS}?status=done", headers=player.headers)
    assert response.status_code == 400 and response.json["error"].startswith("Invalid field status")


def test_a_player_naming_another_member_is_403(http, tenant):
    other = tenant.add_member("player")
    create(http, other)
    for uid in (other.uid, tenant.admin.uid, "no-such-user"):
        assert_error(http.get(f"{RESULTS}?userId={uid}", headers=tenant.player.headers), 403, service.ONLY_YOURSELF)
    # Naming themselves is the default.
    own = create(http, tenant.player)
    assert ids(listing(http, tenant.player, RESULTS, f"?userId={tenant.player.uid}")) == [own["fallRiskResultId"]]


def test_an_admin_and_a_client_token_list_a_named_members_results(http, tenant):
    theirs = [create(http, tenant.player) for _ in range(2)]
    other = tenant.add_member("player")
    create(http, other)
    token = client_token(tenant)
    for caller in (tenant.admin, token):
        page = listing(http, caller, RESULTS, f"?userId={tenant.player.uid}")
        assert ids(page) == newest_first(*theirs)
    # Without userId an admin lists their own (none); a client token has no own results.
    assert listing(http, tenant.admin, RESULTS) == {"results": [], "nextStartAfter": None}
    assert_error(http.get(RESULTS, headers=token), 400, service.USER_ID_REQUIRED)
    for caller in (tenant.admin.headers, token):
        assert_error(http.get(f"{RESULTS}?userId=no-such-user", headers=caller), 400, "User does not exist")


@pytest.mark.parametrize("limit", ["0", "101", "x", "", "1.5", "-1"])
def test_a_bad_results_limit_is_400(http, tenant, limit):
    response = http.get(f"{RESULTS}?limit={limit}", headers=tenant.player.headers)
    assert response.status_code == 400, response.json
    assert set(response.json) == {"error"} and response.json["error"].startswith("Invalid field limit")


def test_results_limit_bounds(http, tenant):
    created = [create(http, tenant.player) for _ in range(2)]
    assert len(ids(listing(http, tenant.player, RESULTS, "?limit=1"))) == 1
    assert ids(listing(http, tenant.player, RESULTS, "?limit=100")) == newest_first(*created)


@pytest.mark.parametrize("cursor", ["bad%20id!", "__x__", "a%2Fb"])
def test_a_bad_cursor_is_400(http, tenant, cursor):
    for url, member in ((RESULTS, tenant.player), (RECORDS, tenant.admin)):
        assert_error(http.get(f"{url}?startAfter={cursor}", headers=member.headers), 400, service.INVALID_CURSOR)


def test_a_bad_records_cursor_is_400_whatever_the_user_id(http, tenant):
    response = http.get(f"{RECORDS}?userId=bad%20id!&startAfter=bad%20id!", headers=tenant.admin.headers)
    assert_error(response, 400, service.INVALID_CURSOR)


# ------------------------------------------------------------------------------------ records: who


def test_records_are_for_staff(http, tenant):
    create(http, tenant.player)
    for query in ("", f"?clientId={tenant.client_id}"):
        assert_error(http.get(f"{RECORDS}{query}", headers=tenant.player.headers), 403, service.ADMIN_REQUIRED)
    assert_error(http.get(RECORDS), 401, auth.MISSING_AUTH)
    assert_error(http.get(RECORDS, headers={"Authorization": "Bearer garbage"}), 401, auth.INVALID_TOKEN)


def test_an_admin_reads_only_their_own_clients_records(http, tenant, other_tenant):
    mine = create(http, tenant.player)
    create(http, other_tenant.player)
    for query in ("", f"?clientId={tenant.client_id}"):
        assert ids(listing(http, tenant.admin, RECORDS, query)) == [mine["fallRiskResultId"]]
    for client_id in (other_tenant.client_id, "no-such-client"):
        assert_error(http.get(f"{RECORDS}?clientId={client_id}", headers=tenant.admin.headers), 403, auth.FORBIDDEN)


def test_a_client_token_reads_its_own_clients_records(http, tenant, other_tenant):
    mine = create(http, tenant.player)
    token = client_token(tenant)
    for query in ("", f"?clientId={tenant.client_id}"):
        assert ids(listing(http, token, RECORDS, query)) == [mine["fallRiskResultId"]]
    assert_error(http.get(f"{RECORDS}?clientId={other_tenant.client_id}", headers=token), 403, auth.FORBIDDEN)


def test_a_platform_admin_reads_any_client_and_unknown_ones_are_404(http, tenant, platform_admin, operator_tenant):
    theirs = create(http, tenant.player)
    assert ids(listing(http, platform_admin, RECORDS, f"?clientId={tenant.client_id}")) == [theirs["fallRiskResultId"]]
    for client_id in ("no-such-client-here", "bad%20id!"):
        assert_error(http.get(f"{RECORDS}?clientId={client_id}", headers=platform_admin.headers), 404,
                     auth.CLIENT_NOT_FOUND)
    # Without clientId: the operator's own client.
    assert all(r["clientId"] == operator_tenant.client_id for r in listing(http, platform_admin, RECORDS)["results"])


# ------------------------------------------------------------------------------------ records: filters


class TokenCaller:
    """A client token where the conftest helpers take a member (they only read .headers)."""

    def __init__(self, headers: dict):
        self.headers = headers


def level(result: dict) -> tuple[int, bool]:
    return result["riskLevel"], result["urgentAttention"]


@pytest.fixture
def graded(http, assessed):
    """Results of every level and origin (oldest first), for the 72-year-old woman's norm: fewer than 10 chair
    stands is below average."""
    senior, below = assessed.senior, {"standCount": 9}
    # level 1: nothing found; level 2: one functional problem (the chair stand), or a balance failure that also
    # calls for attention (the feet side by side not held); level 3: a key question answered yes and a functional
    # problem; level 4: the same with two falls, which is urgent too.
    assessed.l1 = complete(http, senior)
    assessed.l2 = complete(http, senior, sitToStand=below)
    assessed.l2u = complete(http, senior, tandemStance={"sideBySideSeconds": 5},
                            singleLegStance={"singleLegSeconds": None})
    assessed.l3 = complete(http, senior, quiz=quiz(("unsteadyWhenWalking",)), sitToStand=below)
    assessed.l4 = complete(http, senior, quiz=quiz(("fallenPastYear",), fallsPastYear=2), sitToStand=below)
    assert [level(r) for r in (assessed.l1, assessed.l2, assessed.l2u, assessed.l3, assessed.l4)] == [
        (1, False), (2, False), (2, True), (3, False), (4, True)]
    # Not completed: one started by an admin for the senior (clinician), one by a partner for the player.
    assessed.clinician = create(http, assessed.admin, userId=senior.uid)
    assessed.token = client_token(assessed)
    partner = TokenCaller(assessed.token)
    assessed.partner = create(http, partner, userId=assessed.player.uid)
    answer = record(http, partner, assessed.partner["fallRiskResultId"], "quiz", quiz())
    assert answer.status_code == 200, answer.json
    return assessed


def rid(result: dict) -> str:
    return result["fallRiskResultId"]


def test_records_list_every_result_of_the_client_newest_first(http, graded, other_tenant):
    create(http, other_tenant.player)  # another client's: never listed
    page = listing(http, graded.admin, RECORDS)
    assert ids(page) == [rid(graded.partner), rid(graded.clinician), rid(graded.l4), rid(graded.l3),
                         rid(graded.l2u), rid(graded.l2), rid(graded.l1)]
    assert page["nextStartAfter"] is None
    assert {r["clientId"] for r in page["results"]} == {graded.client_id}
    # The same list for a client token of the client.
    assert listing(http, graded.token, RECORDS) == page


@pytest.mark.parametrize(("query", "expected"), [
    ("status=completed", ["l4", "l3", "l2u", "l2", "l1"]),
    ("status=in-progress", ["partner"]),
    ("status=created", ["clinician"]),
    ("riskLevel=1", ["l1"]),
    ("riskLevel=2", ["l2u", "l2"]),
    ("riskLevel=3", ["l3"]),
    ("riskLevel=4", ["l4"]),
    ("urgentAttention=true", ["l4", "l2u"]),
    ("urgentAttention=false", ["l3", "l2", "l1"]),  # completed and not urgent: unscored results are neither
    ("origin=app", ["l4", "l3", "l2u", "l2", "l1"]),
    ("origin=clinician", ["clinician"]),
    ("origin=partner", ["partner"]),
    ("userId={senior}", ["clinician", "l4", "l3", "l2u", "l2", "l1"]),
    ("userId={player}", ["partner"]),
    ("userId=no-such-user", []),
    ("userId=bad%20id!", []),
    ("riskLevel=2&urgentAttention=true", ["l2u"]),
    ("origin=app&status=completed&riskLevel=3&userId={senior}", ["l3"]),
    ("origin=clinician&status=completed", []),
])
def test_records_filters(http, graded, query, expected):
    query = query.format(senior=graded.senior.uid, player=graded.player.uid)
    page = listing(http, graded.admin, RECORDS, f"?{query}")
    assert ids(page) == [rid(getattr(graded, name)) for name in expected]
    assert page["nextStartAfter"] is None


def test_records_filters_page_too(http, graded):
    pages = walk(http, graded.admin, RECORDS, "status=completed", 2)
    assert pages == [[rid(graded.l4), rid(graded.l3)], [rid(graded.l2u), rid(graded.l2)], [rid(graded.l1)]]
    pages = walk(http, graded.admin, RECORDS, "riskLevel=2", 1)
    assert pages == [[rid(graded.l2u)], [rid(graded.l2)]]


@pytest.mark.parametrize(("query", "field"), [
    ("riskLevel=0", "riskLevel"), ("riskLevel=5", "riskLevel"), ("riskLevel=x", "riskLevel"),
    ("riskLevel=", "riskLevel"), ("urgentAttention=yes", "urgentAttention"),
    ("urgentAttention=True", "urgentAttention"), ("origin=web", "origin"), ("status=done", "status"),
    ("limit=0", "limit"), ("limit=501", "limit"), ("limit=x", "limit"), ("limit=-1", "limit"),
])
def test_a_bad_records_parameter_is_400(http, tenant, query, field):
    response = http.get(f"{RECORDS}?{query}", headers=tenant.admin.headers)
    assert response.status_code == 400, response.json
    assert set(response.json) == {"error"} and response.json["error"].startswith(f"Invalid field {field}")


def test_records_limit_bounds(http, tenant):
    created = [create(http, tenant.player) for _ in range(3)]
    assert ids(listing(http, tenant.admin, RECORDS, "?limit=1")) == newest_first(*created)[:1]
    assert ids(listing(http, tenant.admin, RECORDS, "?limit=500")) == newest_first(*created)


# ------------------------------------------------------------------------------------ records: dates


def midnight(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), dt.UTC)


def created_at(http, member, moment: dt.datetime) -> dict:
    """A result created with the clock at `moment` (give or take the request's own duration)."""
    with clock.shifted(moment - clock.now()):
        return create(http, member)


def day_of(result: dict) -> dt.date:
    return dt.datetime.fromisoformat(result["createdAt"].replace("Z", "+00:00")).date()


@pytest.fixture
def dated(http, tenant):
    """Results on four consecutive UTC days D-1..D+2, some at the very edges of a day (oldest first)."""
    day = clock.now().date() - dt.timedelta(days=20)
    tenant.day = day
    tenant.before = created_at(http, tenant.player, midnight(day) - dt.timedelta(hours=12))
    # The very start of D: the clock can only be later than aimed, so it is D for sure.
    tenant.first = created_at(http, tenant.player, midnight(day))
    tenant.noon = created_at(http, tenant.player, midnight(day) + dt.timedelta(hours=12))
    # The last second of D+1 (a request takes far less than a second).
    tenant.last = created_at(http, tenant.player, midnight(day + dt.timedelta(days=2)) - dt.timedelta(seconds=1))
    tenant.after = created_at(http, tenant.player, midnight(day + dt.timedelta(days=2)))
    days = [day_of(getattr(tenant, name)) for name in ("before", "first", "noon", "last", "after")]
    assert days == [day + dt.timedelta(days=n) for n in (-1, 0, 0, 1, 2)], "the results are not on the days aimed at"
    return tenant


def dates(dated, start: int | None = None, end: int | None = None) -> str:
    """A query for days relative to D."""
    parts = [f"{name}={dated.day + dt.timedelta(days=offset)}" for name, offset in (("startDate", start),
                                                                                     ("endDate", end))
             if offset is not None]
    return "&".join(parts)


@pytest.mark.parametrize(("start", "end", "expected"), [
    (0, 1, ["last", "noon", "first"]),  # both ends inclusive, to the first and the last moment of a day
    (0, 0, ["noon", "first"]),
    (1, 1, ["last"]),
    (0, None, ["after", "last", "noon", "first"]),
    (None, 0, ["noon", "first", "before"]),
    (None, -1, ["before"]),
    (2, None, ["after"]),
    (-1, 2, ["after", "last", "noon", "first", "before"]),
    (3, 3, []),
    (-5, -2, []),
])
def test_records_date_range_is_inclusive_utc_days(http, dated, start, end, expected):
    page = listing(http, dated.admin, RECORDS, f"?{dates(dated, start, end)}")
    assert ids(page) == [rid(getattr(dated, name)) for name in expected]


def test_records_date_range_pages_with_the_cursor(http, dated):
    pages = walk(http, dated.admin, RECORDS, dates(dated, 0, 1), 2)
    assert pages == [[rid(dated.last), rid(dated.noon)], [rid(dated.first)]]
    pages = walk(http, dated.admin, RECORDS, dates(dated, -1, 2), 1)
    assert [p[0] for p in pages] == [rid(dated.after), rid(dated.last), rid(dated.noon), rid(dated.first),
                                     rid(dated.before)]
    # A cursor newer than the range starts at the range; one older than it leaves nothing.
    page = listing(http, dated.admin, RECORDS, f"?{dates(dated, 0, 1)}&startAfter={rid(dated.after)}")
    assert ids(page) == [rid(dated.last), rid(dated.noon), rid(dated.first)]
    page = listing(http, dated.admin, RECORDS, f"?{dates(dated, 0, 1)}&startAfter={rid(dated.before)}")
    assert page == {"results": [], "nextStartAfter": None}


def test_records_date_range_combines_with_filters(http, dated):
    in_progress = dated.noon["fallRiskResultId"]
    assert record(http, dated.player, in_progress, "quiz", quiz()).status_code == 200
    page = listing(http, dated.admin, RECORDS, f"?{dates(dated, 0, 1)}&status=in-progress")
    assert ids(page) == [in_progress]
    page = listing(http, dated.admin, RECORDS, f"?{dates(dated, 0, 1)}&status=created&userId={dated.player.uid}")
    assert ids(page) == [rid(dated.last), rid(dated.first)]


@pytest.mark.parametrize("value", ["2024-02-30", "2024-1-01", "20240101", "2024/01/01", "yesterday", "2024-01-01T00:00",
                                   "2024-01-01Z", "", "2024-13-01", "01-01-2024"])
@pytest.mark.parametrize("field", ["startDate", "endDate"])
def test_a_malformed_date_is_400(http, tenant, field, value):
    assert_error(http.get(f"{RECORDS}?{field}={value}", headers=tenant.admin.headers), 400,
                 service.INVALID_DATE.format(field=field))


@pytest.mark.parametrize("field", ["startDate", "endDate"])
def test_an_iso_week_date_is_not_a_yyyy_mm_dd_date(http, tenant, field):
    assert_error(http.get(f"{RECORDS}?{field}=2024-W01-1", headers=tenant.admin.headers), 400,
                 service.INVALID_DATE.format(field=field))


# Result ids start with 9999999999999 minus the creation time in ms, and a date range is a range of such
# prefixes: these dates need no result created on them, only a range that holds (or misses) today's results.
@pytest.mark.parametrize(("query", "listed"), [
    ("startDate=2000-01-01", True),
    ("endDate=2000-01-01", False),
    ("startDate=1970-01-02", True),
    ("endDate=2300-01-01", True),
    ("startDate=2300-01-01", False),
    ("startDate=1970-01-01", True),
    ("startDate=1900-01-01", True),
    ("endDate=1969-12-31", False),
    ("startDate=0001-01-01", True),
    ("endDate=9999-12-31", True),
])
def test_records_date_ranges_far_from_today(http, tenant, query, listed):
    created = [create(http, tenant.player) for _ in range(2)]
    page = listing(http, tenant.admin, RECORDS, f"?{query}")
    assert ids(page) == (newest_first(*created) if listed else [])


def test_a_start_after_the_end_is_400(http, tenant):
    assert_error(http.get(f"{RECORDS}?startDate=2024-03-02&endDate=2024-03-01", headers=tenant.admin.headers), 400,
                 service.INVERTED_RANGE)
    same_day = http.get(f"{RECORDS}?startDate=2024-03-01&endDate=2024-03-01", headers=tenant.admin.headers)
    assert same_day.status_code == 200 and same_day.json == {"results": [], "nextStartAfter": None}


# ------------------------------------------------------------------------------------ the client is gone


@pytest.fixture
def gone(make_tenant, http):
    """A tenant with a result, whose client document was deleted after its members signed in."""
    tenant = make_tenant()
    tenant.result = create(http, tenant.player)
    tenant.tokens = {"player": tenant.player.headers, "admin": tenant.admin.headers,
                     "client token": client_token(tenant)}
    tenancy.client_ref(tenant.client_id).delete()
    return tenant


@pytest.mark.parametrize("caller", ["player", "admin", "client token"])
def test_reads_are_500_client_id_not_found_when_the_tokens_client_is_gone(http, gone, caller):
    headers = gone.tokens[caller]
    user = f"?userId={gone.player.uid}" if caller == "client token" else ""
    for url in (f"{RESULTS}/{gone.result['fallRiskResultId']}", f"{RESULTS}{user}"):
        assert_error(http.get(url, headers=headers), 500, service.CLIENT_ID_NOT_FOUND)


@pytest.mark.parametrize("caller", ["admin", "client token"])
def test_records_are_500_client_id_not_found_when_the_tokens_client_is_gone(http, gone, caller):
    assert_error(http.get(RECORDS, headers=gone.tokens[caller]), 500, service.CLIENT_ID_NOT_FOUND)


def test_a_page_is_read_without_a_snapshot_per_result(http, tenant, monkeypatch):
    # Query.stream() makes a DocumentSnapshot of each result, which deep-copies the decoded data: with the decoding
    # that was about a third of a list request's CPU (issue 26). A page is decoded once (core.reads).
    from google.cloud.firestore_v1.base_document import DocumentSnapshot

    created = [create(http, tenant.player) for _ in range(3)]
    made = []
    original = DocumentSnapshot.__init__
    monkeypatch.setattr(DocumentSnapshot, "__init__", lambda snap, ref, *a, **k: made.append(ref.path) or original(
        snap, ref, *a, **k))
    page = listing(http, tenant.player, RESULTS)
    assert ids(page) == newest_first(*created)
    assert made == []  # neither a result nor the client document (core.tenancy.get_client)
