"""Every input of the media-generation operations that sizes work has a bound the OpenAPI document shows (issue 25):
the caps are on the pydantic models, so callers see them before they are refused."""


def test_every_media_generation_input_has_a_bound_in_the_openapi_document():
    """Strings have maxLength (or a bounded pattern), numbers a maximum, lists maxItems: support.caps finds none."""
    from support import caps
    from wellness_api.openapi import document

    found = [row for row in caps.violations(document.build()) if row[0] == "Media generation"]
    assert found == []
