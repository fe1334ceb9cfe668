"""Fixed-window rate limits on Firestore counters that never become one hot document.

A limit counts hits of a key (a client id, or a hash of a caller and a client) in fixed windows of
`window_seconds`. Every window has its own counter documents,

    rateLimits/{scope}:{key}:{windowStart}:{shard}

so a counter lives for one window only, and a limit above SHARD_CAPACITY_PER_MINUTE spreads its
hits over several shards (a hit picks one at random) so that no document takes more than about two
writes a second. A hit is ONE write: a server-side increment whose commit returns the new count
(WriteResult.transform_results), so there is no read, no transaction and nothing to abort under
contention. A hit is allowed while its shard's count is within the shard's share of the limit
(ceil(limit / shards)); with one shard that is exact, with several a skewed spread can refuse a
little before the whole limit is reached, never after it.

Refused hits count too, so a caller that keeps hammering stays refused until the window ends.
Counter documents carry expiresAt (window end + one hour) for a Firestore TTL policy; so do the
documents `remember` writes (rateLimits/{scope}:{key}), which record that a key has earned an
exemption (a caller that has signed an account in before).

A caller is counted by caller_network: an IPv4 address, or the /64 of an IPv6 address.
"""

import dataclasses
import datetime as dt
import hashlib
import ipaddress
import math
import random

from google.cloud import firestore

from . import clock, firebase

COLLECTION = "rateLimits"
# Hits per minute one counter document takes comfortably (Firestore's guidance is ~1 sustained
# write/s per document; increments without transactions tolerate short bursts well above that).
SHARD_CAPACITY_PER_MINUTE = 120
EXPIRY_GRACE = dt.timedelta(hours=1)


@dataclasses.dataclass(frozen=True)
class Limit:
    # names the limit in document ids: "requests", "provisioning", "password", "passwordUnknownClient", "guest"
    scope: str
    limit: int  # hits allowed per window
    window_seconds: int = 60

    @property
    def shards(self) -> int:
        per_minute = self.limit * 60 / self.window_seconds
        return max(1, math.ceil(per_minute / SHARD_CAPACITY_PER_MINUTE))

    @property
    def share(self) -> int:
        return math.ceil(self.limit / self.shards)


@dataclasses.dataclass(frozen=True)
class Decision:
    allowed: bool
    count: int  # hits of the chosen shard in this window, this one included
    retry_after_seconds: int  # whole seconds until the window ends (at least 1)
    document: str = ""  # the counter document that took the hit (give_back undoes it)


# One subscriber usually holds a whole IPv6 /64 (RFC 6177 assigns /48 to /64 per site, and SLAAC
# addresses are random within the /64), so a limit per IPv6 address is no limit: it is counted per /64.
IPV6_PREFIX = 64
MAX_CALLER_LENGTH = 64


def caller_network(address: str) -> str:
    """What a per-caller limit counts: an IPv4 address, the /64 of an IPv6 address (an IPv4-mapped
    IPv6 address is its IPv4 address), or, for anything that is not an address, the text itself (cut)."""
    text = address.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    text = text.split("%", 1)[0]  # a zone id names an interface of the sender, not another caller
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return address.strip()[:MAX_CALLER_LENGTH]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False))
    return str(ip)


def caller_key(client_id: str, caller: str) -> str:
    """A document-id-safe key for one caller of one client; the caller's address is not stored."""
    return hashlib.sha256(f"{client_id}\x00{caller}".encode()).hexdigest()[:32]


def key_of(*parts: str) -> str:
    """A document-id-safe key for a tuple of values (an account, an account and a caller); not reversible."""
    material = "\x00".join(f"{len(part)}:{part}" for part in parts)
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def caller_only_key(caller: str) -> str:
    """A document-id-safe key for one caller whatever it names (a clientId that does not exist, say)."""
    return hashlib.sha256(f"caller\x00{caller}".encode()).hexdigest()[:32]


def window_of(limit: Limit, now: dt.datetime) -> tuple[int, int]:
    start = int(now.timestamp()) // limit.window_seconds * limit.window_seconds
    return start, start + limit.window_seconds


def hit(limit: Limit, key: str) -> Decision:
    """Count one hit of `key` under `limit` and say whether it is allowed."""
    now = clock.now()
    start, end = window_of(limit, now)
    shard = random.randrange(limit.shards) if limit.shards > 1 else 0  # noqa: S311 - load spreading, not security
    ref = firebase.db().collection(COLLECTION).document(f"{limit.scope}:{key}:{start}:{shard}")
    result = ref.set(
        {
            "count": firestore.Increment(1),
            "scope": limit.scope,
            "windowStart": dt.datetime.fromtimestamp(start, dt.UTC),
            "expiresAt": dt.datetime.fromtimestamp(end, dt.UTC) + EXPIRY_GRACE,
        },
        merge=True,
    )
    count = int(result.transform_results[0].integer_value)
    retry_after = max(1, math.ceil(end - now.timestamp()))
    return Decision(allowed=count <= limit.share, count=count, retry_after_seconds=retry_after, document=ref.path)


def give_back(decision: Decision) -> None:
    """Undo an allowed hit (one write): for limits that count only what turned out to be failures, the
    hit is taken before the work, so racing requests cannot all slip under the limit, and given back
    when the work succeeded."""
    if decision.allowed and decision.document:
        firebase.db().document(decision.document).update({"count": firestore.Increment(-1)})


def remember(scope: str, key: str, days: int) -> None:
    """Record that `key` has earned something in `scope` (one write; kept `days` days after the last one)."""
    expires = clock.now() + dt.timedelta(days=days)
    firebase.db().collection(COLLECTION).document(f"{scope}:{key}").set(
        {"scope": scope, "expiresAt": expires}
    )


def remembered(scope: str, key: str) -> bool:
    """Whether `key` was remembered in `scope` and has not expired (one read)."""
    snap = firebase.db().collection(COLLECTION).document(f"{scope}:{key}").get()
    if not snap.exists:
        return False
    expires = (snap.to_dict() or {}).get("expiresAt")
    return expires is None or expires > clock.now()
