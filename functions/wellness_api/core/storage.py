"""Cloud Storage objects that browsers and apps download by URL (Firebase Storage download tokens).

An object stored here carries a random download token in its metadata; its URL is Firebase Storage's token
download form, on the Storage emulator when one runs. Whoever holds the URL can read the object and nobody
can list the bucket, so a URL is as private as the place it is given to.
"""

import contextlib
import os
import urllib.parse
import uuid

from . import firebase

TOKEN_METADATA = "firebaseStorageDownloadTokens"
PRODUCTION_STORAGE_HOST = "https://firebasestorage.googleapis.com"


def download_url(path: str, token: str) -> str:
    """A URL that opens in a browser or an app without credentials."""
    bucket = firebase.storage_bucket_name()
    emulator = os.environ.get("FIREBASE_STORAGE_EMULATOR_HOST")
    origin = f"http://{emulator}" if emulator else PRODUCTION_STORAGE_HOST
    quoted = urllib.parse.quote(path, safe="")
    return f"{origin}/v0/b/{bucket}/o/{quoted}?alt=media&token={token}"


def upload(path: str, data: bytes, content_type: str, *, filename: str, cache_control: str,
           token: str | None = None) -> str:
    """Store `data` (inline, named `filename` when saved) with a download token; returns the token."""
    token = token or str(uuid.uuid4())
    blob = firebase.bucket().blob(path)
    blob.metadata = {TOKEN_METADATA: token}
    blob.content_disposition = f'inline; filename="{filename}"'
    blob.cache_control = cache_control
    blob.upload_from_string(data, content_type=content_type)
    return token


def token_of(path: str) -> str | None:
    """The download token of a stored object, or None when there is no such object."""
    blob = firebase.bucket().get_blob(path)
    if blob is None:
        return None
    return (blob.metadata or {}).get(TOKEN_METADATA)


def delete(path: str) -> None:
    from google.api_core import exceptions as gexc

    with contextlib.suppress(gexc.NotFound):
        firebase.bucket().blob(path).delete()
