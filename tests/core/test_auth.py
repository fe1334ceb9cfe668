"""core.auth.verify_id_token refuses what production's verifier refuses, also against the Auth emulator."""

import datetime as dt
import time

from tests.conftest import with_claims
from wellness_api.core import auth, clock


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
