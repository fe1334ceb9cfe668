"""core.firebase: the default Storage bucket is the one the runtime names, not one derived from the project id."""

import json

import pytest

from wellness_api.core import config, firebase


@pytest.mark.parametrize("bucket", ["acme-prod.firebasestorage.app", "acme-prod.appspot.com"])
def test_the_bucket_comes_from_firebase_config(monkeypatch, tmp_path, bucket):
    monkeypatch.setenv("FIREBASE_CONFIG", json.dumps({"projectId": "acme-prod", "storageBucket": bucket}))
    assert firebase.storage_bucket_name() == bucket
    # FIREBASE_CONFIG may also name a file holding that JSON.
    path = tmp_path / "firebase-config.json"
    path.write_text(json.dumps({"storageBucket": bucket}))
    monkeypatch.setenv("FIREBASE_CONFIG", str(path))
    assert firebase.storage_bucket_name() == bucket


@pytest.mark.parametrize("value", ["", "{not json", "/nonexistent/config.json", '{"projectId": "x"}', "[1]"])
def test_without_a_named_bucket_it_is_the_projects_appspot_bucket(monkeypatch, value):
    monkeypatch.setenv("FIREBASE_CONFIG", value)
    assert firebase.storage_bucket_name() == f"{config.project_id()}.appspot.com"
