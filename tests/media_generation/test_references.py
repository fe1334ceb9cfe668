"""Reference image URLs that would reach the platform's own network are refused before any connection (SSRF)."""

import re
import socket

import pytest

from wellness_api.media_generation import references
from wellness_api.media_generation.references import UnsafeReference, check_url, fetch, public_address


def resolving_to(*addresses: str):
    """A DNS answer (the resolver is the boundary): the host resolves to these addresses."""
    def resolve(host, port, type=0):
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in addresses]
    return resolve


@pytest.mark.parametrize(("url", "message"), [
    ("http://images.example/a.png", "must be an https URL"),
    ("ftp://images.example/a.png", "must be an https URL"),
    ("https:///a.png", "must be an https URL"),
    ("https://user:pw@images.example/a.png", "must not carry credentials"),
    ("https://images.example:8443/a.png", "https port (443)"),
    ("https://images.example:99999/a.png", "must be an https URL"),
    ("https://images.example/a b.png", "at most 2,048 characters"),
    ("https://bilder.exämple/a.png", "at most 2,048 characters"),
    ("https://images.example/" + "a" * 2048, "at most 2,048 characters"),
    ("", "at most 2,048 characters"),
])
def test_a_url_that_is_not_a_plain_https_url_is_refused(url, message):
    with pytest.raises(UnsafeReference, match=re.escape(message)):
        check_url(url)


def test_a_plain_https_url_names_its_host():
    assert check_url("https://Images.Example/a.png?size=2") == ("images.example", 443)
    assert check_url("https://images.example:443/a.png") == ("images.example", 443)


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.1.2.3", "10.0.0.5", "172.16.0.1", "192.168.1.10", "169.254.169.254", "100.64.0.1",
    "0.0.0.0", "224.0.0.1",  # noqa: S104 - an address to refuse, not to bind "255.255.255.255", "198.18.0.1", "::1", "fe80::1", "fc00::1", "::",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "ff02::1",
])
def test_a_host_resolving_to_a_non_public_address_is_refused(address):
    with pytest.raises(UnsafeReference, match="is not a public address"):
        public_address("images.example", 443, resolving_to(address))


def test_one_non_public_address_among_public_ones_is_enough_to_refuse():
    with pytest.raises(UnsafeReference, match="is not a public address"):
        public_address("images.example", 443, resolving_to("93.184.216.34", "10.1.2.3"))


def test_a_public_host_gives_the_address_to_connect_to():
    assert public_address("images.example", 443, resolving_to("93.184.216.34", "2606:2800:220:1::1")) \
        == "93.184.216.34"


def test_an_unresolvable_host_is_refused():
    def fails(host, port, type=0):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    with pytest.raises(UnsafeReference, match="cannot be resolved"):
        public_address("nowhere.invalid", 443, fails)


@pytest.mark.parametrize("url", [
    "https://127.0.0.1/a.png", "https://localhost/a.png", "https://2130706433/a.png", "https://0x7f.1/a.png",
    "https://[::1]/a.png", "https://[::ffff:169.254.169.254]/latest/meta-data/", "https://169.254.169.254/",
])
def test_fetching_a_loopback_or_metadata_url_is_refused_before_any_connection(url, monkeypatch):
    def no_connection(*args, **kwargs):
        raise AssertionError("a connection was attempted")
    monkeypatch.setattr(socket, "create_connection", no_connection)
    with pytest.raises(UnsafeReference, match=r"not a public address|cannot be resolved"):
        fetch(url)  # the real resolver: every spelling of loopback resolves to loopback


def test_the_limits_are_the_documented_ones():
    assert (references.MAX_BYTES, references.TIMEOUT_SECONDS, references.MAX_REDIRECTS) == (10 * 1024 * 1024, 10, 3)
