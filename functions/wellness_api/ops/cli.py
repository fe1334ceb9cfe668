"""`bin/platformctl`: the operator CLI (CONTRACT section 3).

Every command prints exactly one JSON document on stdout; a failure exits 1 with one line on
stderr. By default it talks to the local emulators; `--project ID` talks to a real project with
Application Default Credentials.
"""

import argparse
import contextlib
import importlib
import json
import os
import sys

# Each module adds its commands with register(subparsers); each command's handler returns the
# document to print. Areas add their own module here.
COMMAND_MODULES = [
    "wellness_api.ops.commands.tenants",
    "wellness_api.ops.commands.world",
    "wellness_api.ops.commands.lessons",
    "wellness_api.ops.commands.identity",
    "wellness_api.ops.commands.vital_scan",
    "wellness_api.ops.commands.ai_move",
    "wellness_api.ops.commands.fall_risk",
    "wellness_api.ops.commands.content",
    "wellness_api.ops.commands.media",
    "wellness_api.ops.commands.assistant",
    "wellness_api.ops.commands.analytics",
    "wellness_api.ops.commands.retention",
    "wellness_api.ops.commands.privacy",
]

EMULATOR_DEFAULTS = {
    "FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080",
    "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9099",
    "FIREBASE_STORAGE_EMULATOR_HOST": "127.0.0.1:9199",
    "STORAGE_EMULATOR_HOST": "http://127.0.0.1:9199",
    "CLOUD_TASKS_EMULATOR_HOST": "127.0.0.1:9499",
}


class CliError(Exception):
    """A failure to report as one line on stderr."""


def existing_client(client_id: str):
    """The client a command names; every command says the same when it does not exist."""
    from ..core import provisioning

    try:
        return provisioning.require_client(client_id)
    except provisioning.ProvisioningError as exc:
        raise CliError(str(exc)) from None


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line on stderr, exit 2, as argparse does, without the usage block
        sys.stderr.write(f"platformctl: {message}\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="platformctl", description="Operate the wellness platform.")
    parser.add_argument("--project", help="a real Firebase project id (default: the local emulators)")
    groups = parser.add_subparsers(dest="group", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(groups)
    return parser


def _point_at(project: str | None) -> None:
    if project:
        os.environ["GCLOUD_PROJECT"] = project
        for name in EMULATOR_DEFAULTS:
            os.environ.pop(name, None)
    else:
        os.environ.setdefault("GCLOUD_PROJECT", "demo-wellness")
        for name, value in EMULATOR_DEFAULTS.items():
            os.environ.setdefault(name, value)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    _point_at(args.project)
    try:
        # stdout is the command's JSON document alone: what the platform's code logs on the way goes to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            document = args.handler(args)
    except CliError as exc:
        sys.stderr.write(f"platformctl: {exc}\n")
        return 1
    except Exception as exc:  # noqa: BLE001 - any failure is one line on stderr, never a traceback
        from ..core import logging as log

        sys.stderr.write(f"platformctl: {log.scrub(f'{type(exc).__name__}: {exc}').splitlines()[0]}\n")
        return 1
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
    return 0
