"""HTTP routes of fall risk: POST /api/fall-risk (4.3) and the Fall Risk Results API (designed here; README).

Every answer carries CORS headers and preflights are answered (core.cors): assessment pages call these from
the browser with a bearer token.
"""

from typing import Any

from ..core import auth, cors, http, openapi
from ..core.auth import Principal
from ..core.http import BodyError
from ..core.openapi import CLIENT_TOKEN, ID_TOKEN, error
from ..core.tenancy import Client
from . import rules, service
from .models import (
    STEP_BODIES,
    STEPS,
    CreateFallRiskBody,
    FallRiskRecordsQuery,
    FallRiskResultsQuery,
)
from .responses import FallRiskCreated, FallRiskResultList, FallRiskRulesResult, OneFallRiskResult

app = http.create_app("fall_risk")
cors.enable(app)
api = openapi.Api(app, "Fall risk")

JWT = (ID_TOKEN, CLIENT_TOKEN)
UNAUTHORIZED = error(401, "Missing, invalid or expired token (an ID token of a member, or a client token), or a "
                          "disabled user.")
CLIENT_GONE = error(500, "Client ID not found: the token's client no longer exists.")
READ_ERRORS = (
    UNAUTHORIZED,
    error(403, "The result is another member's (members read and record only their own; admins and client tokens "
               "any of their client)."),
    error(404, "Result not found (unknown, or of another client)."),
    CLIENT_GONE,
)
BUSY = error(503, "The result was changed by too many requests at once; retry.")

# The 7.4 messages of the create body's fields.
CREATE_FIELD_ERRORS = {"email": service.INVALID_EMAIL, "photoURL": service.INVALID_PHOTO_URL,
                       "userId": service.USER_DOES_NOT_EXIST}


def _caller() -> tuple[Principal, Client]:
    principal = auth.require_jwt()
    return principal, service.caller_client(principal)


def _results_query() -> FallRiskResultsQuery:
    try:
        return http.parse_query(FallRiskResultsQuery)
    except BodyError as exc:
        if exc.field == "userId":  # too long to be anyone's id: the 7.4 message, as for any unknown member
            raise BodyError(service.USER_DOES_NOT_EXIST, field=exc.field, kind=exc.kind) from None
        raise


def _records_query() -> FallRiskRecordsQuery:
    try:
        return http.parse_query(FallRiskRecordsQuery)
    except BodyError as exc:
        if exc.field in ("startDate", "endDate"):  # over a date's length: worded as any other malformed date
            raise BodyError(service.INVALID_DATE.format(field=exc.field), field=exc.field, kind=exc.kind) from None
        raise


def _create_body() -> CreateFallRiskBody:
    try:
        return http.parse_body(CreateFallRiskBody, allow_empty=True)
    except BodyError as exc:
        if exc.field in CREATE_FIELD_ERRORS and exc.kind != "extra_forbidden":
            raise BodyError(CREATE_FIELD_ERRORS[exc.field], field=exc.field, kind=exc.kind) from None
        raise


@api.post("/api/fall-risk", operation_id="createFallRiskResult", summary="Start a fall-risk assessment",
          description="Creates an empty result (status created) and returns the relative URLs of its steps (2.7). "
                      "With an ID token the result is the caller's (origin app), or with userId a member's started "
                      "by an admin (origin clinician); with a client token userId is required (origin partner). The "
                      "member's date of birth and sex are copied for the chair-stand norm.",
          security=JWT, sample_as="PLAYER_ID_TOKEN", body=CreateFallRiskBody, example={"skipDeviceSetup": True},
          responses={200: FallRiskCreated},
          errors=[error(400, "'Invalid email', 'Invalid photoURL', 'User does not exist' (unknown or inactive "
                             "member), userId missing with a client token, or another invalid field."),
                  UNAUTHORIZED,
                  error(403, "A member named another userId (only admins and client tokens act for others)."),
                  CLIENT_GONE])
def create_result():
    principal, client = _caller()
    return service.create(principal, client, _create_body())


@api.get("/api/fall-risk/rules", operation_id="getFallRiskRules", summary="Get the scoring rules",
         description="The current rules: the 12 Stay Independent statements with their keys (what the questionnaire "
                     "step answers), points and LOINC codes, and every threshold the scoring applies.",
         security=JWT, sample_as="PLAYER_ID_TOKEN", responses={200: FallRiskRulesResult},
         errors=[UNAUTHORIZED, CLIENT_GONE])
def get_rules():
    _caller()
    return {"rules": rules.describe()}


