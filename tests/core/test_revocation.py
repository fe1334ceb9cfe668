"""core.revocation: one Auth lookup per user per TTL, revocations and disables honoured within the TTL.

Real ID tokens of the Auth emulator and real lookups; the lookups are counted, and time is core.clock's, moved
by the tests (a cache entry's age is never measured in wall-clock time here).
"""

import datetime as dt
import threading
import time

import pytest

from tests.conftest import with_claims
from wellness_api.core import auth, clock, firebase, revocation, users


@pytest.fixture
def lookups(monkeypatch):
    """A fresh per-process cache whose Auth lookups are recorded (uids, in order)."""
    calls = []

    def counted(uid):
        calls.append(uid)
        return revocation.auth_lookup(uid)

    monkeypatch.setattr(revocation, "cache", revocation.RevocationCache(lookup=counted))
    return calls


def revoke_after(token: str) -> int:
    """Revoke the token's user as of the second after the token was issued, as revoke_refresh_tokens would a
    second later (revocation counts whole seconds); that second, the iat of a token issued after it."""
    claims = auth.verify_id_token(token)
    firebase.auth().update_user(claims["uid"], valid_since=claims["iat"] + 1, app=firebase.app())
    return claims["iat"] + 1


def test_requests_of_one_user_within_the_ttl_make_one_lookup(tenant, lookups):
    for _ in range(20):
        assert auth.verify_id_token(tenant.player.token)["uid"] == tenant.player.uid
    assert lookups == [tenant.player.uid]
    clock.advance(revocation.TTL)
    assert auth.verify_id_token(tenant.player.token) is not None
    assert lookups == [tenant.player.uid] * 2


def test_a_revocation_made_elsewhere_takes_effect_within_the_ttl(tenant, lookups):
    member = tenant.add_member("player")
    assert auth.verify_id_token(member.token) is not None
    since = revoke_after(member.token)  # as the console or another process would
    # The stated delay: the instance keeps what it saw for less than the TTL ...
    clock.advance(revocation.TTL - dt.timedelta(seconds=1))
    assert auth.verify_id_token(member.token) is not None
    # ... and not one second longer.
    clock.advance(dt.timedelta(seconds=1))
    assert auth.verify_id_token(member.token) is None
    assert lookups == [member.uid] * 2
    # A token issued after the revocation (a new sign-in) is the member's again.
    assert auth.verify_id_token(with_claims(member.token, iat=since)) is not None


def test_an_account_disabled_elsewhere_is_refused_within_the_ttl(tenant, lookups):
    member = tenant.add_member("player")
    assert auth.verify_id_token(member.token) is not None
    firebase.auth().update_user(member.uid, disabled=True, app=firebase.app())
    clock.advance(revocation.TTL - dt.timedelta(seconds=1))
    assert auth.verify_id_token(member.token) is not None
    clock.advance(dt.timedelta(seconds=1))
    assert auth.verify_id_token(member.token) is None
    # Refusals are cached too: a disabled user's requests do not each cost a lookup.
    assert auth.verify_id_token(member.token) is None
    assert lookups == [member.uid] * 2


def test_a_deleted_account_is_refused_within_the_ttl(tenant, lookups):
    member = tenant.add_member("player")
    assert auth.verify_id_token(member.token) is not None
    firebase.auth().delete_user(member.uid, app=firebase.app())
    clock.advance(revocation.TTL)
    assert auth.verify_id_token(member.token) is None


def test_a_disable_made_by_the_platform_takes_effect_at_once_in_its_process(tenant, lookups):
    member = tenant.add_member("player")
    assert auth.verify_id_token(member.token) is not None
    users.disable_user(tenant.client, member.uid)  # platformctl user disable, in this process
    assert auth.verify_id_token(member.token) is None
    assert lookups == [member.uid] * 2


def test_the_cache_never_holds_more_than_its_bound(tenant):
    members = [tenant.player, tenant.admin, *(tenant.add_member("player") for _ in range(3))]
    calls = []
    cache = revocation.RevocationCache(lookup=lambda uid: calls.append(uid) or revocation.auth_lookup(uid),
                                       max_entries=3)
    for member in members:
        assert cache.standing(member.uid).admits(time.time())
        assert len(cache) <= 3
    assert len(cache) == 3
    # The least recently used went first: the first member is looked up again, the last is still held.
    cache.standing(members[-1].uid)
    cache.standing(members[0].uid)
    assert calls == [m.uid for m in members] + [members[0].uid]


def test_concurrent_first_requests_of_one_user_share_one_lookup(tenant):
    release, calls = threading.Event(), []

    def held(uid):
        calls.append(uid)
        release.wait(timeout=10)  # the first lookup waits until every request has arrived
        return revocation.auth_lookup(uid)

    cache = revocation.RevocationCache(lookup=held)
    start = threading.Barrier(17)
    answers = []

    def request():
        start.wait()
        answers.append(cache.standing(tenant.player.uid))

    threads = [threading.Thread(target=request) for _ in range(16)]
    for thread in threads:
        thread.start()
    start.wait()
    time.sleep(0.3)  # lets the requests reach the cache; the assertion below holds however they are scheduled
    release.set()
    for thread in threads:
        thread.join(timeout=30)
    assert calls == [tenant.player.uid]
    assert len(answers) == 16 and all(answer.admits(time.time()) for answer in answers)


def test_a_forget_during_a_lookup_keeps_its_answer_out_of_the_cache(tenant):
    looking, release, calls = threading.Event(), threading.Event(), []

    def held(uid):
        calls.append(uid)
        looking.set()
        release.wait(timeout=10)
        return revocation.auth_lookup(uid)

    cache = revocation.RevocationCache(lookup=held)
    thread = threading.Thread(target=cache.standing, args=(tenant.player.uid,))
    thread.start()
    assert looking.wait(timeout=10)
    cache.forget(tenant.player.uid)  # the platform disabled the user while the lookup was under way
    release.set()
    thread.join(timeout=30)
    assert len(cache) == 0
    cache.standing(tenant.player.uid)
    assert calls == [tenant.player.uid] * 2


def test_a_failed_lookup_is_not_cached(tenant):
    calls = []

    def flaky(uid):
        calls.append(uid)
        if len(calls) == 1:
            raise ConnectionError("Auth unavailable")
        return revocation.auth_lookup(uid)

    cache = revocation.RevocationCache(lookup=flaky)
    with pytest.raises(ConnectionError):
        cache.standing(tenant.player.uid)
    assert cache.standing(tenant.player.uid).admits(time.time())
    assert len(calls) == 2


def test_a_clock_moved_back_looks_again(tenant):
    calls = []
    cache = revocation.RevocationCache(lookup=lambda uid: calls.append(uid) or revocation.auth_lookup(uid))
    cache.standing(tenant.player.uid)
    with clock.shifted(-dt.timedelta(hours=2)):
        cache.standing(tenant.player.uid)
    assert len(calls) == 2
