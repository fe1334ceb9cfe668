"""The bounded fuzz run of `make test`: schemathesis against /api/openapi.json through Hosting, as the demo world.

`make fuzz` runs the same thing longer. Every failure it ever found is kept as a regression test beside
the code it broke (see the README, "Fuzzing").
"""

import pytest

from tests.fuzz import runner

pytestmark = [pytest.mark.fuzz, pytest.mark.e2e]

BUDGET_SECONDS = 30  # `make fuzz` is the deep run; this one keeps `make test` within its 15 minutes


def test_fuzzing_finds_no_server_error_and_no_contract_break():
    assert runner.main(["--max-time", str(BUDGET_SECONDS)]) == 0, "schemathesis found failures: see its report above"
