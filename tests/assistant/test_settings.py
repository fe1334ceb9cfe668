"""The wellness chat's tenant settings (core.settings): the rate, the monthly token budget and the model allow-list;
and the list parser's message for the other list setting, which the allow-list's wider alphabet must not change."""

import pytest

from wellness_api.core import settings
from wellness_api.core.settings import SettingError, parse_assignment


def test_the_defaults():
    assert settings.get({}, "wellnessChat.requestsPerMinute") == 20
    assert settings.get({}, "wellnessChat.monthlyTokenBudget") == 2_000_000
    assert settings.get({}, "wellnessChat.models") == []
    assert settings.get({}, "modules.wellnessChat") is False


@pytest.mark.parametrize(("text", "value"), [("1", 1), (" 60 ", 60), ("1000", 1000)])
def test_requests_per_minute_is_an_integer_of_at_least_one(text, value):
    assert parse_assignment(f"wellnessChat.requestsPerMinute={text}") == ("wellnessChat.requestsPerMinute", value)


@pytest.mark.parametrize(("text", "message"), [
    ("0", "wellnessChat.requestsPerMinute must be at least 1"),
    ("-5", "wellnessChat.requestsPerMinute must be at least 1"),
    ("ten", "wellnessChat.requestsPerMinute must be an integer"),
    ("1.5", "wellnessChat.requestsPerMinute must be an integer"),
    ("", "wellnessChat.requestsPerMinute must be an integer"),
])
def test_requests_per_minute_refuses_zero_and_non_integers(text, message):
    with pytest.raises(SettingError) as caught:
        parse_assignment(f"wellnessChat.requestsPerMinute={text}")
    assert str(caught.value) == message


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("2000000", 2_000_000), ("5", 5)])
def test_the_monthly_token_budget_may_be_zero(text, value):
    assert parse_assignment(f"wellnessChat.monthlyTokenBudget={text}") == ("wellnessChat.monthlyTokenBudget", value)


@pytest.mark.parametrize(("text", "message"), [
    ("-1", "wellnessChat.monthlyTokenBudget must be at least 0"),
    ("lots", "wellnessChat.monthlyTokenBudget must be an integer"),
])
def test_the_monthly_token_budget_refuses_negatives_and_non_integers(text, message):
    with pytest.raises(SettingError) as caught:
        parse_assignment(f"wellnessChat.monthlyTokenBudget={text}")
    assert str(caught.value) == message


def test_models_accepts_the_names_providers_use():
    key, value = parse_assignment("wellnessChat.models=llama3.1:8b,Qwen/Qwen2.5-7B-Instruct")
    assert key == "wellnessChat.models"
    assert value == ["llama3.1:8b", "Qwen/Qwen2.5-7B-Instruct"]


def test_models_are_trimmed_kept_in_order_without_duplicates_or_empty_items():
    assert parse_assignment("wellnessChat.models= gpt-4o-mini , local,,gpt-4o-mini, meta/llama_3 ")[1] == [
        "gpt-4o-mini", "local", "meta/llama_3"]
    assert parse_assignment("wellnessChat.models=")[1] == []


@pytest.mark.parametrize("name", ["my model", "gpt 4o"])
def test_models_refuses_names_with_spaces(name):
    with pytest.raises(SettingError) as caught:
        parse_assignment(f"wellnessChat.models=local,{name}")
    assert str(caught.value) == (f"wellnessChat.models: {name!r} is not a name "
                                 "(letters, digits, '.', '_', '-', ':', '/'; at most 40)")


@pytest.mark.parametrize("name", ["model!", "a@b", "x" * 41])
def test_models_refuses_other_characters_and_long_names(name):
    with pytest.raises(SettingError, match="is not a name"):
        parse_assignment(f"wellnessChat.models={name}")


def test_models_holds_at_most_twenty_names():
    assert len(parse_assignment("wellnessChat.models=" + ",".join(f"m{i}" for i in range(20)))[1]) == 20
    with pytest.raises(SettingError) as caught:
        parse_assignment("wellnessChat.models=" + ",".join(f"m{i}" for i in range(21)))
    assert str(caught.value) == "wellnessChat.models holds at most 20 names"


def test_membership_tiers_keep_their_message_and_alphabet():
    with pytest.raises(SettingError) as caught:
        parse_assignment("lessons.membershipTiers=Gold,x!")
    assert str(caught.value) == ("lessons.membershipTiers: 'x!' is not a name "
                                 "(letters, digits, spaces, '.', '_', '-'; at most 40)")
    # Spaces are still allowed there; the model names' ':' and '/' are not.
    assert parse_assignment("lessons.membershipTiers=Gold Plus,Basic")[1] == ["Gold Plus", "Basic"]
    for name in ("a:b", "a/b"):
        with pytest.raises(SettingError, match="is not a name"):
            parse_assignment(f"lessons.membershipTiers={name}")


@pytest.mark.parametrize(("key", "default", "top"), [
    ("wellnessChat.maxCompletionTokens", 4096, 32_768), ("wellnessChat.maxN", 4, 16),
    ("wellnessChat.maxConcurrentPerUser", 2, 20), ("wellnessChat.maxConcurrentPerClient", 20, 200),
])
def test_the_caps_on_shared_work_have_a_default_a_floor_and_a_ceiling(key, default, top):
    assert settings.get({}, key) == default
    assert parse_assignment(f"{key}={top}") == (key, top)
    for text, message in ((str(top + 1), f"{key} must be at most {top}"), ("0", f"{key} must be at least 1")):
        with pytest.raises(SettingError) as caught:
            parse_assignment(f"{key}={text}")
        assert str(caught.value) == message