@api.get("/api/fall-risk/results", operation_id="listFallRiskResults", summary="List a member's results",
         description="The caller's results, newest first; admins and client tokens name a member with userId "
                     "(required with a client token).",
         security=JWT, sample_as="PLAYER_ID_TOKEN", query=FallRiskResultsQuery, responses={200: FallRiskResultList},
         errors=[error(400, "'User does not exist', userId missing with a client token, or an invalid parameter."),
                 UNAUTHORIZED, error(403, "A member named another userId."), CLIENT_GONE])
def list_results():
    principal, client = _caller()
    return service.user_results(principal, client, _results_query())


@api.get("/api/fall-risk/records", operation_id="listFallRiskRecords", summary="List the client's results (staff)",
         description="Every result of the client, newest first, for a clinician dashboard: filter by completion "
                     "state, risk level, urgent attention, origin, member and creation date (UTC days, inclusive). "
                     "Admins read their own client, platform administrators any (clientId), client tokens their "
                     "own.",
         security=JWT, query=FallRiskRecordsQuery, responses={200: FallRiskResultList},
         errors=[error(400, "An invalid parameter, a malformed date or startDate after endDate."), UNAUTHORIZED,
                 error(403, "Not an admin or a client token, or clientId names another client (platform "
                            "administrators only)."),
                 error(404, "The named client does not exist (platform administrators)."), CLIENT_GONE])
def list_records():
    principal = auth.require_jwt()
    query = _records_query()
    return service.records(service.records_client(principal, query.clientId), query)


@api.get("/api/fall-risk/results/<fall_risk_result_id>", operation_id="getFallRiskResult",
         summary="Get a result", description="One result in full: the steps as recorded and, once completed, the "
                                             "scoring as computed then (never re-scored).",
         security=JWT, sample_as="PLAYER_ID_TOKEN", responses={200: OneFallRiskResult}, errors=READ_ERRORS)
def get_result(fall_risk_result_id: str):
    principal, client = _caller()
    return {"result": service.get(principal, client, fall_risk_result_id)}


STEP_DOCS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "quiz": ("Record the questionnaire",
             "The 12 Stay Independent answers (true = yes), the fall history, and optionally the participant's date "
             "of birth and sex for this result.",
             {"answers": {"fallenPastYear": True, "advisedCaneOrWalker": False, "unsteadyWhenWalking": True,
                          "steadiesOnFurniture": False, "worriedAboutFalling": True, "pushesUpFromChair": False,
                          "troubleSteppingOntoCurb": False, "rushesToToilet": False, "lostFeelingInFeet": False,
                          "medicineLightheaded": False, "medicineSleepOrMood": False, "oftenSadOrDepressed": False},
              "fallsPastYear": 1, "injuredInFall": False}),
    "sitToStand": ("Record the 30-second chair stand", "Full stands in 30 s, and whether the arms were used.",
                   {"standCount": 11, "usedArms": False}),
    "tandemStance": ("Record balance stages 1-3", "Seconds held with the feet side by side, semi-tandem and tandem "
                                                  "(10 s each; the test stops at the first stage not held).",
                     {"sideBySideSeconds": 10, "semiTandemSeconds": 10, "tandemSeconds": 7.5}),
    "singleLegStance": ("Record balance stage 4", "Seconds held on one foot; null when not attempted.",
                        {"singleLegSeconds": None}),
    "tandemWalk": ("Record the tandem walk", "Consecutive heel-to-toe steps (of 10), missteps, support and time.",
                   {"stepsCompleted": 10, "missteps": 0, "neededSupport": False, "durationSeconds": 14.2}),
}
STEP_ERRORS = (*READ_ERRORS, error(400, "An invalid field, or stages out of the protocol's order."),
               error(409, "The result is completed and the step differs from the one recorded."), BUSY)


def _step_route(step: str):
    summary, description, example = STEP_DOCS[step]
    body_model = STEP_BODIES[step]

    def record(fall_risk_result_id: str):
        principal, client = _caller()
        body = http.parse_body(body_model)
        return {"result": service.record_step(principal, client, fall_risk_result_id, step, body)}

    record.__name__ = f"record_{step}"
    api.put(f"/api/fall-risk/results/<fall_risk_result_id>/{STEPS[step]}",
            operation_id=f"recordFallRisk{step[0].upper()}{step[1:]}", summary=summary,
            description=description + " A step may be recorded again until the result is completed; the fifth "
                                      "step scores and completes it (the answer then carries the scoring). A "
                                      "completed result is final: the same step again is answered unchanged, a "
                                      "different one is 409.",
            security=JWT, sample_as="PLAYER_ID_TOKEN", body=body_model, example=example,
            responses={200: OneFallRiskResult}, errors=STEP_ERRORS)(record)


for _step in STEPS:
    _step_route(_step)

