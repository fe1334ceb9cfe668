"""Every shell example of the README and of docs/ runs as written against the stack, with its promised statuses.

The README tells a user to start `make serve`, run `eval "$(bin/demo-env)"` and then paste its examples.
This test does the same against the test stack: it runs `eval "$(bin/demo-env)"` in bash once (that
seeds the demo world, which the session's emulator reset removed), then runs each ```bash block of
README.md and of every page of PAGES, in that order, each in a fresh `bash` with `set -euo pipefail` and
the demo variables. It also keeps the README short, the page list complete and every relative link whole.

Conventions the README follows (checked here):
- Every curl call states the HTTP status it gets in a comment `# -> NNN` at the end of the line where
  the command ends (the last line of its backslash continuation), or alone on the line after it.
  One curl per line. A bash function `curl` wraps `command curl` with `--dump-header` to record each
  real status, which is compared with the promised ones in order; the README text stays plain curl.
- A block that cannot run in a test (`make serve` itself, deploy commands) is preceded by an HTML
  comment `<!-- not run: reason -->`. Every other ```bash block runs.
- Examples use $BASE_URL and the other demo variables, never a fixed port, and python3 rather than jq.
"""

import dataclasses
import json
import os
import pathlib
import re
import subprocess

import pytest
from markdown.extensions.toc import slugify

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DEMO_ENV = ROOT / "bin" / "demo-env"

DEMO_NAMES = (
    "BASE_URL", "CLIENT_ID", "CLIENT_HOST", "OPERATOR_CLIENT_ID", "API_KEY", "KEY_ID", "ADMIN_ID_TOKEN",
    "PLAYER_ID_TOKEN", "PLATFORM_ADMIN_ID_TOKEN", "CLIENT_TOKEN", "LESSON_ID", "VITAL_SCAN_SESSION_ID", "SCAN_TOKEN",
    "EXERCISE_ID", "AI_MOVE_SESSION_ID", "FALL_RISK_RESULT_ID", "CONTENT_KEY", "CONTENT_KEYS", "CONTENT_ID", "CONTENT_VERSION_ID",
    "CATEGORY_KEY", "MEDIA_JOB_ID", "MEDIA_FAILED_JOB_ID", "MEDIA_VIDEO_JOB_ID", "MEDIA_FAILED_VIDEO_JOB_ID",
    "CONVERSATION_ID",
    "PLAY_ID",
    "PLAYER_UID", "PRIVACY_REQUEST_ID", "PRIVACY_DOWNLOAD_TOKEN",
)
SKIP_MARK = re.compile(r"^<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->$")
EXPECT = re.compile(r"#\s*->\s*(?P<status>\d{3})\b")
CURL = re.compile(r"(?:^|[\s;&|(`])curl(?=\s)")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>\S*)\s*$")
BLOCK_TIMEOUT_S = 180

# Records the final HTTP status of every curl call (000 when no response arrived) in $README_CURL_LOG.
CURL_WRAPPER = r"""
curl() {
  local headers rc=0
  headers="$(mktemp)"
  command curl --dump-header "$headers" "$@" || rc=$?
  awk 'toupper($1) ~ /^HTTP\// { status = $2 } END { print (status == "" ? "000" : status) }' "$headers" \
    >>"$README_CURL_LOG"
  rm -f "$headers"
  return "$rc"
}
export -f curl
"""


@dataclasses.dataclass
class Block:
    page: str  # README.md or docs/<page>.md
    line: int  # 1-based line of the opening fence
    code: str
    skip: str | None
    expected: list[int]
    problems: list[str]

    @property
    def id(self) -> str:
        first = next((ln.strip() for ln in self.code.splitlines() if ln.strip() and not ln.strip().startswith("#")),
                     "")
        return f"{self.page}:L{self.line}:{first[:40]}"


def _is_code(line: str) -> bool:
    return bool(line.strip()) and not line.strip().startswith("#")


