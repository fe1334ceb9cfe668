"""Server key format and masking (pure)."""

from wellness_api.core import server_keys


def test_generated_keys_are_unique_random_and_recognisable():
    keys = {server_keys.generate() for _ in range(200)}
    assert len(keys) == 200
    assert all(k.startswith("wsk_") and len(k) == 47 and server_keys.looks_like_key(k) for k in keys)


def test_hash_is_deterministic_sha256():
    key = server_keys.generate()
    assert server_keys.hash_key(key) == server_keys.hash_key(key)
    assert len(server_keys.hash_key(key)) == 64 and key not in server_keys.hash_key(key)


def test_mask_shows_only_prefix_and_suffix():
    key = server_keys.generate()
    masked = server_keys.masked(server_keys.prefix_of(key), server_keys.suffix_of(key))
    assert masked == f"{key[:8]}********{key[-4:]}"


def test_non_keys_are_not_looked_up():
    assert server_keys.authenticate(None) is None
    assert server_keys.authenticate("") is None
    assert server_keys.authenticate("Bearer something") is None
