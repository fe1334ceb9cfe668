"""`make bench`: performance measurements printed as ratios and counts, run inside the emulators.

Each part (bench/figures.py: PARTS, in order) prints its tables and writes them into its own section of
docs/figures.md, stamped with the commit and the day measured; `--only PART ...` runs only those parts.
1. Cold start (bench/cold_start.py): `import main` against a bare `import firebase_admin, firebase_functions`,
   median of fresh interpreters, and proof that serving one area imports no other area.
2. Firestore reads and writes per api-keys and client-token request (bench/api_keys.py).
Then each area's own benchmarks, the Vital Scan engine's accuracy on synthetic traces, and the resource probe's
table: every operation's worst request, its body bytes, peak memory growth and wall time (`--resource-probe`
runs only that).
Then the concurrency per instance (bench/concurrency.py): each function in one process at 1, 8 and 32 requests at
once, as ratios to 1, then the same with a network delay to Firestore and Auth (`--concurrency` runs only that).
Then the capacity and cost model (bench/capacity.py): cost per million requests per area at list prices, the
ceilings per tenant, 1x/10x/100x; it rewrites the generated part of docs/capacity.md (`--capacity` runs only it).
Last, the load run (bench/load/): mixed traffic through Hosting at 1, 4, 16 and 64 callers beside GET /api/health,
then exact checks that nothing was lost or counted twice (a mismatch fails the run); `--load` runs only it,
`--load-levels 1,4,16` at fewer callers.
"""

import argparse
import os
import pathlib
import sys
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "functions"), str(ROOT)]
os.environ.setdefault("CLIENT_JWT_SECRET", uuid.uuid4().hex * 2)

from bench import figures  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="PART", choices=list(figures.BY_KEY),
                        help=f"run only these parts, in the usual order: {', '.join(figures.BY_KEY)}")
    parser.add_argument("--resource-probe", nargs="*", metavar="OPERATION_ID",
                        help="run only the resource probe (of the operations matching these globs; none: all)")
    parser.add_argument("--vital-scan-accuracy", action="store_true",
                        help="run only the Vital Scan engine's accuracy on synthetic traces (no emulators needed)")
    parser.add_argument("--capacity", action="store_true",
                        help="run only the capacity and cost model (writes docs/capacity.md); with --load, both")
    parser.add_argument("--load", action="store_true", help="run only the load run; with --capacity, both")
    parser.add_argument("--concurrency", nargs="*", metavar="FUNCTION",
                        help="run only the concurrency-per-instance bench (of these functions of main.py; none: all)")
    parser.add_argument("--concurrency-latency", type=float, default=None, metavar="MS",
                        help="the concurrency bench's one-way delay to Firestore and Auth (default 5; 0: no such run); "
                             "without --concurrency, only the run with this delay")
    parser.add_argument("--load-levels", default=None, metavar="N,N,...",
                        help="the load run's caller counts (default 1,4,16,64: about 18 GB of workers at 64)")
    args = parser.parse_args(argv)
    load_levels = tuple(int(n) for n in args.load_levels.split(",")) if args.load_levels else None
    keys, kwargs = _chosen(args)
    if load_levels:
        kwargs["load"] = {"levels": load_levels}
    # A subset of functions, operations or levels, or the latency table alone, prints its rows; but a partial table
    # is not the page's figures, so it is not written there.
    partial = {key for key, narrowed in (("concurrency", args.concurrency or kwargs["concurrency"]["plain"] is False),
                                         ("resource-probe", args.resource_probe), ("load", load_levels)) if narrowed}
    for part in figures.PARTS:
        if part.key in keys:
            figures.measure(part, record=part.key not in partial, **kwargs.get(part.key, {}))
    sys.stdout.flush()


def _chosen(args) -> tuple[set[str], dict[str, dict]]:
    """The parts to run and their arguments, from --only and the older one-part options."""
    concurrency_only = args.concurrency is not None or args.concurrency_latency is not None
    kwargs = {"concurrency": {"names": args.concurrency, "latency_ms": args.concurrency_latency,
                              "plain": args.concurrency is not None or not concurrency_only}}
    if args.resource_probe:
        kwargs["resource-probe"] = {"patterns": args.resource_probe}
    if args.only:
        return set(args.only), kwargs
    if concurrency_only:
        return {"concurrency"}, kwargs
    if args.resource_probe is not None:
        return {"resource-probe"}, kwargs
    if args.vital_scan_accuracy:
        return {"vital-scan-accuracy"}, kwargs
    if args.capacity or args.load:
        return {key for key, on in (("capacity", args.capacity), ("load", args.load)) if on}, kwargs
    return set(figures.BY_KEY), kwargs


if __name__ == "__main__":
    main()
