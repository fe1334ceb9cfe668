"""POST /api/fall-risk (4.3, 2.7, 7.4): the creation result, the 7.4 messages, who creates for whom (origin),
what is stored, and CORS on every answer and preflight."""

import datetime as dt
import json
import re
from urllib.parse import urlsplit

import jwt
import pytest

from tests.conftest import assert_error, bearer
from tests.fall_risk.conftest import CREATE, RECORDS, RESULTS, born_aged, create
from wellness_api.api_keys import service as api_keys
from wellness_api.core import auth, client_tokens, clock, firebase, tenancy, users
from wellness_api.core.errors import MALFORMED_JSON, UNSUPPORTED_MEDIA_TYPE
from wellness_api.fall_risk import service
from wellness_api.identity.routes import app as identity_app

ISO_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
RESULT_ID = re.compile(r"^\d{13}[a-z0-9]{8}$")  # a reversed millisecond time and 8 random characters (README)
CREATED_FIELDS = {"fallRiskResultId", "quizUrl", "sitToStandTestUrl", "tandemStanceTestUrl",
                  "singleLegStanceTestUrl", "tandemWalkTestUrl", "createdAt"}
# The four tests' URL fields and the path segment of each test.
TEST_URLS = {"sitToStandTestUrl": "sit-to-stand", "tandemStanceTestUrl": "tandem-stance",
             "singleLegStanceTestUrl": "single-leg-stance", "tandemWalkTestUrl": "tandem-walk"}


def post(http, headers: dict, body) -> object:
    return http.post(CREATE, json=body, headers=headers)


