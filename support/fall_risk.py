"""A fall-risk assessment's steps as a participant sends them, for the tests and the bench."""

STEP_PATHS = {"quiz": "quiz", "sitToStand": "sit-to-stand", "tandemStance": "tandem-stance",
              "singleLegStance": "single-leg-stance", "tandemWalk": "tandem-walk"}

NO_ANSWERS = {key: False for key in (
    "fallenPastYear", "advisedCaneOrWalker", "unsteadyWhenWalking", "steadiesOnFurniture", "worriedAboutFalling",
    "pushesUpFromChair", "troubleSteppingOntoCurb", "rushesToToilet", "lostFeelingInFeet", "medicineLightheaded",
    "medicineSleepOrMood", "oftenSadOrDepressed")}


def quiz(yes: tuple[str, ...] = (), **extra) -> dict:
    return {"answers": {**NO_ANSWERS, **{key: True for key in yes}}, **extra}


# A healthy participant's steps: every test passed, nothing answered yes.
HEALTHY = {
    "quiz": quiz(),
    "sitToStand": {"standCount": 15},
    "tandemStance": {"sideBySideSeconds": 10, "semiTandemSeconds": 10, "tandemSeconds": 10},
    "singleLegStance": {"singleLegSeconds": 10},
    "tandemWalk": {"stepsCompleted": 10},
}
