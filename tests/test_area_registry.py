"""Every place that lists the areas agrees with the packages under functions/wellness_api/.

An area is a package of wellness_api other than the shared ones (core, ops, openapi). Adding one means its package
plus: an HTTPS function in functions/main.py (and its SIZES entry), Hosting rewrites in firebase.json for its paths,
its apps in openapi/document.py's APPS, its demo.py in ops/demo.py's AREA_SEEDERS, its command module in ops/cli.py's
COMMAND_MODULES, and its name in the README's introduction. Each check below is a function over parsed inputs that
returns one line per disagreement, naming the file to edit and the area, so that the last test can feed it a doctored
copy (an area commented out, a new area added) without touching the real files.
"""

import argparse
import ast
import copy
import dataclasses
import importlib
import json
import re
from pathlib import Path

import flask
import pytest

from tests.test_deploy_manifest import _matches, manifest, rewrite_problems  # noqa: F401 - manifest is a fixture
from wellness_api.core import openapi
from wellness_api.openapi import document
from wellness_api.ops import cli, demo

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "functions" / "wellness_api"
SHARED = {"core", "ops", "openapi"}  # packages of wellness_api that are not areas
TRIGGERS = {"https_fn": "https", "tasks_fn": "task", "scheduler_fn": "scheduled"}

MAIN = "functions/main.py"
FIREBASE = "firebase.json"
DOCUMENT = "functions/wellness_api/openapi/document.py"
DEMO = "functions/wellness_api/ops/demo.py"
CLI = "functions/wellness_api/ops/cli.py"
CONTRACT = ROOT.parent / "shared" / "CONTRACT.md"  # the README links it as ../shared/CONTRACT.md
# Commands CONTRACT.md documents for work not done yet; each entry must go once its command exists.
PENDING_COMMANDS: dict[tuple[str, ...], str] = {}


# ------------------------------------------------------------------------------------------------ parsed inputs


@dataclasses.dataclass(frozen=True)
class Function:
    kind: str  # https, task or scheduled
    imports: tuple[str, ...]  # the wellness_api modules its body imports

    def serves(self) -> set[str]:
        """The packages whose Flask apps this function dispatches to (it imports their routes)."""
        return {m.split(".")[1] for m in self.imports if m.endswith(".routes")}


def areas(package: Path = PACKAGE) -> list[str]:
    return sorted(p.name for p in package.iterdir()
                  if (p / "__init__.py").is_file() and p.name not in SHARED and not p.name.startswith("_"))


def main_functions(source: str) -> dict[str, Function]:
    """main.py's Cloud Functions: name -> trigger kind and the wellness_api modules imported inside the call."""
    functions = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        kinds = [TRIGGERS[d.func.value.id] for d in node.decorator_list
                 if isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute)
                 and isinstance(d.func.value, ast.Name) and d.func.value.id in TRIGGERS]
        if not kinds:
            continue
        imports = []
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith("wellness_api."):
                # `from wellness_api.x import service` names the module wellness_api.x.service when x is a package.
                for alias in inner.names:
                    candidate = f"{inner.module}.{alias.name}"
                    imports.append(candidate if _module_path(candidate) else inner.module)
        functions[node.name] = Function(kinds[0], tuple(dict.fromkeys(imports)))
    return functions