def read_back(http, tenant, result_id: str) -> dict:
    """The stored result, as the client's admin reads it."""
    response = http.get(f"{RESULTS}/{result_id}", headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    return response.json["result"]


def all_results(http, tenant) -> list[dict]:
    """Every result of the tenant (the admin's records), to show a refused request wrote nothing."""
    response = http.get(f"{RECORDS}?limit=500", headers=tenant.admin.headers)
    assert response.status_code == 200, response.json
    return response.json["results"]


def client_token(tenant) -> tuple[dict, dict]:
    """Headers with a client token, obtained as a partner backend does (POST /api/client/token/ with a key's
    secret), and the key's record."""
    key = api_keys.create_key(tenant.client_id, "partner backend", False, "test")
    response = identity_app.test_client().post("/api/client/token/",
                                               json={"clientId": tenant.client_id, "clientSecret": key.secret})
    assert response.status_code == 200, response.json
    return bearer(response.json["token"]), key.api_key


def is_relative(url: str) -> bool:
    parts = urlsplit(url)
    return url.startswith("/") and not url.startswith("//") and not parts.scheme and not parts.netloc


# ------------------------------------------------------------------------------------ the 2.7 result


@pytest.mark.parametrize("body", [{}, {"skipDeviceSetup": False}], ids=["absent", "false"])
def test_the_2_7_fields_exactly_with_the_tests_through_device_setup(http, tenant, body):
    before = clock.now()
    response = post(http, tenant.player.headers, body)
    assert response.status_code == 200, response.json
    created = response.json
    assert set(created) == CREATED_FIELDS
    result_id = created["fallRiskResultId"]
    assert RESULT_ID.match(result_id)
    # The questionnaire never goes through the device setup; each of the four tests does.
    assert created["quizUrl"] == f"/fall-risk/{result_id}/quiz"
    for field, segment in TEST_URLS.items():
        assert created[field] == f"/fall-risk/{result_id}/device-setup?next={segment}"
    assert all(is_relative(created[field]) for field in ("quizUrl", *TEST_URLS))
    assert ISO_Z.match(created["createdAt"])
    created_at = dt.datetime.fromisoformat(created["createdAt"].replace("Z", "+00:00"))
    assert before - dt.timedelta(milliseconds=1) <= created_at <= clock.now()


def test_skip_device_setup_leads_straight_to_each_test(http, tenant):
    created = create(http, tenant.player, skipDeviceSetup=True)
    result_id = created["fallRiskResultId"]
    assert set(created) == CREATED_FIELDS
    assert created["quizUrl"] == f"/fall-risk/{result_id}/quiz"
    for field, segment in TEST_URLS.items():
        assert created[field] == f"/fall-risk/{result_id}/{segment}"
        assert is_relative(created[field])


def test_the_new_result_is_stored_empty_with_the_members_details(http, assessed):
    photo = "https://cdn.example.com/people/senior.png?size=200"
    created = create(http, assessed.senior, photoURL=photo, skipDeviceSetup=True)
    result = read_back(http, assessed, created["fallRiskResultId"])
    assert result == {
        "fallRiskResultId": created["fallRiskResultId"], "clientId": assessed.client_id,
        "userId": assessed.senior.uid, "origin": "app", "status": "created", "email": assessed.senior.email,
        "photoURL": photo, "skipDeviceSetup": True,
        # copied from the member record: they choose the chair-stand norm
        "participant": {"birthDate": born_aged(72), "sex": "female"},
        "riskLevel": None, "urgentAttention": None, "rulesVersion": None,
        "urls": {field: created[field] for field in ("quizUrl", *TEST_URLS)},
        "steps": {step: None for step in ("quiz", "sitToStand", "tandemStance", "singleLegStance", "tandemWalk")},
        "stepsRemaining": ["quiz", "sitToStand", "tandemStance", "singleLegStance", "tandemWalk"],
        "scoring": None, "createdAt": created["createdAt"], "updatedAt": created["createdAt"], "completedAt": None,
    }


# ------------------------------------------------------------------------------------ the 7.4 messages


@pytest.mark.parametrize("email", ["not-an-email", "", "a@", "@example.com", "a b@example.com", "a@b@example.com",
                                   "a@.example.com", "x" * 250 + "@example.com", 5, True, ["a@example.com"],
                                   {"email": "a@example.com"}])
def test_invalid_email(http, tenant, email):
    assert_error(post(http, tenant.player.headers, {"email": email}), 400, "Invalid email")
    assert all_results(http, tenant) == []


@pytest.mark.parametrize("photo_url", [
    "not a url", "ftp://example.com/p.png", "http://", "https:///p.png", "https://exa mple.com/p.png",
    "https://example.com/a b.png", "javascript:alert(1)", "/relative/p.png", "example.com/p.png",
    "https://example.com:99999/p.png", "http://[::1", "https://example.com/" + "a" * 2048, "",
    5, False, ["https://example.com/p.png"],
])
def test_invalid_photo_url(http, tenant, photo_url):
    assert_error(post(http, tenant.player.headers, {"photoURL": photo_url}), 400, "Invalid photoURL")
    assert all_results(http, tenant) == []


@pytest.mark.parametrize("photo_url", ["http://example.com/p.png", "HTTPS://CDN.Example.com/P.PNG",
                                       "https://example.com:8443/u/1?size=2#top",
                                       "https://example.com/" + "a" * (2048 - len("https://example.com/"))])
def test_valid_photo_urls_are_stored_as_given(http, tenant, photo_url):
    created = create(http, tenant.player, photoURL=photo_url)
    assert read_back(http, tenant, created["fallRiskResultId"])["photoURL"] == photo_url


@pytest.mark.parametrize("user_id", ["no-such-user", "bad id!", "a/b", "__x__", "x" * 65, ""])
def test_unknown_or_malformed_user_is_user_does_not_exist(http, tenant, user_id):
    assert_error(post(http, tenant.admin.headers, {"userId": user_id}), 400, "User does not exist")
    assert all_results(http, tenant) == []


def test_another_clients_member_does_not_exist_here(http, tenant, other_tenant):
    # Members are per client: an admin, or a client token, cannot start a result for another client's member.
    headers, _ = client_token(tenant)
    for caller in (tenant.admin.headers, headers):
        for uid in (other_tenant.player.uid, other_tenant.admin.uid):
            assert_error(post(http, caller, {"userId": uid}), 400, "User does not exist")
    assert all_results(http, tenant) == [] and all_results(http, other_tenant) == []


def test_a_disabled_member_does_not_exist(http, tenant):
    member = tenant.add_member("player")
    users.disable_user(tenant.client, member.uid)
    assert_error(post(http, tenant.admin.headers, {"userId": member.uid}), 400, "User does not exist")
    assert all_results(http, tenant) == []


@pytest.mark.parametrize("user_id", [5, True, ["x"], {"uid": "x"}, 1.5])
def test_a_user_id_of_the_wrong_type_is_user_does_not_exist(http, tenant, user_id):
    for member in (tenant.player, tenant.admin):
        assert_error(post(http, member.headers, {"userId": user_id}), 400, "User does not exist")
    assert all_results(http, tenant) == []


def test_a_field_message_is_the_7_4_one_even_beside_valid_fields(http, tenant):
    body = {"userId": tenant.player.uid, "email": "nope", "skipDeviceSetup": True}
    assert_error(post(http, tenant.admin.headers, body), 400, "Invalid email")
    body = {"userId": tenant.player.uid, "email": "ok@example.com", "photoURL": "nope"}
    assert_error(post(http, tenant.admin.headers, body), 400, "Invalid photoURL")


def forged_client_token(tenant) -> str:
    return jwt.encode({"iss": client_tokens.ISSUER, "aud": client_tokens.AUDIENCE, "sub": tenant.client_id,
                       "clientId": tenant.client_id, "keyId": "k", "typ": "client", "iat": 1, "exp": 4102444800},
                      "not-the-secret-" * 4, algorithm="HS256")


def test_401_without_a_usable_token(http, tenant):
    tampered = tenant.player.token[:-4] + ("AAAA" if not tenant.player.token.endswith("AAAA") else "BBBB")
    cases = [
        ({}, auth.MISSING_AUTH),
        ({"Authorization": ""}, auth.MISSING_AUTH),
        ({"Authorization": "Bearer"}, auth.MISSING_AUTH),
        ({"Authorization": f"Basic {tenant.player.token}"}, auth.MISSING_AUTH),
        ({"Authorization": tenant.player.token}, auth.MISSING_AUTH),
        ({"Authorization": "Bearer garbage"}, auth.INVALID_TOKEN),
        ({"Authorization": "Bearer a.b.c"}, auth.INVALID_TOKEN),
        (bearer(tampered), auth.INVALID_TOKEN),
        (bearer(forged_client_token(tenant)), auth.INVALID_TOKEN),
    ]
    for headers, message in cases:
        response = post(http, headers, {"skipDeviceSetup": True})
        assert_error(response, 401, message)
        assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert all_results(http, tenant) == []


def test_a_disabled_members_own_token_is_401(http, tenant):
    member = tenant.add_member("player")
    headers = member.headers  # signed in while still active
    users.disable_user(tenant.client, member.uid)
    assert_error(post(http, headers, {}), 401, auth.INVALID_TOKEN)
    assert all_results(http, tenant) == []


@pytest.fixture
def gone(make_tenant):
    """A tenant whose client document was deleted after its members signed in and a client token was issued."""
    tenant = make_tenant()
    tenant.tokens = {"player": tenant.player.headers, "admin": tenant.admin.headers,
                     "client token": client_token(tenant)[0]}
    tenancy.client_ref(tenant.client_id).delete()
    return tenant


@pytest.mark.parametrize("caller", ["player", "admin", "client token"])
def test_500_client_id_not_found_when_the_tokens_client_is_gone(http, gone, caller):
    body = {"userId": gone.player.uid} if caller != "player" else {}
    response = post(http, gone.tokens[caller], body)
    assert_error(response, 500, "Client ID not found")
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    # Nothing was written under the deleted client either.
    assert list(tenancy.client_ref(gone.client_id).collection("fallRiskResults").limit(1).stream()) == []


# ------------------------------------------------------------------------------------ the body


@pytest.mark.parametrize(("body", "message"), [
    ({"foo": 1}, "Unknown field: foo."),
    ({"skipDeviceSetup": True, "Email": "a@b.co"}, "Unknown field Email; did you mean email?"),  # core.http near miss
    ({"clientId": "x"}, "Unknown field: clientId."), ({"origin": "clinician"}, "Unknown field: origin.")])
def test_an_unknown_field_is_400(http, tenant, body, message):
    assert_error(post(http, tenant.player.headers, body), 400, message)
    assert all_results(http, tenant) == []


@pytest.mark.parametrize("skip", ["true", 1, 0, "yes", []])
def test_skip_device_setup_must_be_a_boolean(http, tenant, skip):
    response = post(http, tenant.player.headers, {"skipDeviceSetup": skip})
    assert response.status_code == 400, response.json
    assert set(response.json) == {"error"}
    assert response.json["error"].startswith("Invalid field skipDeviceSetup")


def test_an_empty_body_is_a_result_with_the_defaults(http, tenant):
    for response in (http.post(CREATE, headers=tenant.player.headers),  # no body, no Content-Type
                     http.post(CREATE, data=b"", content_type="application/json", headers=tenant.player.headers),
                     post(http, tenant.player.headers, {})):
        assert response.status_code == 200, response.json
        assert set(response.json) == CREATED_FIELDS
        result_id = response.json["fallRiskResultId"]
        assert response.json["sitToStandTestUrl"] == f"/fall-risk/{result_id}/device-setup?next=sit-to-stand"
        stored = read_back(http, tenant, result_id)
        assert (stored["userId"], stored["origin"], stored["email"]) == (tenant.player.uid, "app", tenant.player.email)
    assert len(all_results(http, tenant)) == 3


def test_null_fields_are_treated_as_absent(http, tenant):
    created = create(http, tenant.player, userId=None, email=None, photoURL=None)
    stored = read_back(http, tenant, created["fallRiskResultId"])
    assert stored["userId"] == tenant.player.uid and stored["origin"] == "app"
    assert stored["email"] == tenant.player.email and stored["photoURL"] is None
    assert stored["skipDeviceSetup"] is False


def test_skip_device_setup_null_is_treated_as_absent(http, tenant):
    response = post(http, tenant.player.headers, {"skipDeviceSetup": None})
    assert response.status_code == 200, response.json
    result_id = response.json["fallRiskResultId"]
    assert response.json["tandemWalkTestUrl"] == f"/fall-risk/{result_id}/device-setup?next=tandem-walk"


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_not_declared_json_is_415(http, tenant, content_type):
    headers = {**tenant.player.headers, **({"Content-Type": content_type} if content_type else {})}
    response = http.post(CREATE, data=json.dumps({"skipDeviceSetup": True}), headers=headers)
    assert_error(response, 415, UNSUPPORTED_MEDIA_TYPE)
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert all_results(http, tenant) == []


@pytest.mark.parametrize("data", [b"[]", b'[{"skipDeviceSetup": true}]', b'"x"', b"null", b"1", b"{nope", b"{"])
def test_a_body_that_is_not_a_json_object_is_400(http, tenant, data):
    response = http.post(CREATE, data=data, content_type="application/json", headers=tenant.player.headers)
    assert_error(response, 400, MALFORMED_JSON)
    assert all_results(http, tenant) == []


# ------------------------------------------------------------------------------------ who, and the origin


def test_a_player_creates_for_themselves(http, tenant):
    for body in ({}, {"userId": tenant.player.uid}):  # naming themselves is the same
        created = create(http, tenant.player, **body)
        stored = read_back(http, tenant, created["fallRiskResultId"])
        assert (stored["userId"], stored["origin"], stored["clientId"]) == (tenant.player.uid, "app", tenant.client_id)


def test_a_player_naming_anyone_else_is_403(http, tenant, other_tenant):
    someone = tenant.add_member("player")
    # Another member, an admin, an unknown id, another client's member: a member may not probe who exists.
    for uid in (someone.uid, tenant.admin.uid, "no-such-user", other_tenant.player.uid):
        assert_error(post(http, tenant.player.headers, {"userId": uid}), 403, service.ONLY_YOURSELF)
    assert all_results(http, tenant) == []


def test_an_admin_starts_a_result_for_a_member_as_clinician(http, assessed):
    created = create(http, assessed.admin, userId=assessed.senior.uid)
    stored = read_back(http, assessed, created["fallRiskResultId"])
    assert (stored["userId"], stored["origin"]) == (assessed.senior.uid, "clinician")
    # The member's details, not the admin's.
    assert stored["email"] == assessed.senior.email
    assert stored["participant"] == {"birthDate": born_aged(72), "sex": "female"}
    # The member reads it as their own.
    own = http.get(f"{RESULTS}/{created['fallRiskResultId']}", headers=assessed.senior.headers)
    assert own.status_code == 200 and own.json["result"] == stored


def test_a_result_started_for_another_member_reads_their_record_once(http, assessed):
    # The record read to check that the member is active is the one the result copies their details from: the
    # same reads as a member starting their own (issue 26: it used to be read a second time).
    from support.firestore_ops import counting

    create(http, assessed.admin, userId=assessed.senior.uid)  # warm: the admin's token checked once
    create(http, assessed.senior)
    reads = {}
    for name, member, body in (("own", assessed.senior, {}), ("clinician", assessed.admin,
                                                              {"userId": assessed.senior.uid})):
        with counting() as ops:
            create(http, member, **body)
        reads[name] = ops.reads
    assert reads["clinician"] == reads["own"]


def test_an_admin_for_themselves_is_app(http, tenant):
    for body in ({}, {"userId": tenant.admin.uid}):
        stored = read_back(http, tenant, create(http, tenant.admin, **body)["fallRiskResultId"])
        assert (stored["userId"], stored["origin"]) == (tenant.admin.uid, "app")


def test_a_client_token_acts_for_a_member_as_partner(http, assessed):
    headers, _ = client_token(assessed)
    response = post(http, headers, {"userId": assessed.senior.uid, "skipDeviceSetup": True})
    assert response.status_code == 200, response.json
    assert set(response.json) == CREATED_FIELDS
    stored = read_back(http, assessed, response.json["fallRiskResultId"])
    assert (stored["userId"], stored["origin"], stored["email"]) == (assessed.senior.uid, "partner",
                                                                     assessed.senior.email)
    assert stored["participant"] == {"birthDate": born_aged(72), "sex": "female"}


@pytest.mark.parametrize("body", [{}, {"userId": None}, {"skipDeviceSetup": True}])
def test_a_client_token_without_user_id_is_400(http, tenant, body):
    headers, _ = client_token(tenant)
    assert_error(post(http, headers, body), 400, service.USER_ID_REQUIRED)
    assert all_results(http, tenant) == []


def test_a_client_token_naming_an_unknown_user_is_400(http, tenant):
    headers, _ = client_token(tenant)
    assert_error(post(http, headers, {"userId": "nobody"}), 400, "User does not exist")


def test_a_revoked_keys_client_token_is_401(http, tenant):
    headers, key = client_token(tenant)
    client_token(tenant)  # the last active key cannot be revoked: another one stays
    assert post(http, headers, {"userId": tenant.player.uid}).status_code == 200
    api_keys.revoke_key(tenant.client_id, key["keyId"])
    assert_error(post(http, headers, {"userId": tenant.player.uid}), 401, auth.INVALID_TOKEN)
    assert len(all_results(http, tenant)) == 1


# ------------------------------------------------------------------------------------ email and photo


def test_email_defaults_to_the_members_and_a_given_one_is_lower_cased(http, tenant):
    default = create(http, tenant.player)
    assert read_back(http, tenant, default["fallRiskResultId"])["email"] == tenant.player.email
    given = create(http, tenant.player, email="Senior.Person@Example.COM", photoURL="https://example.com/me.jpg")
    stored = read_back(http, tenant, given["fallRiskResultId"])
    assert stored["email"] == "senior.person@example.com"
    assert stored["photoURL"] == "https://example.com/me.jpg"
    # An admin giving an email for a member: the given one, lower-cased, not the member's.
    for_member = create(http, tenant.admin, userId=tenant.player.uid, email="CARER@Example.org")
    assert read_back(http, tenant, for_member["fallRiskResultId"])["email"] == "carer@example.org"


# ------------------------------------------------------------------------------------ CORS


def assert_cors(response) -> None:
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    # Bearer tokens, never cookies: credentials are never allowed (nor needed) cross-origin.
    assert "Access-Control-Allow-Credentials" not in response.headers


BROWSER = {"Origin": "https://app.example"}


def test_every_answer_carries_cors_headers(http, make_tenant):
    tenant = make_tenant()
    answers = {
        200: post(http, {**BROWSER, **tenant.player.headers}, {}),
        400: post(http, {**BROWSER, **tenant.player.headers}, {"email": "nope"}),
        401: post(http, BROWSER, {}),
        403: post(http, {**BROWSER, **tenant.player.headers}, {"userId": tenant.admin.uid}),
        404: http.get("/api/fall-risk/no-such-path", headers={**BROWSER, **tenant.player.headers}),
        405: http.delete(CREATE, headers={**BROWSER, **tenant.player.headers}),
        415: http.post(CREATE, data="{}", content_type="text/plain", headers={**BROWSER, **tenant.player.headers}),
    }
    headers = tenant.player.headers
    tenancy.client_ref(tenant.client_id).delete()
    answers[500] = post(http, {**BROWSER, **headers}, {})
    for status, response in answers.items():
        assert response.status_code == status, (status, response.json)
        assert_cors(response)
        assert set(response.json) == ({"error"} if status != 200 else CREATED_FIELDS)
    assert answers[500].json == {"error": "Client ID not found"}


def count_all_results() -> int:
    """Every fall-risk result of every client (a preflight must write none)."""
    return firebase.db().collection_group("fallRiskResults").count().get()[0][0].value


@pytest.mark.parametrize(("path", "method"), [
    ("/api/fall-risk", "POST"),
    ("/api/fall-risk/results/{id}/quiz", "PUT"),
    ("/api/fall-risk/records", "GET"),
    ("/api/fall-risk/results/{id}", "GET"),
    ("/api/fall-risk/results", "GET"),
])
def test_preflight_is_204_with_the_routes_methods_and_writes_nothing(http, tenant, path, method):
    result_id = create(http, tenant.player)["fallRiskResultId"]
    before, stored_before = count_all_results(), read_back(http, tenant, result_id)
    response = http.options(path.format(id=result_id), headers={
        **BROWSER, "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "authorization,content-type"})  # no credentials on a preflight
    assert response.status_code == 204
    assert response.data == b""
    assert_cors(response)
    assert [m.strip() for m in response.headers["Access-Control-Allow-Methods"].split(",")] == [method]
    allowed = {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type"} <= allowed
    assert int(response.headers["Access-Control-Max-Age"]) > 0
    # The handler never ran: no result was created and the existing one is unchanged.
    assert count_all_results() == before
    assert read_back(http, tenant, result_id) == stored_before


def test_preflight_of_an_unknown_path_is_the_areas_404(http):
    response = http.options("/api/fall-risk/nowhere", headers={**BROWSER, "Access-Control-Request-Method": "GET"})
    assert_error(response, 404, "Not found.")
    assert_cors(response)