def expected_statuses(code: str, where: str) -> tuple[list[int], list[str]]:
    """The `# -> NNN` of every curl call of a block, in order, and what breaks the conventions."""
    lines = code.splitlines()
    statuses, problems = [], []
    for i, line in enumerate(lines):
        if not _is_code(line):
            continue
        calls = len(CURL.findall(line.split(" # ", 1)[0]))
        if calls == 0:
            continue
        if calls > 1:
            problems.append(f"{where}, line {i + 1}: one curl per line, please: {line.strip()}")
        end = i
        while lines[end].rstrip().endswith("\\") and end + 1 < len(lines):
            end += 1
        found = EXPECT.search(lines[end])
        if found is None and end + 1 < len(lines) and lines[end + 1].strip().startswith("#"):
            found = EXPECT.search(lines[end + 1])
        if found is None:
            problems.append(f"{where}, line {i + 1}: the curl call has no `# -> NNN` status comment")
            continue
        statuses.append(int(found["status"]))
    return statuses, problems


def readme_blocks(text: str, page: str = "README.md") -> list[Block]:
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None or not opening["lang"]:
            i += 1
            continue
        indent, start = opening["indent"], i
        body = []
        i += 1
        while i < len(lines) and not (FENCE.match(lines[i]) and not FENCE.match(lines[i])["lang"]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        if opening["lang"] != "bash":
            continue
        before = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        skip = SKIP_MARK.match(before)
        code = "\n".join(body) + "\n"
        blocks.append(Block(page, start + 1, code, skip["reason"] if skip else None,
                            *expected_statuses(code, f"{page} block at line {start + 1}")))
    return blocks


# The pages in reading order: examples later in the order may rely on what earlier ones did to the demo world.
# README.md's map of the docs lists them in this order.
PAGES = ["README.md"] + [f"docs/{name}.md" for name in (
    "api-reference", "dev-stack", "emulators", "limits", "architecture", "operations", "api-keys", "identity", "lessons",
    "vital-scan", "ai-move", "content", "fall-risk", "media-generation", "assistant", "analytics", "privacy", "performance",
    "security", "deploy", "capacity")]
README_MAX_LINES = 400
BLOCKS = [block for page in PAGES if (ROOT / page).is_file()
          for block in readme_blocks((ROOT / page).read_text(encoding="utf-8"), page)]


def test_readme_examples_follow_the_conventions():
    assert BLOCKS, "README.md has no ```bash blocks"
    for block in BLOCKS:
        where = f"{block.page} block at line {block.line}"
        assert not block.problems, "\n".join(block.problems)
        assert not re.search(r"(^|[\s|(])jq(\s|$)", block.code, re.M), f"{where}: use python3, jq is not installed"
        assert not re.search(r"(^|\s)(-D|--dump-header)(\s|$)", block.code, re.M), f"{where}: -D is the test's"
        code_lines = "\n".join(line for line in block.code.splitlines() if _is_code(line))
        if block.skip is None:
            assert not re.search(r"https?://(127\.0\.0\.1|localhost):5000", code_lines), (
                f"{where}: use $BASE_URL, which follows the stack's port offset")
    runnable = [b for b in BLOCKS if b.skip is None]
    assert sum(len(b.expected) for b in runnable) >= 40, "the README's curl examples are not all being run"


def test_readme_is_a_short_introduction():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; at most {README_MAX_LINES}: move the detail to a page of docs/")


def test_every_page_with_runnable_examples_is_run():
    pages_with_bash = sorted(
        f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")
        if readme_blocks(path.read_text(encoding="utf-8"), f"docs/{path.name}"))
    missing = [page for page in pages_with_bash if page not in PAGES]
    assert not missing, f"add these pages to PAGES in tests/test_readme.py (reading order): {missing}"
    gone = [page for page in PAGES if not (ROOT / page).is_file()]
    assert not gone, f"PAGES names pages that do not exist: {gone}"


def settings_table() -> str:
    """The settings table of docs/operations.md, as core/settings.py defines every key."""
    from wellness_api.core import settings

    def number(value: int | None) -> str:
        return "none" if value is None else f"{value:,}"

    kinds = {"bool": "`true` \\| `false`", "int": "integer", "origins": "comma-separated origins",
             "list": "comma-separated names"}
    rows = ["| key | type | default | min / max | meaning |", "|---|---|---|---|---|"]
    for s in settings.SETTINGS.values():
        kind = " \\| ".join(f"`{c}`" for c in s.choices) if s.kind == "enum" else kinds[s.kind]
        if s.kind == "bool":
            default = f"`{str(s.default).lower()}`"
        elif s.kind in ("origins", "list"):
            default = "empty" if not s.default else f"`{','.join(s.default)}`"
        else:
            default = f"`{s.default}`"
        bounds = {"int": f"{number(s.minimum)} / {number(s.maximum)}",
                  "list": "at most 20 names of at most 40 characters"}.get(s.kind, "-")
        rows.append(f"| `{s.key}` | {kind} | {default} | {bounds} | {s.description} |")
    return "\n".join(rows) + "\n"


def test_the_settings_table_is_core_settings():
    page = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert settings_table() in page, (
        "docs/operations.md's settings table differs from core/settings.py; paste this one:\n" + settings_table())


def test_every_platformctl_command_is_in_the_operations_table():
    import argparse

    from wellness_api.ops import cli

    def commands(parser):
        return next((a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})

    rows = [line for line in (ROOT / "docs" / "operations.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| `")]
    missing = []
    for group, group_parser in commands(cli.build_parser()).items():
        for name in commands(group_parser) or [""]:
            command = f"{group} {name}".strip()
            if not any(row.startswith(f"| `{command}") for row in rows):
                missing.append(command)
    assert not missing, f"docs/operations.md's command table lacks: {missing}"


def _demo_env_output(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(DEMO_ENV)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def demo_env(emulators) -> dict:
    """The variables of `eval "$(bin/demo-env)"`, run in bash exactly as the README says."""
    script = (
        'set -euo pipefail\neval "$(bin/demo-env)"\n'
        "python3 -c 'import json, os, sys; json.dump({n: os.environ[n] for n in sys.argv[1:]}, sys.stdout)' "
        + " ".join(DEMO_NAMES)
    )
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, env=os.environ.copy(), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_demo_env_prints_the_variables_for_this_stack(demo_env):
    from tests.conftest import BASE_URL
    from wellness_api.core import server_keys

    assert demo_env["BASE_URL"] == BASE_URL
    assert demo_env["CLIENT_ID"] == "demo-fitness" and demo_env["CLIENT_HOST"] == "demo-fitness.localhost"
    assert demo_env["OPERATOR_CLIENT_ID"] == "operator"
    key = server_keys.authenticate(demo_env["API_KEY"])
    assert key is not None and key.client_id == "demo-fitness" and key.key_id == demo_env["KEY_ID"]
    assert demo_env["LESSON_ID"] and demo_env["VITAL_SCAN_SESSION_ID"] and len(demo_env["SCAN_TOKEN"]) >= 40

    again = _demo_env_output(os.environ.copy())  # idempotent: the same world, a new session
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    assert lines[0].startswith("#") and "hour" in lines[0]
    exported = [re.fullmatch(r"export ([A-Z_]+)='([^']*)'", line) for line in lines[1:]]
    assert all(exported) and tuple(m[1] for m in exported) == DEMO_NAMES
    values = {m[1]: m[2] for m in exported}
    for name in ("BASE_URL", "CLIENT_ID", "CLIENT_HOST", "OPERATOR_CLIENT_ID", "API_KEY", "KEY_ID", "LESSON_ID"):
        assert values[name] == demo_env[name], name
    assert values["VITAL_SCAN_SESSION_ID"] != demo_env["VITAL_SCAN_SESSION_ID"]


def test_demo_env_failures_are_one_line_on_stderr():
    for change in ({"GCLOUD_PROJECT": "real-prod-project"}, {"PUBLIC_BASE_URL": "http://127.0.0.1:9"}):
        result = _demo_env_output({**os.environ, **change})
        assert result.returncode == 1 and result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("demo-env: "), result.stderr


def test_demo_env_finds_the_stack_like_platformctl_and_follows_the_port_offset():
    from wellness_api.ops.demo_env import point_at_stack

    shifted = {"DEVSTACK_PORT_OFFSET": "3000"}
    point_at_stack(shifted)
    assert shifted["PUBLIC_BASE_URL"] == "http://127.0.0.1:8000"
    assert shifted["FIRESTORE_EMULATOR_HOST"] == "127.0.0.1:11080"
    assert shifted["FIREBASE_AUTH_EMULATOR_HOST"] == "127.0.0.1:12099"
    assert shifted["STORAGE_EMULATOR_HOST"] == "http://127.0.0.1:12199"
    plain = {}
    point_at_stack(plain)
    assert plain["PUBLIC_BASE_URL"] == "http://127.0.0.1:5000" and plain["FIRESTORE_EMULATOR_HOST"] == "127.0.0.1:8080"
    given = {"DEVSTACK_PORT_OFFSET": "3000", "FIRESTORE_EMULATOR_HOST": "10.0.0.1:1234"}
    point_at_stack(given)
    assert given["FIRESTORE_EMULATOR_HOST"] == "10.0.0.1:1234"  # variables that are set win


def test_demo_env_quotes_any_value():
    from wellness_api.ops.demo_env import shell_quote

    for value in ["plain", "it's", "a b\n$HOME `x` \"q\"", "''"]:
        echoed = subprocess.run(["bash", "-c", f"v={shell_quote(value)}; printf %s \"$v\""], capture_output=True,
                                text=True, check=True).stdout
        assert echoed == value


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_readme_block_runs_as_written(block, demo_env, tmp_path):
    if block.skip is not None:
        pytest.skip(f"README says not run: {block.skip}")
    assert not block.problems, "\n".join(block.problems)
    log = tmp_path / "statuses"
    log.touch()
    env = {**os.environ, **demo_env, "README_CURL_LOG": str(log)}
    script = "set -euo pipefail\n" + CURL_WRAPPER + block.code
    result = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=BLOCK_TIMEOUT_S)
    statuses = [int(s) for s in log.read_text().split()]
    report = (f"{block.page} block at line {block.line} (exit {result.returncode})\n"
              f"promised statuses: {block.expected}\nreal statuses:     {statuses}\n"
              f"--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}")
    assert result.returncode == 0, report
    assert statuses == block.expected, report


# Relative links: README.md links pages as docs/<page>.md, pages link each other as <page>.md, anchors are the
# headings' ids as the site (MkDocs, Python-Markdown's toc) makes them.
LINK = re.compile(r"(?<!!)\[[^\]]*\]\((?P<target>[^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*(?:\{#(?P<id>[^}\s]+)\})?\s*#*\s*$")


def _outside_code(text: str) -> list[str]:
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return kept


def anchors(path: pathlib.Path) -> set[str]:
    found, seen = set(), {}
    for line in _outside_code(path.read_text(encoding="utf-8")):
        heading = HEADING.match(line)
        if heading is None:
            continue
        if heading["id"]:
            found.add(heading["id"])
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading["text"]).replace("`", "").replace("*", "")
        slug = slugify(text, "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}_{count}")
    return found


def broken_links(page: pathlib.Path) -> list[str]:
    broken = []
    for line in _outside_code(page.read_text(encoding="utf-8")):
        for link in LINK.finditer(line):
            target = link["target"].strip("<>")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
                continue  # another site, or a path the stack serves (/docs/)
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.is_file():
                broken.append(f"{target}: no file {file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"{target}: no heading with the id {anchor!r} in {file.relative_to(ROOT)}")
    return broken


LINKED_PAGES = ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", LINKED_PAGES)
def test_relative_links_lead_somewhere(page):
    broken = broken_links(ROOT / page)
    assert not broken, f"{page} has broken links:\n" + "\n".join(broken)
