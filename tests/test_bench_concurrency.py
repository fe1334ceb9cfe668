"""The concurrency bench (bench/concurrency.py) measures an instance the way production has one: the function served
by a process of its own, its callers elsewhere, and the CPU per request that process's alone (issue 26 item 2)."""

import os

import requests

from bench import concurrency, concurrency_latency


def test_the_function_is_served_by_a_process_of_its_own_whose_clock_the_bench_reads():
    with concurrency.Instance("platform") as server:
        assert server.process.pid != os.getpid()
        before = server.reset_peak()
        caller_cpu = os.times()
        for _ in range(20):
            assert requests.get(server.url + "/api/health", timeout=30).status_code == 200
        after = server.stat()
        assert after["cpu"] > before["cpu"]  # the serving process did the work
        assert after["hwm"] >= after["rss"] > 0
        assert os.times().user >= caller_cpu.user  # and this process only called
    assert server.process.returncode is not None  # the end of its stdin ended it


def test_the_instance_of_the_latency_run_reaches_the_emulators_through_the_proxies_without_the_recorders():
    with concurrency_latency.delayed(1) as env:
        assert env[concurrency_latency.RECORDERS] is None
        proxied = {var: env[var] for var in concurrency_latency.PROXIED}
        assert all(host.startswith("127.0.0.1:") and host != os.environ[var] for var, host in proxied.items())
        with concurrency.Instance("platform", env) as server:
            assert requests.get(server.url + "/api/health", timeout=30).status_code == 200
