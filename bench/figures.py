"""docs/figures.md: the tables each part of `make bench` prints, written into that part's own section of the page,
stamped with the commit and the day measured (bench/generated.py). A part run on its own rewrites only its section;
a part run on a subset (some functions, operations or load levels) prints but writes nothing, so the page never mixes a
partial table into a full one. Other pages link to a part's section by its heading's anchor (Part.anchor).
"""

import contextlib
import dataclasses
import importlib
import io
import pathlib
import re
import sys

from bench import generated

PAGE = generated.ROOT / "docs" / "figures.md"
TITLE = "Performance figures"


@dataclasses.dataclass(frozen=True)
class Part:
    key: str  # `make bench BENCH_ARGS='--only KEY'`, and the name in the section's markers
    heading: str  # the section's heading: its anchor is what other pages link to
    target: str  # "module:function" that prints the part's tables
    page: str | None = None  # a part that writes its own page (docs/NAME): the section links to it

    @property
    def anchor(self) -> str:
        """The heading's anchor as MkDocs (Python-Markdown's toc) and GitHub make it."""
        return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", self.heading).strip().lower())

    @property
    def markers(self) -> tuple[str, str]:
        return generated.markers(f"figures:{self.key}")

    @property
    def source(self) -> str:
        module = self.target.split(":")[0]
        return module.replace(".", "/") + ("/" if module == "bench.load" else ".py")


# In the order `make bench` runs them: the cheap ones first, the load run last.
PARTS = (
    Part("cold-start", "Cold start", "bench.cold_start:main"),
    Part("api-keys", "API keys and client token: Firestore operations per request", "bench.api_keys:main"),
    Part("lessons", "Lessons", "bench.lessons:main"),
    Part("identity", "Identity", "bench.identity:main"),
    Part("auth-cost", "Credential check: Auth calls per request", "bench.auth_cost:main"),
    Part("vital-scan", "Vital Scan", "bench.vital_scan:main"),
    Part("vital-scan-accuracy", "Vital Scan engine accuracy", "bench.vital_scan_accuracy:main"),
    Part("ai-move", "AI Move", "bench.ai_move:main"),
    Part("fall-risk", "Fall risk", "bench.fall_risk:main"),
    Part("content", "Content", "bench.content:main"),
    Part("media-generation", "Media generation", "bench.media_generation:main"),
    Part("assistant", "AI assistant", "bench.assistant:main"),
    Part("analytics", "Analytics", "bench.analytics:main"),
    Part("resource-probe", "Resource probe", "bench.resource_probe:main"),
    Part("concurrency", "Concurrency per instance", "bench.concurrency:main"),
    Part("capacity", "Capacity and cost", "bench.capacity:main", page="capacity.md"),
    Part("load", "Load run", "bench.load:main"),
)
BY_KEY = {part.key: part for part in PARTS}


class _Tee(io.TextIOBase):
    """Prints as it goes and keeps a copy (a part's own quiet blocks swap sys.stdout away and back)."""

    def __init__(self, out):
        self.out, self.copy = out, io.StringIO()

    def write(self, text: str) -> int:
        self.out.write(text)
        self.copy.write(text)
        return len(text)

    def flush(self) -> None:
        self.out.flush()

    def reconfigure(self, **kwargs) -> None:
        # firebase_functions.logger calls sys.stdout.reconfigure(encoding="utf-8") when main.py is first imported.
        if hasattr(self.out, "reconfigure"):
            self.out.reconfigure(**kwargs)


def _figures_only(output: str) -> str:
    """What a part printed, without the platform's structured log lines (areas served in-process log to stdout)."""
    return "\n".join(line for line in output.splitlines() if not line.startswith('{"severity": '))


def section(part: Part, output: str, commit: str, day: str) -> str:
    """The text between the part's markers."""
    output = _figures_only(output)
    command = f"make bench BENCH_ARGS='--only {part.key}'"
    stamp = f"_Measured at commit `{commit}` on {day} by `{command}` ({part.source}). Do not edit between the markers._"
    if part.page:
        return f"{stamp}\n\nIts tables are written to [{part.page}]({part.page}) by the same run."
    return f"{stamp}\n\n```text\n{output.strip(chr(10))}\n```"


def write(part: Part, text: str, path: pathlib.Path = PAGE) -> None:
    """Put `text` between the part's markers; a part missing from the page gets its heading and markers first."""
    begin, end = part.markers
    current = path.read_text() if path.exists() else f"# {TITLE}\n"
    if begin not in current:
        current = current.rstrip("\n") + f"\n\n## {part.heading}\n\n{begin}\n{end}\n"
    path.write_text(generated.replace_between(current, begin, end, text))


def measure(part: Part, *, record: bool = True, **kwargs) -> None:
    """Run the part, printing as it goes; with `record`, write what it printed into its section of the page."""
    module, function = part.target.split(":")
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        getattr(importlib.import_module(module), function)(**kwargs)
    sys.stdout.flush()
    if record:
        write(part, section(part, tee.copy.getvalue(), generated.commit(), generated.today()))
        print(f"(written to docs/figures.md#{part.anchor})")
    else:
        print("(a partial run: docs/figures.md is left as it was)")