def main_sizes(source: str) -> set[str]:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SIZES" for t in node.targets):
            return {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    return set()


def _module_path(module: str, package: Path = PACKAGE) -> Path | None:
    parts = module.split(".")[1:]
    for candidate in (package.joinpath(*parts).with_suffix(".py"), package.joinpath(*parts, "__init__.py")):
        if parts and candidate.is_file():
            return candidate
    return None


def apps_by_package(names: list[str]) -> dict[str, list[tuple[str, str]]]:
    """(module, attribute) of every Flask app each package's routes module defines."""
    found = {}
    for name in names:
        module = importlib.import_module(f"wellness_api.{name}.routes")
        seen, apps = set(), []
        for attr, value in vars(module).items():
            if isinstance(value, flask.Flask) and id(value) not in seen:
                seen.add(id(value))
                apps.append((module.__name__, attr))
        found[name] = apps
    return found


def operations_by_package(apps: dict[str, list[tuple[str, str]]]) -> dict[str, list[openapi.Operation]]:
    return {name: [op for module, attr in entries
                   for op in openapi.operations_of(getattr(importlib.import_module(module), attr))]
            for name, entries in apps.items()}


def command_tree(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every command path of the CLI: ("seed",), ("client", "create"), ..."""
    paths = set()
    for action in parser._actions:  # argparse keeps subcommands in a private action
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths.add((*prefix, name))
                paths |= command_tree(sub, (*prefix, name))
    return paths


def documented_commands(contract: str) -> list[tuple[str, ...]]:
    """The command paths CONTRACT.md section 3's table gives (its first column's `...` spans)."""
    section = contract.split("## 3.", 1)[1].split("\n## ", 1)[0]
    commands = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        for span in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
            words = []
            for word in span.split():
                if not re.fullmatch(r"[a-z][a-z-]*", word):
                    break
                words.append(word)
            if words:
                commands.append(tuple(words))
    return commands


def readme_introduction(readme: str) -> str:
    return readme.split("\n## ", 1)[0]


def _loose(text: str) -> str:
    return re.sub(r"[\s-]+", " ", text.lower())


# ------------------------------------------------------------------------------------------------ checks


def main_problems(functions: dict[str, Function], sizes: set[str], area_names: list[str]) -> list[str]:
    """functions/main.py: one HTTPS function per area (dispatching to its routes), each with its SIZES entry, each
    serving one area, and every module any function (HTTPS, task or scheduled) imports exists."""
    https = {name: f for name, f in functions.items() if f.kind == "https"}
    wrong = []
    for area in area_names:
        if not any(area in f.serves() for f in https.values()):
            wrong.append(f"{MAIN}: no HTTPS function serves the area {area}: add an @https_fn.on_request function "
                         f"that dispatches to wellness_api.{area}.routes, and its entry in SIZES")
    for name, f in https.items():
        if len(f.serves()) != 1:
            wrong.append(f"{MAIN}: the HTTPS function {name} dispatches to the routes of {sorted(f.serves()) or 'no area'}; "
                         "each function imports the routes of exactly one area")
        if name not in sizes:
            wrong.append(f"{MAIN}: the HTTPS function {name} has no entry in SIZES")
    wrong += [f"{MAIN}: SIZES names {name}, which is no HTTPS function" for name in sorted(sizes - set(https))]
    for name, f in functions.items():
        for module in f.imports:
            if _module_path(module) is None:
                wrong.append(f"{MAIN}: the {f.kind} function {name} imports {module}, which does not exist")
            elif module.split(".")[1] not in {*area_names, *SHARED}:
                wrong.append(f"{MAIN}: the {f.kind} function {name} imports {module} of no known area")
    return wrong


def function_of(rewrites: list[dict], path: str) -> str | None:
    """The function Hosting sends `path` to: the first rewrite that matches it, as Hosting picks."""
    concrete = re.sub(r"{[^}]+}", "x", path)
    return next((r["function"]["functionId"] for r in rewrites if "function" in r and _matches(r["source"], concrete)),
                None)


def routing_problems(functions: dict[str, Function], rewrites: list[dict],
                     operations: dict[str, list[openapi.Operation]]) -> list[str]:
    """firebase.json: each package's OpenAPI paths reach the function that dispatches to that package's routes."""
    wrong = []
    for package, ops in operations.items():
        servers = " or ".join(sorted(n for n, f in functions.items() if f.kind == "https" and package in f.serves()))
        fix = f"add a rewrite to {servers}" if servers else f"add a function serving {package} to {MAIN}, then a rewrite to it"
        for path in dict.fromkeys(op.path for op in ops):
            target = function_of(rewrites, path)
            if target is None:
                wrong.append(f"{FIREBASE}: no rewrite reaches {path} (area {package}): {fix}")
            elif package not in (functions.get(target) or Function("", ())).serves():
                wrong.append(f"{FIREBASE}: {path} (area {package}) is routed to {target}, which does not serve "
                             f"{package}: {fix}, before any broader rewrite that matches it")
    return wrong


def document_problems(apps_listed: list[tuple[str, str]], apps: dict[str, list[tuple[str, str]]]) -> list[str]:
    """openapi/document.py: APPS names every app of every area's routes exactly once, and nothing else."""
    wrong = []
    known = {entry: package for package, entries in apps.items() for entry in entries}
    for package, entries in apps.items():
        for module, attr in entries:
            count = apps_listed.count((module, attr))
            if count != 1:
                wrong.append(f"{DOCUMENT}: APPS names ({module!r}, {attr!r}) {count} times (area {package}); "
                             "it must name it once")
    wrong += [f"{DOCUMENT}: APPS names ({module!r}, {attr!r}), which is no Flask app of any area's routes"
              for module, attr in dict.fromkeys(apps_listed) if (module, attr) not in known]
    return wrong


def demo_problems(seeders: list[str], area_names: list[str], package: Path = PACKAGE) -> list[str]:
    """ops/demo.py: AREA_SEEDERS names the demo.py of every area that has one, once, and only those."""
    expected = {f"wellness_api.{a}.demo" for a in area_names if (package / a / "demo.py").is_file()}
    wrong = [f"{DEMO}: AREA_SEEDERS lacks {module!r} (area {module.split('.')[1]} has a demo.py): add it"
             for module in sorted(expected - set(seeders))]
    wrong += [f"{DEMO}: AREA_SEEDERS names {module!r}, which is no area's demo.py" for module in seeders
              if module not in expected]
    wrong += [f"{DEMO}: AREA_SEEDERS names {module!r} twice" for module in dict.fromkeys(seeders)
              if seeders.count(module) > 1]
    for module in sorted(expected):
        tree = ast.parse(_module_path(module, package).read_text())
        if not any(isinstance(n, ast.FunctionDef) and n.name == "seed" for n in tree.body):
            wrong.append(f"{module.replace('.', '/')}.py: an area seeder defines seed(client) (ops/demo.py calls it)")
    return wrong


def cli_problems(command_modules: list[str], area_names: list[str], documented: list[tuple[str, ...]],
                 registered: set[tuple[str, ...]], package: Path = PACKAGE) -> list[str]:
    """ops/cli.py: COMMAND_MODULES names every module of ops/commands/ and every area's own cli or commands module,
    each exists, and every command CONTRACT.md section 3 documents is registered."""
    wrong = []
    commands_dir = package / "ops" / "commands"
    expected = {f"wellness_api.ops.commands.{p.stem}" for p in commands_dir.glob("*.py") if p.stem != "__init__"}
    own = [f"wellness_api.{a}.{m}" for a in area_names for m in ("cli", "commands")]
    expected |= {module for module in own if _module_path(module, package)}
    for module in sorted(expected - set(command_modules)):
        wrong.append(f"{CLI}: COMMAND_MODULES lacks {module!r} (functions/{module.replace('.', '/')}.py exists): "
                     "add it")
    wrong += [f"{CLI}: COMMAND_MODULES names {module!r}, which does not exist" for module in command_modules
              if _module_path(module, package) is None]
    wrong += [f"{CLI}: bin/platformctl lacks `{' '.join(path)}`, which CONTRACT.md section 3 documents: register it "
              f"in the area's module of functions/wellness_api/ops/commands/ and list that module in COMMAND_MODULES"
              for path in documented if path not in registered]
    return wrong


def readme_problems(introduction: str, operations: dict[str, list[openapi.Operation]]) -> list[str]:
    """README.md: its introduction names every area (any of the OpenAPI tags of the area's operations)."""
    text = _loose(introduction)
    wrong = []
    for area, ops in operations.items():
        names = list(dict.fromkeys(op.tag for op in ops))
        if names and not any(_loose(name) in text for name in names):
            wrong.append(f"README.md: the introduction (before the first ## heading) does not name the area {area} "
                         f"(as {' or '.join(repr(n) for n in names)})")
    return wrong


# ------------------------------------------------------------------------------------------------ the real files


@pytest.fixture(scope="module")
def real():
    area_names = areas()
    source = (ROOT / MAIN).read_text()
    apps = apps_by_package([*area_names, "openapi"])
    return {
        "areas": area_names,
        "functions": main_functions(source),
        "sizes": main_sizes(source),
        "rewrites": [r for r in json.loads((ROOT / FIREBASE).read_text())["hosting"]["rewrites"] if "function" in r],
        "apps": apps,
        "operations": operations_by_package(apps),
    }


def _report(problems: list[str]) -> str:
    return "\n" + "\n".join(problems)


def test_the_areas_are_the_packages_of_wellness_api(real):
    assert real["areas"] == ["ai_move", "analytics", "api_keys", "assistant", "content", "fall_risk", "identity",
                             "lessons", "media_generation", "privacy", "vital_scan"]
    assert all(real["operations"][a] for a in real["areas"]), "every area declares its operations"


def test_main_py_serves_every_area_from_one_function_each(real):
    problems = main_problems(real["functions"], real["sizes"], real["areas"])
    assert not problems, _report(problems)


def test_firebase_json_routes_every_areas_paths_to_the_function_that_serves_it(real, manifest):  # noqa: F811
    problems = rewrite_problems(manifest, real["rewrites"])
    problems += routing_problems(real["functions"], real["rewrites"], real["operations"])
    assert not problems, _report(problems)


def test_the_openapi_document_includes_every_areas_apps_once(real):
    problems = document_problems(list(document.APPS), real["apps"])
    assert not problems, _report(problems)
    named = [getattr(importlib.import_module(module), attr) for module, attr in document.APPS]
    assert [id(app) for app in document.apps()] == [id(app) for app in named], f"{DOCUMENT}: apps() is APPS"


def test_the_demo_seeds_every_area_that_has_a_demo(real):
    problems = demo_problems(list(demo.AREA_SEEDERS), real["areas"])
    assert not problems, _report(problems)


def test_the_cli_registers_every_command_module(real):
    problems = cli_problems(list(cli.COMMAND_MODULES), real["areas"], [], command_tree(cli.build_parser()))
    assert not problems, _report(problems)


def test_the_cli_has_every_command_the_contract_documents(real):
    if not CONTRACT.is_file():
        pytest.skip(f"{CONTRACT} is not beside this checkout")
    documented = documented_commands(CONTRACT.read_text())
    assert ("client", "create") in documented and ("seed",) in documented, "CONTRACT.md section 3's table was read"
    registered = command_tree(cli.build_parser())
    landed = [f"{__file__}: `{' '.join(c)}` ({why}) is registered or no longer documented: remove it from PENDING_COMMANDS"
              for c, why in PENDING_COMMANDS.items() if c in registered or c not in documented]
    problems = cli_problems(list(cli.COMMAND_MODULES), real["areas"],
                            [c for c in documented if c not in PENDING_COMMANDS], registered)
    assert not problems + landed, _report(problems + landed)


def test_the_readme_introduction_names_every_area(real):
    problems = readme_problems(readme_introduction((ROOT / "README.md").read_text()),
                               {a: real["operations"][a] for a in real["areas"]})
    assert not problems, _report(problems)


def test_the_docs_page_introduction_names_every_area(real):
    problems = readme_problems(document.DESCRIPTION, {a: real["operations"][a] for a in real["areas"]})
    assert not problems, _report([p.replace("README.md: the introduction (before the first ## heading)",
                                            "functions/wellness_api/openapi/document.py: DESCRIPTION") for p in problems])


# ------------------------------------------------------------------------------------------------ doctored copies


def _comment_out_function(source: str, name: str) -> str:
    """main.py with the function `name` (and its decorators) commented out, as someone removing an area might."""
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    first = min(d.lineno for d in node.decorator_list)
    lines = source.splitlines()
    for i in range(first - 1, node.end_lineno):
        lines[i] = "# " + lines[i]
    return "\n".join(lines)


def test_each_check_names_the_file_and_the_area_when_an_area_is_left_out(real):
    """The area content commented out of each place in turn, in a copy: each check says which file lacks it."""
    source = (ROOT / MAIN).read_text()
    functions = main_functions(_comment_out_function(source, "content"))
    assert "content" not in functions
    assert any(p.startswith(f"{MAIN}: no HTTPS function serves the area content")
               for p in main_problems(functions, real["sizes"], real["areas"]))
    assert f"{MAIN}: SIZES names content, which is no HTTPS function" in main_problems(functions, real["sizes"],
                                                                                        real["areas"])
    assert any(p.startswith(f"{MAIN}: no HTTPS function serves the area content") for p in main_problems(
        functions, real["sizes"] - {"content"}, real["areas"]))

    rewrites = [r for r in real["rewrites"] if r["function"]["functionId"] != "content"]
    problems = routing_problems(real["functions"], rewrites, real["operations"])
    assert f"{FIREBASE}: /api/content (area content) is routed to platform, which does not serve content: add a " \
           "rewrite to content, before any broader rewrite that matches it" in problems, problems
    assert all("(area content)" in p for p in problems), problems

    unreached = copy.deepcopy(real["rewrites"])
    for r in unreached:
        if r["function"]["functionId"] == "content":
            r["function"]["functionId"] = "contnet"
    problems = routing_problems(real["functions"], unreached, real["operations"])
    assert any("is routed to contnet, which does not serve content" in p for p in problems), problems

    listed = [entry for entry in document.APPS if entry != ("wellness_api.content.routes", "app")]
    assert document_problems(listed, real["apps"]) == [
        f"{DOCUMENT}: APPS names ('wellness_api.content.routes', 'app') 0 times (area content); it must name it once"]
    assert document_problems([*document.APPS, ("wellness_api.content.routes", "app")], real["apps"]) == [
        f"{DOCUMENT}: APPS names ('wellness_api.content.routes', 'app') 2 times (area content); it must name it once"]

    seeders = [m for m in demo.AREA_SEEDERS if m != "wellness_api.content.demo"]
    assert demo_problems(seeders, real["areas"]) == [
        f"{DEMO}: AREA_SEEDERS lacks 'wellness_api.content.demo' (area content has a demo.py): add it"]

    modules = [m for m in cli.COMMAND_MODULES if m != "wellness_api.ops.commands.content"]
    documented = [("client", "create"), ("content", "put"), ("seed",)]  # as documented_commands reads CONTRACT.md
    assert documented_commands("## 3. CLI\n| `client create --client-id ID` | x |\n| `content put --key K` | x |\n"
                               "| `seed [--reset]` | x |\n## 4. Next\n| `not a command` | x |\n") == documented
    registered = command_tree(cli.build_parser()) - {("content",), ("content", "put")}
    assert cli_problems(modules, real["areas"], documented, registered) == [
        f"{CLI}: COMMAND_MODULES lacks 'wellness_api.ops.commands.content' "
        "(functions/wellness_api/ops/commands/content.py exists): add it",
        f"{CLI}: bin/platformctl lacks `content put`, which CONTRACT.md section 3 documents: register it in the "
        "area's module of functions/wellness_api/ops/commands/ and list that module in COMMAND_MODULES"]

    introduction = readme_introduction((ROOT / "README.md").read_text())
    doctored = re.sub(r"(?i)\bcontent\b", "...", introduction)
    assert readme_problems(doctored, {"content": real["operations"]["content"]}) == [
        "README.md: the introduction (before the first ## heading) does not name the area content (as 'Content')"]


def test_a_new_area_fails_in_every_place_it_is_not_yet_listed(real, tmp_path):
    """A package `sleep` added with routes, a demo and commands, and listed nowhere: each place is named."""
    package = tmp_path / "wellness_api"
    for area in [*real["areas"], *SHARED, "sleep"]:
        (package / area).mkdir(parents=True)
        (package / area / "__init__.py").write_text("")
    (package / "sleep" / "routes.py").write_text("")
    (package / "sleep" / "demo.py").write_text("def seed(client):\n    pass\n")
    (package / "ops" / "commands").mkdir()
    (package / "ops" / "commands" / "sleep.py").write_text("")
    area_names = areas(package)
    assert "sleep" in area_names

    sleep_op = dataclasses.replace(real["operations"]["lessons"][0], path="/api/sleep/nights", tag="Sleep")
    operations = {**real["operations"], "sleep": [sleep_op]}
    apps = {**real["apps"], "sleep": [("wellness_api.sleep.routes", "app")]}

    assert [p for p in main_problems(real["functions"], real["sizes"], area_names) if "sleep" in p] == [
        f"{MAIN}: no HTTPS function serves the area sleep: add an @https_fn.on_request function that dispatches to "
        "wellness_api.sleep.routes, and its entry in SIZES"]
    assert routing_problems(real["functions"], real["rewrites"], {"sleep": [sleep_op]}) == [
        f"{FIREBASE}: /api/sleep/nights (area sleep) is routed to platform, which does not serve sleep: add a function "
        f"serving sleep to {MAIN}, then a rewrite to it, before any broader rewrite that matches it"]
    assert document_problems(list(document.APPS), apps) == [
        f"{DOCUMENT}: APPS names ('wellness_api.sleep.routes', 'app') 0 times (area sleep); it must name it once"]
    assert [p for p in demo_problems(list(demo.AREA_SEEDERS), area_names, package) if "sleep" in p] == [
        f"{DEMO}: AREA_SEEDERS lacks 'wellness_api.sleep.demo' (area sleep has a demo.py): add it"]
    assert [p for p in cli_problems(list(cli.COMMAND_MODULES), area_names, [], set(), package) if "sleep" in p] == [
        f"{CLI}: COMMAND_MODULES lacks 'wellness_api.ops.commands.sleep' "
        "(functions/wellness_api/ops/commands/sleep.py exists): add it"]
    assert readme_problems(readme_introduction((ROOT / "README.md").read_text()), {"sleep": operations["sleep"]}) == [
        "README.md: the introduction (before the first ## heading) does not name the area sleep (as 'Sleep')"]
