"""Demo fall-risk data for `platformctl seed`: eleven members aged 51 to 93 of both sexes (demo-member-NN@ the
client's demo domain, password demo-member-pass), and about two months of their results across every risk level,
origin and completion state, scored through the same service as the API.

Idempotent: members are created only when missing, results only while the client has none.
"""

import datetime as dt

from ..core import clock, firebase, users
from ..core.auth import Principal
from ..core.tenancy import ROLE_ADMIN, ROLE_PLAYER, Client
from . import repository as repo
from . import service
from .models import STEP_BODIES, CreateFallRiskBody
from .repository import Filters

MEMBER_PASSWORD = "demo-member-pass"
ANSWERS = ("fallenPastYear", "advisedCaneOrWalker", "unsteadyWhenWalking", "steadiesOnFurniture",
           "worriedAboutFalling", "pushesUpFromChair", "troubleSteppingOntoCurb", "rushesToToilet",
           "lostFeelingInFeet", "medicineLightheaded", "medicineSleepOrMood", "oftenSadOrDepressed")

# (member number, display name, date of birth, sex)
MEMBERS = [
    (1, "Robert Chan", "1962-02-11", "male"), (2, "Mary Lee", "1958-07-23", "female"),
    (3, "David Wong", "1951-04-02", "male"), (4, "Helen Ng", "1946-09-17", "female"),
    (5, "Frank Lau", "1940-12-05", "male"), (6, "Grace Ho", "1933-06-30", "female"),
    (7, "Alice Tam", "1966-01-20", "female"), (8, "Peter Cheung", "1955-10-08", "male"),
    (9, "Susan Yip", "1949-03-27", "female"), (10, "George Lam", "1944-08-14", "male"),
    (11, "Irene Kwok", "1975-05-09", "female"),
]


def _quiz(*yes: str, falls: int | None = None, injured: bool | None = None) -> dict:
    return {"answers": {key: key in yes for key in ANSWERS}, "fallsPastYear": falls, "injuredInFall": injured}


def _tests(stands: int, stances: tuple, single: float | None, walk: int, *, arms: bool = False,
           support: bool = False) -> dict:
    side, semi, tandem = stances
    return {"sitToStand": {"standCount": stands, "usedArms": arms},
            "tandemStance": {"sideBySideSeconds": side, "semiTandemSeconds": semi, "tandemSeconds": tandem},
            "singleLegStance": {"singleLegSeconds": single},
            "tandemWalk": {"stepsCompleted": walk, "missteps": 0 if walk == 10 else 2, "neededSupport": support,
                           "durationSeconds": 12.5 + (10 - walk) * 1.5}}


HELD = (10, 10, 10)
# (member number (0: the demo player), days ago, origin, steps recorded): every level, origin and state.
RESULTS = [
    (0, 34, "app", {"quiz": _quiz("rushesToToilet"), **_tests(9, HELD, 8.2, 10)}),  # level 2: chair stand
    (0, 0, "app", {"quiz": _quiz("medicineSleepOrMood")}),  # in progress
    (1, 52, "app", {"quiz": _quiz(), **_tests(16, HELD, 10, 10)}),  # level 1
    (2, 45, "clinician", {"quiz": _quiz("advisedCaneOrWalker", "rushesToToilet", "medicineSleepOrMood"),
                          **_tests(13, HELD, 10, 10)}),  # level 2: total 4
    (3, 40, "app", {"quiz": _quiz("unsteadyWhenWalking", "troubleSteppingOntoCurb"),
                    **_tests(9, HELD, 4.5, 10)}),  # level 3
    (4, 50, "clinician", {"quiz": _quiz("worriedAboutFalling", "pushesUpFromChair"),
                          **_tests(8, (10, 10, 8), None, 8)}),  # level 3
    (4, 12, "clinician", {"quiz": _quiz("fallenPastYear", "worriedAboutFalling", "steadiesOnFurniture",
                                        falls=2, injured=False),
                          **_tests(7, (10, 10, 6), None, 6)}),  # level 4, urgent
    (5, 20, "partner", {"quiz": _quiz("fallenPastYear", "advisedCaneOrWalker", "lostFeelingInFeet",
                                      "medicineLightheaded", falls=1, injured=True),
                        **_tests(0, (8, None, None), None, 3, arms=True, support=True)}),  # level 4, urgent
    (6, 27, "clinician", {"quiz": _quiz("pushesUpFromChair", "troubleSteppingOntoCurb", "rushesToToilet",
                                        "lostFeelingInFeet"),
                          **_tests(3, (10, 10, 5), None, 5)}),  # level 3
    (7, 18, "partner", {"quiz": _quiz(), **_tests(15, HELD, 6, 10)}),  # level 1, single leg noted
    (8, 9, "app", {"quiz": _quiz("oftenSadOrDepressed"), **_tests(13, HELD, 10, 7)}),  # level 2: gait
    (9, 5, "app", {"quiz": _quiz("worriedAboutFalling"), "sitToStand": {"standCount": 10}}),  # in progress
    (10, 2, "clinician", {}),  # created, not started
    (11, 15, "partner", {"quiz": _quiz(), **_tests(17, HELD, 10, 10)}),  # level 1 (under 60: the 60-64 norm)
]


def _member(client: Client, number: int, name: str, born: str, sex: str) -> str:
    domain = client.hostnames[0].split(".")[0] if client.hostnames else client.client_id
    email = f"demo-member-{number:02d}@{domain}.example"
    fb_auth = firebase.auth()
    try:
        return fb_auth.get_user_by_email(email, app=firebase.app()).uid
    except fb_auth.UserNotFoundError:
        return users.create_user(client, email, MEMBER_PASSWORD, ROLE_PLAYER, name, birth_date=born, sex=sex)


def _principal(client: Client, origin: str, uid: str, admin: str) -> Principal:
    if origin == "partner":
        return Principal(kind="client", client_id=client.client_id, key_id="demo")
    if origin == "clinician":
        return Principal(kind="user", client_id=client.client_id, uid=admin, role=ROLE_ADMIN)
    return Principal(kind="user", client_id=client.client_id, uid=uid, role=ROLE_PLAYER)


def seed(client: Client) -> None:
    player, admin = (users.first_member(client.client_id, role) for role in (ROLE_PLAYER, ROLE_ADMIN))
    if player is None or admin is None or repo.page(client.client_id, Filters(), 1, None)[0]:
        return
    members = {0: player, **{number: _member(client, number, *rest) for number, *rest in MEMBERS}}
    for number, days_ago, origin, steps in RESULTS:
        uid = members[number]
        principal = _principal(client, origin, uid, admin)
        start = dt.timedelta(days=-days_ago, hours=-2)
        with clock.shifted(start):
            result_id = service.create(principal, client, CreateFallRiskBody(userId=uid))["fallRiskResultId"]
        for minute, (step, body) in enumerate(steps.items(), start=1):
            with clock.shifted(start + dt.timedelta(minutes=2 * minute)):
                service.record_step(principal, client, result_id, step, STEP_BODIES[step].model_validate(body))
