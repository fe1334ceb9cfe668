"""Reference image URLs that would reach the platform's own network are refused before any connection (SSRF)."""

import io
import re
import socket

import pytest
from PIL import Image

from tests.media_generation.servers import DripServer, huge_png
from wellness_api.media_generation import images, references
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


# ------------------------------------------------------------------------------------ a valid host before any lookup


@pytest.mark.parametrize("url", [
    "https://__x__/a.png", "https://a..example/a.png", "https://-a.example/a.png", "https://a-.example/a.png",
    "https://%31%32%37.0.0.1/a.png", f"https://{'a' * 64}.example/a.png", "https://" + "a." * 127 + "example/",
])
def test_a_host_that_is_not_a_valid_name_is_refused_before_any_lookup(url):
    def no_lookup(*args, **kwargs):
        raise AssertionError("the host was looked up")
    with pytest.raises(UnsafeReference, match="must name a valid host"):
        references.screen(url)
    with pytest.raises(UnsafeReference, match="must name a valid host"):
        fetch(url, resolver=no_lookup)


def test_public_address_itself_refuses_an_invalid_host_before_the_lookup():
    def no_lookup(*args, **kwargs):
        raise AssertionError("the host was looked up")
    with pytest.raises(UnsafeReference, match="must name a valid host"):
        public_address("bad_host.example", 443, no_lookup)


# ------------------------------------------------------------------------------------ one deadline for the whole fetch
# A real server on 127.0.0.1 that drips its answer; fetch reaches it through `connect` (plain TCP instead of TLS to
# the checked public address). What is asserted is how many bytes the server got out before fetch hung up: a
# handful, where a fetch bounded only by the worker's 900 s timeout would have taken all LIMIT of them.

PUBLIC = "93.184.216.34"
URL = "https://images.example/squat.png"
DEADLINE = 3.0  # seconds: the fetch's whole budget in these tests (TIMEOUT_SECONDS in production)
INTERVAL = 0.5  # seconds between two dripped bytes
LIMIT = 120  # bytes (one a interval) the server drips at most; far more than DEADLINE / INTERVAL
CUT_OFF = 30  # fetch must have hung up before this many bytes: DEADLINE / INTERVAL is 6
PNG_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n"


def slow_fetch(server: DripServer, url: str = URL):
    return fetch(url, resolving_to(PUBLIC), connect=server.connect, timeout=DEADLINE)


def test_a_server_that_drips_its_headers_is_cut_off_at_the_deadline():
    with DripServer(PNG_HEAD + b"X-Slow: ", drip=b"a", interval=INTERVAL, limit=LIMIT) as server, \
            pytest.raises(UnsafeReference, match=r"^a reference image took too long to download$"):
        slow_fetch(server)
    assert server.hung_up and server.dripped < CUT_OFF, (server.hung_up, server.dripped)


def test_a_server_that_drips_its_status_line_is_cut_off_at_the_deadline():
    with DripServer(b"", drip=b"HTTP/1.1 200 OK", interval=INTERVAL, limit=LIMIT) as server, \
            pytest.raises(UnsafeReference, match="took too long"):
        slow_fetch(server)
    assert server.hung_up and server.dripped < CUT_OFF, (server.hung_up, server.dripped)


def test_a_server_that_drips_the_body_is_cut_off_at_the_deadline_not_between_large_reads():
    head = PNG_HEAD + b"Content-Length: 1000000\r\n\r\n"
    with DripServer(head, drip=b"\x89PNG", interval=INTERVAL, limit=LIMIT) as server, \
            pytest.raises(UnsafeReference, match="took too long"):
        slow_fetch(server)
    assert server.hung_up and server.dripped < CUT_OFF, (server.hung_up, server.dripped)


def test_redirects_share_the_one_deadline():
    """The deadline is the whole fetch's: a redirect does not start a new one."""
    redirect = b"HTTP/1.1 302 Found\r\nLocation: https://images.example/next.png\r\nContent-Length: 0\r\n\r\n"
    servers = [DripServer(redirect, drip=b"", interval=INTERVAL, limit=LIMIT),
               DripServer(PNG_HEAD + b"X-Slow: ", drip=b"a", interval=INTERVAL, limit=LIMIT)]
    calls = iter(servers)

    def connect(address, host, deadline):
        return next(calls).connect(address, host, deadline)

    with servers[0], servers[1], pytest.raises(UnsafeReference, match="took too long"):
        fetch(URL, resolving_to(PUBLIC), connect=connect, timeout=DEADLINE)
    assert servers[1].hung_up and servers[1].dripped < CUT_OFF


def test_a_server_stuck_in_the_tls_handshake_is_cut_off_at_the_deadline():
    """The production connector (TLS to the checked address), pointed at a port that never answers the hello."""
    with DripServer(b"", drip=b"", interval=INTERVAL, limit=LIMIT, answer=False) as server:
        def tls_to_server(address, host, deadline):
            return references._tls("127.0.0.1", host, deadline, port=server.port)
        with pytest.raises(UnsafeReference, match="took too long"):
            fetch(URL, resolving_to(PUBLIC), connect=tls_to_server, timeout=DEADLINE)
    assert server.hung_up


def test_the_connector_is_given_the_checked_public_address():
    seen = []
    body = b"\x89PNG\r\n\x1a\n" + b"0" * 20
    head = PNG_HEAD + f"Content-Length: {len(body)}\r\n\r\n".encode()
    with DripServer(head + body, drip=b"", interval=0.05, limit=1) as server:
        def connect(address, host, deadline):
            seen.append((address, host))
            return server.connect(address, host, deadline)
        with pytest.raises(UnsafeReference, match="must be a PNG, JPEG, WebP or GIF image"):  # not a real PNG
            fetch(URL, resolving_to(PUBLIC), connect=connect, timeout=DEADLINE)
    assert seen == [(PUBLIC, "images.example")]


# ------------------------------------------------------------------------------------ dimensions before decoding


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")
def test_a_reference_image_whose_header_names_13000_by_13000_pixels_is_refused_before_decoding():
    bomb = huge_png()
    assert len(bomb) < 1024 * 1024  # small on disk
    head = PNG_HEAD + f"Content-Length: {len(bomb)}\r\n\r\n".encode()
    with DripServer(head + bomb, drip=b"", interval=0.05, limit=1) as server, \
            pytest.raises(UnsafeReference, match=r"^a reference image is 13,000 x 13,000 pixels; at most 4,096 x "
                                                 r"4,096 are accepted$"):
        slow_fetch(server)


def test_a_reference_image_at_the_limit_is_accepted():
    buffer = io.BytesIO()
    Image.new("L", (images.MAX_SIDE, 1)).save(buffer, format="PNG")
    references.check_image(buffer.getvalue())
    with pytest.raises(UnsafeReference, match="4,097 x 1 pixels"):
        buffer = io.BytesIO()
        Image.new("L", (images.MAX_SIDE + 1, 1)).save(buffer, format="PNG")
        references.check_image(buffer.getvalue())


def test_a_reference_that_is_not_an_accepted_image_format_is_refused():
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, format="BMP")
    with pytest.raises(UnsafeReference, match="must be a PNG, JPEG, WebP or GIF image"):
        references.check_image(buffer.getvalue())
