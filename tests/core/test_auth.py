"""core.auth.verify_id_token refuses what production's verifier refuses, also against the Auth emulator."""

import datetime as dt
import time

from tests.conftest import with_claims
from wellness_api.core import auth, clock, firebase, revocation


def test_a_live_token_is_verified(tenant):
    claims = auth.verify_id_token(tenant.player.token)
    assert claims["uid"] == tenant.player.uid and claims["clientId"] == tenant.client_id


def test_a_token_past_its_expiry_is_refused(tenant):
    # The emulator's SDK path checks no lifetime: this token would pass without the platform's own check.
    assert auth.verify_id_token(with_claims(tenant.player.token, exp=int(time.time()) - 1)) is None
    assert auth.verify_id_token(with_claims(tenant.player.token, exp="soon")) is None


def test_the_lifetime_is_real_time_not_the_platform_clock(tenant):
    clock.advance(dt.timedelta(days=365))
    assert auth.verify_id_token(tenant.player.token) is not None


def test_a_token_issued_before_a_revocation_is_refused(tenant):
    member = tenant.add_member("player")
    token = member.token
    issued_at = auth.verify_id_token(token)["iat"]
    # Revoked the second after the token was issued, as revoke_refresh_tokens a second later would.
    firebase.auth().update_user(member.uid, valid_since=issued_at + 1, app=firebase.app())
    revocation.forget(member.uid)  # this test revoked behind the platform's back, in the platform's process
    assert auth.verify_id_token(token) is None
    assert auth.verify_id_token(with_claims(token, iat=issued_at + 1)) is not None


def test_a_disabled_or_deleted_users_token_is_refused(tenant):
    disabled, deleted = tenant.add_member("player"), tenant.add_member("player")
    tokens = disabled.token, deleted.token  # signed in before
    firebase.auth().update_user(disabled.uid, disabled=True, app=firebase.app())
    firebase.auth().delete_user(deleted.uid, app=firebase.app())
    assert auth.verify_id_token(tokens[0]) is None
    assert auth.verify_id_token(tokens[1]) is None


def test_a_token_without_a_numeric_iat_is_refused(tenant):
    assert auth.verify_id_token(with_claims(tenant.player.token, iat="yesterday")) is None
