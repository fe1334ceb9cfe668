"""The resource probe's table (issue 25): every operation with the worst request its validation admits, through
Hosting; the body sent, the serving worker's peak memory growth and the wall time. The same probe runs in
`make test` (tests/e2e/test_resource_probe.py), which fails on a 5xx or a growth over 64 MiB; here the rows are
printed, with those marked."""

import sys

from support import resource_probe


def main(patterns: list[str] | None = None) -> None:
    print("\n== resource probe: the worst request of every operation, through Hosting")
    sys.stdout.flush()
    results = resource_probe.run(resource_probe.demo_env(), resource_probe.fnmatch_any(patterns or []))
    print(resource_probe.table(results))
    over = [r for r in results if r.failures]
    print(f"(growth: the largest VmHWM - VmRSS before over the function's workers; limit "
          f"{resource_probe.GROWTH_LIMIT_MIB} MiB; a status list is the worst request, then the example-shaped one)")
    for r in over:
        print(f"OVER: {r.operation_id}: {'; '.join(r.failures)}")
    print(f"operations over the limits: {len(over)} of {len(results)}")
