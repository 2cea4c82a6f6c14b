"""Receiving webhooks: verify a delivery's ``Service-Signature`` and get the event back.

The header is ``t=<unix seconds>,v1=<hex>[,v1=<hex>…]``; each ``v1`` is the hex HMAC-SHA256, keyed
with an endpoint secret (the whole ``whsec_…`` string), of ``<t>.<raw body>``. While a secret is
being rotated a delivery carries one ``v1`` per live secret, so either secret verifies it. The
rules are those of the TypeScript verifier (sdk/webhooks.ts): verification needs the raw body
exactly as received (a body parsed and re-serialised is a different text and will not verify).

    event = hostgate.webhooks.construct_event(request.get_data(), request.headers.get("Service-Signature"), secret)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from collections.abc import Sequence
from typing import Any, get_args

from ._decode import DecodeError, decode_model
from .errors import WebhookSignatureError
from .models import WebhookEvent, WebhookEventKind

__all__ = [
    "SIGNATURE_HEADER",
    "EVENT_ID_HEADER",
    "DEFAULT_TOLERANCE_SECONDS",
    "EVENT_KINDS",
    "WebhookSignatureError",
    "construct_event",
    "verify",
    "compute_signature",
    "signature_header",
]

SIGNATURE_HEADER = "Service-Signature"
EVENT_ID_HEADER = "Service-Event-Id"
#: How far a signature's timestamp may be from now, either way (the contract's default).
DEFAULT_TOLERANCE_SECONDS = 300
EVENT_KINDS: tuple[str, ...] = get_args(WebhookEventKind)

RawBody = bytes | bytearray | memoryview | str
Secrets = str | Sequence[str]

_MAX_HEADER_LENGTH = 8192
_HEX_SIGNATURE = re.compile(r"^[0-9a-f]{64}$")
_TIMESTAMP = re.compile(r"^\d{1,12}$")


def _raw_bytes(body: object) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise TypeError(
        "the webhook verifier needs the raw request body (bytes or str), not a parsed object: "
        "read the body unparsed, e.g. Flask's request.get_data() or FastAPI's await request.body()"
    )


def _secret_list(secret: object) -> list[str]:
    secrets = [secret] if isinstance(secret, str) else list(secret) if isinstance(secret, Sequence) else []
    out = [s for s in secrets if isinstance(s, str) and s != ""]
    if not out:
        raise TypeError("the webhook verifier needs the endpoint secret (whsec_…), or a list of them while rotating")
    return out


def compute_signature(body: RawBody, secret: str, timestamp: int) -> str:
    """The hex HMAC-SHA256 of ``<timestamp>.<body>`` keyed with ``secret``."""
    mac = hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode("ascii"), hashlib.sha256)
    mac.update(_raw_bytes(body))
    return mac.hexdigest()


def signature_header(body: RawBody, secret: Secrets, timestamp: int | None = None) -> str:
    """A valid ``Service-Signature`` for ``body`` (to test your receiver): ``t=<timestamp>,v1=<sig>`` per secret."""
    secrets = _secret_list(secret)
    at = int(time.time()) if timestamp is None else timestamp
    if isinstance(at, bool) or not isinstance(at, int) or at < 0:
        raise ValueError("timestamp must be a non-negative integer (unix seconds)")
    return ",".join([f"t={at}", *(f"v1={compute_signature(body, s, at)}" for s in secrets)])


def _parse_header(header: object) -> tuple[int, list[bytes]]:
    """The header's timestamp and ``v1`` signatures; unknown schemes (v0, v2…) are ignored."""
    if header is None:
        raise WebhookSignatureError("missing_header", f"no {SIGNATURE_HEADER} header")
    if isinstance(header, (list, tuple)) and all(isinstance(h, str) for h in header):
        text = ",".join(header)
    elif isinstance(header, str):
        text = header
    else:
        raise WebhookSignatureError("missing_header", f"the {SIGNATURE_HEADER} header is not a string")
    if text.strip() == "":
        raise WebhookSignatureError("missing_header", f"the {SIGNATURE_HEADER} header is empty")
    if len(text) > _MAX_HEADER_LENGTH:
        raise WebhookSignatureError("malformed_header", f"the {SIGNATURE_HEADER} header is too long")
    timestamp: int | None = None
    signatures: list[bytes] = []
    for part in text.split(","):
        key, eq, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or key == "":
            raise WebhookSignatureError("malformed_header", f"malformed {SIGNATURE_HEADER} element {part.strip()[:40]!r}: expected key=value")
        if key == "t":
            if timestamp is not None:
                raise WebhookSignatureError("malformed_header", f"{SIGNATURE_HEADER} has more than one timestamp")
            if not _TIMESTAMP.match(value):
                raise WebhookSignatureError("malformed_header", f"{SIGNATURE_HEADER} timestamp is not unix seconds")
            timestamp = int(value)
        elif key == "v1":
            if not _HEX_SIGNATURE.match(value):
                raise WebhookSignatureError("malformed_header", f"{SIGNATURE_HEADER} v1 signature is not 64 lowercase hex digits")
            signatures.append(bytes.fromhex(value))
    if timestamp is None:
        raise WebhookSignatureError("malformed_header", f"{SIGNATURE_HEADER} has no timestamp (t=…)")
    if not signatures:
        raise WebhookSignatureError("malformed_header", f"{SIGNATURE_HEADER} has no v1 signature")
    return timestamp, signatures


