"""The Firebase Admin app and its Firestore, Auth and Storage clients, created once per process.

Against the emulators (a `*_EMULATOR_HOST` variable is set) the app uses anonymous credentials,
because Application Default Credentials do not exist there; in production it uses ADC.
"""

import functools
import threading

import firebase_admin
from firebase_admin import credentials

from . import config, query_record


class _EmulatorCredential(credentials.Base):
    def get_credential(self):
        from google.auth.credentials import AnonymousCredentials

        return AnonymousCredentials()


def storage_bucket_name() -> str:
    return f"{config.project_id()}.appspot.com"


def _once(make):
    """`make()` run once per process, even when many threads ask at once.

    An instance serving concurrent requests gets its first ones together; functools.cache does not lock, so two
    threads both ran initialize_app() (the second failed: "The default Firebase app already exists") or each
    made and kept its own Firestore client."""
    lock = threading.Lock()
    made = []

    @functools.wraps(make)
    def get():
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
def db():
    from firebase_admin import firestore

    client = firestore.client(app())
    if query_record.enabled():
        # devstack's stacks only: tests/test_indexes.py checks the recorded queries against firestore.indexes.json.
        query_record.install(client)
    return client


def auth():
    from firebase_admin import auth as fb_auth

    app()
    return fb_auth


def bucket():
    from firebase_admin import storage

    return storage.bucket(app=app())
