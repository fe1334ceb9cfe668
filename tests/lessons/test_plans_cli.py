"""`platformctl plan create` (CONTRACT section 3) as an operator runs it."""

from tests.lessons.conftest import create_lesson
from tests.ops.test_cli import platformctl, run_json
from wellness_api.core import firebase


def test_plan_create_prints_plan_id_and_stores_the_plan(http, tenant):
    a = create_lesson(http, tenant, isLive=True)
    b = create_lesson(http, tenant, isLive=True)
    out = run_json("plan", "create", "--client-id", tenant.client_id, "--title-en", "Week one",
                   "--lesson-id", a, "--lesson-id", b, "--live")
    assert set(out) == {"planId"}
    plan = firebase.db().document(f"clients/{tenant.client_id}/lessonPlans/{out['planId']}").get().to_dict()
    assert plan["title"] == {"en": "Week one"} and plan["lessonIds"] == [a, b] and plan["isLive"] is True
    hidden = run_json("plan", "create", "--client-id", tenant.client_id, "--title-en", "Later", "--lesson-id", a)
    assert firebase.db().document(f"clients/{tenant.client_id}/lessonPlans/{hidden['planId']}").get().get("isLive") is False


def test_plan_create_failures_are_one_line_and_change_nothing(http, tenant):
    hidden = create_lesson(http, tenant)
    for args, message in [
        (["--client-id", "no-such-client", "--title-en", "T", "--lesson-id", hidden], "Client not found."),
        (["--client-id", tenant.client_id, "--title-en", "T", "--lesson-id", "ghost"], "Unknown lesson ids: ghost."),
        (["--client-id", tenant.client_id, "--title-en", "T", "--lesson-id", hidden, "--live"], "only live lessons"),
        (["--client-id", tenant.client_id, "--title-en", " ", "--lesson-id", hidden], "English title"),
    ]:
        result = platformctl("plan", "create", *args, check=False)
        assert result.returncode == 1, args
        assert result.stdout == ""
        assert result.stderr.startswith("platformctl: ") and message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert list(firebase.db().collection(f"clients/{tenant.client_id}/lessonPlans").stream()) == []
    missing = platformctl("plan", "create", "--client-id", tenant.client_id, "--title-en", "T", check=False)
    assert missing.returncode == 2 and "--lesson-id" in missing.stderr
