"""Reference images (4.9 rule 2) fetched without letting a caller reach the platform's own network (SSRF).

A job's referenceImages are URLs an administrator typed; the worker downloads them for the provider. So:
- only https on port 443, no credentials in the URL, at most 2,048 ASCII characters;
- the host is resolved here and every address it resolves to must be a public unicast address: loopback,
  private, link-local (cloud metadata at 169.254.169.254), shared, reserved, multicast and unspecified
  addresses are refused, IPv4-mapped IPv6 included, whatever spelling the URL used (2130706433, 0x7f.1, ...);
- the connection goes to the address that was checked (no second lookup a DNS rebinding could change), with
  TLS verified against the URL's host name;
- redirects are followed by hand, at most MAX_REDIRECTS, each target checked the same way;
- the answer must be an image, at most MAX_BYTES, within TIMEOUT_SECONDS in all.
"""

import http.client
import ipaddress
import socket
import ssl
import time
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

MAX_URL_LENGTH = 2048
MAX_BYTES = 10 * 1024 * 1024
TIMEOUT_SECONDS = 10.0
MAX_REDIRECTS = 3
HTTPS_PORT = 443

Resolver = Callable[..., list]


class UnsafeReference(Exception):
    """A reference image that may not or could not be fetched; the message is safe to show the administrator."""


def check_url(url: str) -> tuple[str, int]:
    """(host, port) of an acceptable reference URL, or UnsafeReference."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH or not url.isascii() \
            or any(c <= " " or c == "\x7f" for c in url):
        raise UnsafeReference("a reference image URL must be an https URL of at most 2,048 characters")
    try:
        parts = urlsplit(url)
        port = parts.port or HTTPS_PORT
    except ValueError:
        raise UnsafeReference("a reference image URL must be an https URL") from None
    if parts.scheme.lower() != "https" or not parts.hostname:
        raise UnsafeReference("a reference image URL must be an https URL")
    if "@" in parts.netloc:
        raise UnsafeReference("a reference image URL must not carry credentials")
    if port != HTTPS_PORT:
        raise UnsafeReference("a reference image URL must use the https port (443)")
    return parts.hostname, port


_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa")  # never public (RFC 6761, 6762, 8375)


def screen(url: str) -> str:
    """Refuse at once what can never be fetched: a bad URL, a non-public IP literal or a local-only name.

    Names are resolved only when the worker fetches (they may resolve differently by then), and checked again.
    """
    host, _ = check_url(url)
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(_LOCAL_SUFFIXES):
        raise UnsafeReference("a reference image URL must name a public host")
    try:
        literal = ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return url
    if not _public(str(literal)):
        raise UnsafeReference("a reference image URL must not point to a private, loopback or link-local address")
    return url


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def public_address(host: str, port: int, resolver: Resolver = socket.getaddrinfo) -> str:
    """The address to connect to: every address `host` resolves to must be public, else UnsafeReference."""
    try:
        found = resolver(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError):
        raise UnsafeReference(f"the host {host} of a reference image cannot be resolved") from None
    addresses = [info[4][0] for info in found]
    if not addresses or not all(_public(a) for a in addresses):
        raise UnsafeReference(f"the host {host} of a reference image is not a public address")
    return addresses[0]


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, with SNI and certificate verification for the URL's host name."""

    def __init__(self, host: str, address: str, timeout: float):
        super().__init__(host, HTTPS_PORT, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, HTTPS_PORT), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def fetch(url: str, resolver: Resolver = socket.getaddrinfo) -> tuple[bytes, str]:
    """(bytes, content type) of a reference image, by the rules above."""
    deadline = time.monotonic() + TIMEOUT_SECONDS
    for _ in range(MAX_REDIRECTS + 1):
        host, port = check_url(url)
        address = public_address(host, port, resolver)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise UnsafeReference("a reference image took too long to download")
        parts = urlsplit(url)
        connection = _PinnedHTTPSConnection(host, address, remaining)
        try:
            connection.request("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                               headers={"Accept": "image/*", "User-Agent": "wellness-platform-media/1"})
            response = connection.getresponse()
            if response.status in (301, 302, 303, 307, 308) and response.getheader("Location"):
                url = urljoin(url, response.getheader("Location"))
                continue
            return _image(response, deadline)
        except (OSError, http.client.HTTPException):
            raise UnsafeReference(f"a reference image could not be downloaded from {host}") from None
        finally:
            connection.close()
    raise UnsafeReference(f"a reference image redirects more than {MAX_REDIRECTS} times")


def _image(response: http.client.HTTPResponse, deadline: float) -> tuple[bytes, str]:
    if response.status != 200:
        raise UnsafeReference(f"a reference image answered {response.status}")
    content_type = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
    if not content_type.startswith("image/"):
        raise UnsafeReference("a reference image URL must point to an image")
    length = response.getheader("Content-Length")
    if length and length.isdigit() and int(length) > MAX_BYTES:
        raise UnsafeReference("a reference image is larger than 10 MiB")
    chunks, size = [], 0
    while chunk := response.read(64 * 1024):
        size += len(chunk)
        if size > MAX_BYTES:
            raise UnsafeReference("a reference image is larger than 10 MiB")
        if time.monotonic() > deadline:
            raise UnsafeReference("a reference image took too long to download")
        chunks.append(chunk)
    return b"".join(chunks), content_type
