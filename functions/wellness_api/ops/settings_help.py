"""The settings part of `client configure --help`, generated from core/settings.SETTINGS.

Written from the table, never by hand, so a key an area adds is named with its type, bounds, choices and
default the moment it exists.
"""

import json
import textwrap

from ..core import settings

_KINDS = {
    "bool": "true or false",
    "origins": "comma-separated origins (https://host[:port])",
    "list": "comma-separated names (at most 20, each at most 40 characters)",
}


def value_type(setting: settings.Setting) -> str:
    """The type of a setting's VALUE as one phrase, e.g. `integer, min 1, max 20` or `one of: off, jit`."""
    if setting.kind == "enum":
        return f"one of: {', '.join(setting.choices)}"
    if setting.kind == "int":
        bounds = [f"min {setting.minimum}" if setting.minimum is not None else "",
                  f"max {setting.maximum}" if setting.maximum is not None else ""]
        return ", ".join(["integer", *filter(None, bounds)])
    return _KINDS[setting.kind]


def _default(setting: settings.Setting) -> str:
    if isinstance(setting.default, list):
        return ",".join(setting.default) or "(empty)"
    return json.dumps(setting.default) if isinstance(setting.default, bool) else str(setting.default)


def epilog(width: int = 100) -> str:
    lines = ["settings (KEY: type; default):"]
    for setting in settings.SETTINGS.values():
        lines.append(f"  {setting.key}: {value_type(setting)}; default {_default(setting)}")
        lines.extend(textwrap.wrap(setting.description, width=width, initial_indent="      ",
                                   subsequent_indent="      "))
    return "\n".join(lines)
