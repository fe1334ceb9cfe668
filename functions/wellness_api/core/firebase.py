"""The Firebase Admin app and its Firestore, Auth and Storage clients, created once per process.

Against the emulators (a `*_EMULATOR_HOST` variable is set) the app uses anonymous credentials,
because Application Default Credentials do not exist there; in production it uses ADC.
"""

import functools
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import firebase_admin
from firebase_admin import credentials

from . import config, query_record, write_record

if TYPE_CHECKING:
    from google.auth.credentials import Credentials
    from google.cloud import firestore
    from google.cloud.storage import Bucket

T = TypeVar("T")


# firebase_admin ships no type information, so its Base is Any to mypy.
class _EmulatorCredential(credentials.Base):  # type: ignore[misc]
    def get_credential(self) -> "Credentials":
        from google.auth.credentials import AnonymousCredentials

        # google.auth's AnonymousCredentials.__init__ is not annotated.
        return AnonymousCredentials()  # type: ignore[no-untyped-call]


def storage_bucket_name() -> str:
    """The project's default bucket, as the runtime names it in FIREBASE_CONFIG, else `PROJECT.appspot.com`.

    Cloud Functions sets FIREBASE_CONFIG (JSON, or a path to a JSON file) with the project's storageBucket:
    projects made since 30 October 2024 get `PROJECT.firebasestorage.app`, older ones `PROJECT.appspot.com`,
    so the name cannot be derived from the project id alone. The emulators use `PROJECT.appspot.com`."""
    raw = os.environ.get("FIREBASE_CONFIG", "").strip()
    if raw:
        try:
            text = raw if raw.startswith("{") else Path(raw).read_text()
            bucket = json.loads(text).get("storageBucket")
        except (OSError, ValueError, AttributeError):
            bucket = None
        if isinstance(bucket, str) and bucket:
            return bucket
    return f"{config.project_id()}.appspot.com"


def _once(make: Callable[[], T]) -> Callable[[], T]:
    """`make()` run once per process, even when many threads ask at once.

    An instance serving concurrent requests gets its first ones together; functools.cache does not lock, so two
    threads both ran initialize_app() (the second failed: "The default Firebase app already exists") or each
    made and kept its own Firestore client."""
    lock = threading.Lock()
    made: list[T] = []

    @functools.wraps(make)
    def get() -> T:
        if not made:
            with lock:
                if not made:
                    made.append(make())
        return made[0]

    return get


@_once
def app() -> firebase_admin.App:
    options = {"projectId": config.project_id(), "storageBucket": storage_bucket_name()}
    if config.using_emulators():
        return firebase_admin.initialize_app(_EmulatorCredential(), options)
    return firebase_admin.initialize_app(options=options)


@_once
def db() -> "firestore.Client":
    from firebase_admin import firestore as fb_firestore

    # firebase_admin is untyped: its client() is a google.cloud.firestore.Client.
    client = cast("firestore.Client", fb_firestore.client(app()))
    if query_record.enabled():
        # devstack's stacks only: tests/privacy/test_written_ids.py checks where the writes put a person's ids
        # (installed first: the query recorder's wrapper, outermost, still sees the platform's frame) ...
        write_record.install(client)
        # ... and tests/test_indexes.py checks the recorded queries against firestore.indexes.json.
        query_record.install(client)
    return client


def auth() -> Any:
    """firebase_admin.auth (a module without type information) once the app exists."""
    from firebase_admin import auth as fb_auth

    app()
    return fb_auth


def bucket() -> "Bucket":
    from firebase_admin import storage

    return storage.bucket(app=app())
