"""Reference images (4.9 rule 2) fetched without letting a caller reach the platform's own network (SSRF).

A job's referenceImages are URLs an administrator typed; the worker downloads them for the provider. So:
- only https on port 443, no credentials in the URL, at most 2,048 ASCII characters;
- the host must be a valid DNS name or IP literal before it is looked up;
- the host is resolved here and every address it resolves to must be a public unicast address: loopback,
  private, link-local (cloud metadata at 169.254.169.254), shared, reserved, multicast and unspecified
  addresses are refused, IPv4-mapped IPv6 included, whatever spelling the URL used (2130706433, 0x7f.1, ...);
- the connection goes to the address that was checked (no second lookup a DNS rebinding could change), with
  TLS verified against the URL's host name;
- redirects are followed by hand, at most MAX_REDIRECTS, each target checked the same way;
- the answer must be an image, at most MAX_BYTES, of at most images.MAX_SIDE pixels a side (read from its
  header, before anything decodes it);
- the whole fetch, every redirect, connection, TLS handshake, request, status line, headers and body included,
  has ONE deadline of TIMEOUT_SECONDS: each send and receive waits only for the time left, so a server that
  drips a byte every few seconds is cut off at the deadline, not at the worker's 900 s timeout.
"""

import http.client
import io
import ipaddress
import re
import socket
import ssl
import time
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

from . import images

MAX_URL_LENGTH = 2048
MAX_BYTES = 10 * 1024 * 1024
TIMEOUT_SECONDS = 10.0
MAX_REDIRECTS = 3
HTTPS_PORT = 443

TOO_SLOW = "a reference image took too long to download"

Resolver = Callable[..., list]
# (address, host name, deadline) -> a connected socket, TLS set up for the host name, within the deadline
Connector = Callable[[str, str, float], socket.socket]


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
    _check_host(parts.hostname)
    return parts.hostname, port


_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?", re.IGNORECASE)


def _check_host(host: str) -> None:
    """A DNS name of letters, digits and hyphens (RFC 1123) or an IP literal, before any lookup sees it."""
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    name = host[:-1] if host.endswith(".") else host
    if not name or len(name) > 253 or not all(_LABEL.fullmatch(label) for label in name.split(".")):
        raise UnsafeReference("a reference image URL must name a valid host")


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
    _check_host(host)
    try:
        found = resolver(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError):
        raise UnsafeReference(f"the host {host} of a reference image cannot be resolved") from None
    addresses = [info[4][0] for info in found]
    if not addresses or not all(_public(a) for a in addresses):
        raise UnsafeReference(f"the host {host} of a reference image is not a public address")
    return addresses[0]


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError(TOO_SLOW)
    return left


def _tls(address: str, host: str, deadline: float, port: int = HTTPS_PORT) -> socket.socket:
    """TLS to the checked address, with SNI and certificate verification for the URL's host name."""
    sock = socket.create_connection((address, port), _remaining(deadline))
    try:
        sock.settimeout(_remaining(deadline))  # the handshake as a whole waits at most this long
        return ssl.create_default_context().wrap_socket(sock, server_hostname=host)
    except BaseException:
        sock.close()
        raise


class _DeadlineReader(io.RawIOBase):
    """Every receive waits only for what is left of the fetch's time."""

    def __init__(self, sock: socket.socket, deadline: float):
        super().__init__()
        self._sock, self._deadline = sock, deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        self._sock.settimeout(_remaining(self._deadline))
        return self._sock.recv_into(buffer)


class _DeadlineSocket:
    """What http.client uses of a socket (sendall, makefile, close), each call bounded by the deadline."""

    def __init__(self, sock: socket.socket, deadline: float):
        self._sock, self._deadline = sock, deadline

    def sendall(self, data: bytes) -> None:
        self._sock.settimeout(_remaining(self._deadline))
        self._sock.sendall(data)

    def makefile(self, mode: str = "rb", *args, **kwargs) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))

    def close(self) -> None:
        self._sock.close()


class _Connection(http.client.HTTPConnection):
    """HTTP/1.1 over the socket `connect` opened to a checked address, within the fetch's deadline."""

    def __init__(self, host: str, address: str, deadline: float, connect: Connector):
        super().__init__(host, HTTPS_PORT)
        self._address, self._deadline, self._connect = address, deadline, connect

    def connect(self):
        self.sock = _DeadlineSocket(self._connect(self._address, self.host, self._deadline), self._deadline)


def fetch(url: str, resolver: Resolver = socket.getaddrinfo, connect: Connector = _tls,
          timeout: float = TIMEOUT_SECONDS) -> tuple[bytes, str]:
    """(bytes, content type) of a reference image, by the rules above."""
    deadline = time.monotonic() + timeout
    for _ in range(MAX_REDIRECTS + 1):
        host, port = check_url(url)
        address = public_address(host, port, resolver)
        parts = urlsplit(url)
        connection = _Connection(host, address, deadline, connect)
        try:
            connection.request("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
                               headers={"Accept": "image/*", "User-Agent": "wellness-platform-media/1"})
            response = connection.getresponse()
            if response.status in (301, 302, 303, 307, 308) and response.getheader("Location"):
                url = urljoin(url, response.getheader("Location"))
                continue
            return _image(response)
        except TimeoutError:
            raise UnsafeReference(TOO_SLOW) from None
        except (OSError, http.client.HTTPException):
            raise UnsafeReference(f"a reference image could not be downloaded from {host}") from None
        finally:
            connection.close()
    raise UnsafeReference(f"a reference image redirects more than {MAX_REDIRECTS} times")


def _image(response: http.client.HTTPResponse) -> tuple[bytes, str]:
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
        chunks.append(chunk)
    data = b"".join(chunks)
    check_image(data)
    return data, content_type


def check_image(data: bytes) -> None:
    """The image's header names an accepted format and size (nothing is decoded), else UnsafeReference."""
    try:
        with images.opened(data, "a reference image"):
            pass
    except images.ImageRefused as exc:
        raise UnsafeReference(str(exc)) from None
