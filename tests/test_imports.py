"""bench/ and tests/ share support/ and import nothing of each other; no import cycle among the three (issue 29).

Read with ast, nothing executed: every import counts, a function's lazy one and an `if __name__ == "__main__"`
block's included, since a lazy import circle is still a circle. The tests of the bench itself
(tests/test_bench_*.py) are the one place tests/ may import bench/.
"""

import ast
import functools
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("bench", "support", "tests")
BENCH_TESTS = "tests/test_bench_*.py"
# An import in code that a bench module hands to a child interpreter as a string (bench/concurrency.py does).
IMPORT_IN_TEXT = re.compile(r"^\s*(?:from|import)\s+((?:tests|bench)\b[\w.]*)", re.M)
# Cycles that stay until their owner untangles them; a new one fails the test.
KNOWN_CYCLES: list[list[str]] = []


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources() -> dict[str, pathlib.Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
            if "__pycache__" not in p.parts}


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def imported(name: str, path: pathlib.Path, modules: dict[str, pathlib.Path]) -> set[str]:
    """Every module this file imports: `from a import b` is a.b when that is a module of ours, else a."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
    return found


def graph(modules: dict[str, pathlib.Path]) -> dict[str, set[str]]:
    """module -> the modules of bench/, support/ and tests/ it imports."""
    return {name: {m for m in imported(name, path, modules) if m in modules and m != name}
            for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def crossings(modules: dict[str, pathlib.Path]) -> list[str]:
    """'<file> imports <module>' for every import bench/ or support/ makes of tests/, and tests/ or support/ of
    bench/ (support/ is below both)."""
    bench_tests = set(ROOT.glob(BENCH_TESTS))
    found = []
    for name, path in modules.items():
        package = name.split(".")[0]
        forbidden = {"bench": {"tests"}, "support": {"tests", "bench"},
                     "tests": set() if path in bench_tests else {"bench"}}[package]
        targets = {m for m in imported(name, path, modules) if m.split(".")[0] in forbidden}
        in_text = {m for m in IMPORT_IN_TEXT.findall(path.read_text()) if m.split(".")[0] in forbidden}
        targets |= {f"{m} (in a string of code)" for m in in_text
                    if not any(t == m or t.startswith(f"{m}.") for t in targets)}
        found += [f"{path.relative_to(ROOT)} imports {t}" for t in sorted(targets)]
    return found


def test_bench_and_tests_import_nothing_of_each_other():
    assert crossings(sources()) == []


def test_no_import_cycle_among_bench_support_and_tests():
    assert [c for c in cycles(graph(sources())) if c not in KNOWN_CYCLES] == []


def test_the_checks_see_a_lazy_crossing_a_string_one_and_a_lazy_circle(tmp_path, monkeypatch):
    """The checks on a made-up tree: what they must catch, they catch."""
    files = {
        "bench/__init__.py": "",
        "bench/a.py": "def f():\n    from bench import b\n",
        "bench/b.py": "if __name__ == '__main__':\n    from bench.a import f\n",
        "bench/c.py": "CODE = '''\nfrom tests.helpers import x\n'''\n",
        "support/__init__.py": "",
        "support/s.py": "from . import t\n",
        "support/t.py": "def g():\n    from tests import helpers\n",
        "tests/__init__.py": "",
        "tests/helpers.py": "",
        "tests/test_x.py": "from bench import a\n",
        "tests/test_bench_a.py": "from bench import a\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    monkeypatch.setitem(globals(), "ROOT", tmp_path)
    modules = sources()
    assert cycles(graph(modules)) == [["bench.a", "bench.b"]]
    assert crossings(modules) == [
        "bench/c.py imports tests.helpers (in a string of code)",
        "support/t.py imports tests.helpers",
        "tests/test_x.py imports bench.a",
    ]