def verify(
    body: RawBody,
    header: str | Sequence[str] | None,
    secret: Secrets,
    tolerance: float = DEFAULT_TOLERANCE_SECONDS,
    *,
    now: float | None = None,
) -> dict[str, Any]:
    """Checks the signature and returns the signed JSON as a dict, without checking it is a known event.

    Raises :class:`WebhookSignatureError` (answer 400 and do not process the body) when the header is
    missing or malformed, its timestamp is more than ``tolerance`` seconds from now (stale or from
    the future), or no ``v1`` signature matches any of the given secrets. Signatures are compared in
    constant time (``hmac.compare_digest``).
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not tolerance >= 0:
        raise ValueError("tolerance must be a non-negative number of seconds")
    secrets = _secret_list(secret)
    raw = _raw_bytes(body)
    timestamp, signatures = _parse_header(header)
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        direction = "older" if current > timestamp else "newer"
        raise WebhookSignatureError(
            "timestamp_outside_tolerance",
            f"the signature timestamp is {direction} than the {tolerance:g} s tolerance allows (possible replay or clock skew)",
        )
    matched = False
    for s in secrets:
        expected = bytes.fromhex(compute_signature(raw, s, timestamp))
        # Every comparison runs, whatever matched first: timing says nothing about which one did.
        for candidate in signatures:
            if hmac.compare_digest(expected, candidate):
                matched = True
    if not matched:
        raise WebhookSignatureError(
            "no_matching_signature",
            "no signature matches the secret: check the endpoint secret, and that the body is the raw, unmodified request body",
        )
    try:
        event = json.loads(raw)
    except ValueError:
        raise WebhookSignatureError("invalid_payload", "the signed body is not JSON") from None
    if not isinstance(event, dict) or not isinstance(event.get("id"), str) or not isinstance(event.get("event"), str):
        raise WebhookSignatureError("invalid_payload", "the signed body is not a Hostgate event")
    return event


def construct_event(
    body: RawBody,
    header: str | Sequence[str] | None,
    secret: Secrets,
    tolerance: float = DEFAULT_TOLERANCE_SECONDS,
    *,
    now: float | None = None,
) -> WebhookEvent:
    """:func:`verify`, then checks the event's shape: a typed :class:`~hostgate.models.WebhookEvent`.

    ``secret`` is the endpoint's ``whsec_…`` secret, or a list of them while you switch to a rotated
    one. ``header`` is the ``Service-Signature`` header's value. An event kind this client does not
    know raises ``WebhookSignatureError`` with code ``invalid_payload`` (a newer client may know it).
    """
    event = verify(body, header, secret, tolerance, now=now)
    if event["event"] not in EVENT_KINDS:
        raise WebhookSignatureError(
            "invalid_payload",
            f"unknown event kind {event['event']!r}: this client knows {', '.join(EVENT_KINDS)} (a newer client may know more)",
        )
    try:
        return decode_model(WebhookEvent, event, "event")
    except DecodeError as error:
        raise WebhookSignatureError(
            "invalid_payload",
            f"the signed body is not a Hostgate event ({error}): expected {{id, event, created_at, data: {{id, hostname, status, destination_id, external_customer_id}}}}",
        ) from None
