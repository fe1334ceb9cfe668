"""docs/figures.md (issue 29, item 4): `make bench` writes each part's tables between that part's markers, stamped
with the commit and day measured, and leaves every other byte of the page as it was. Offline: nothing is measured."""

import io
import pathlib

from bench import figures, generated

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "figures.md"


def test_every_part_has_its_heading_and_markers_once_on_the_page():
    page = PAGE.read_text()
    for part in figures.PARTS:
        begin, end = part.markers
        assert page.count(begin) == 1 and page.count(end) == 1, part.key
        heading = f"\n## {part.heading}\n"
        assert page.count(heading) == 1, part.key
        assert page.index(heading) < page.index(begin) < page.index(end), part.key
        # The section holds nothing but its own text: the next heading comes after its end marker.
        following = page.find("\n## ", page.index(heading) + 1)
        assert following == -1 or page.index(end) < following, part.key


def test_the_writer_replaces_only_between_the_parts_markers(tmp_path):
    first, second = figures.BY_KEY["lessons"], figures.BY_KEY["load"]
    page = tmp_path / "figures.md"
    before = "# Performance figures\n\nhand-written intro\n\n"
    middle = "\n\nhand-written between\n\n"
    after = "\n\nhand-written after\n"
    sections = {part.key: f"## {part.heading}\n\n{part.markers[0]}\nold {part.key}\n{part.markers[1]}"
                for part in (first, second)}
    page.write_text(before + sections["lessons"] + middle + sections["load"] + after)

    figures.write(first, "new lessons table", page)

    expected_first = f"## {first.heading}\n\n{first.markers[0]}\nnew lessons table\n{first.markers[1]}"
    assert page.read_text() == before + expected_first + middle + sections["load"] + after


def test_a_part_missing_from_the_page_gets_its_heading_and_markers_at_the_end(tmp_path):
    page = tmp_path / "figures.md"
    page.write_text("# Performance figures\n\nintro\n")
    part = figures.BY_KEY["cold-start"]
    figures.write(part, "table", page)
    assert page.read_text() == (f"# Performance figures\n\nintro\n\n## {part.heading}\n\n"
                                f"{part.markers[0]}\ntable\n{part.markers[1]}\n")


def test_a_section_is_stamped_with_the_commit_and_the_day_and_keeps_the_printed_table():
    part = figures.BY_KEY["lessons"]
    text = figures.section(part, "\n== lessons\nrequest  reads\nGET      1\n", "abc1234", "2026-11-26")
    assert text.startswith("_Measured at commit `abc1234` on 2026-11-26 by "
                           "`make bench BENCH_ARGS='--only lessons'` (bench/lessons.py).")
    assert text.endswith("```text\n== lessons\nrequest  reads\nGET      1\n```")
    # A part with its own page (the capacity model writes docs/capacity.md) links there instead.
    assert "[capacity.md](capacity.md)" in figures.section(figures.BY_KEY["capacity"], "", "abc1234", "2026-11-26")


def test_a_section_leaves_out_the_log_lines_of_areas_served_in_process():
    printed = ('{"severity": "INFO", "message": "request", "route": "/api/v1/vital-scan/sessions"}\n'
               "== Vital Scan\ncall  reads\n")
    text = figures.section(figures.BY_KEY["vital-scan"], printed, "abc1234", "2026-11-26")
    assert "severity" not in text and text.endswith("```text\n== Vital Scan\ncall  reads\n```")


def test_the_helper_appends_markers_it_does_not_find_and_replaces_only_the_first_pair():
    begin, end = generated.markers("x")
    assert generated.replace_between("# T\n", begin, end, "new") == f"# T\n\n{begin}\nnew\n{end}\n"
    twice = f"{begin}\nold\n{end}\nkept\n{begin}\nother\n{end}\n"
    assert generated.replace_between(twice, begin, end, "new") == f"{begin}\nnew\n{end}\nkept\n{begin}\nother\n{end}\n"


def test_every_parts_target_exists_and_anchors_are_distinct():
    import importlib

    for part in figures.PARTS:
        module, function = part.target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), part.target
        assert (generated.ROOT / part.source).exists(), part.source
    assert len({part.anchor for part in figures.PARTS}) == len(figures.PARTS)


def test_a_parts_stdout_copy_can_be_reconfigured_as_firebase_functions_does_on_import():
    # firebase_functions.logger calls sys.stdout.reconfigure(encoding="utf-8") when main.py is first imported;
    # the copy a part prints through lacked it, so importing main.py inside a part crashed.
    out = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    tee = figures._Tee(out)
    tee.reconfigure(encoding="utf-8")
    assert out.encoding == "utf-8"
    tee.write("é")
    assert tee.copy.getvalue() == "é"
