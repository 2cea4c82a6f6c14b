"""The client: ``Hostgate(api_key=…, base_url=…)``, one attribute per API resource."""

from __future__ import annotations

import os
import re
import uuid
from types import TracebackType

import httpx

from . import webhooks as _webhooks
from ._transport import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_READ_RETRIES,
    DEFAULT_MAX_RETRY_DELAY,
    DEFAULT_TIMEOUT,
    Transport,
)
from .resources import Analytics, Billing, Destinations, Domains, Usage, WebhookDeliveries, WebhookEndpoints, WidgetSessions

_KEY_PREFIX = re.compile(r"^[A-Za-z0-9_.:-]{0,64}$")


class Hostgate:
    """The Hostgate API.

    ``api_key`` (``hg_live_…``, keep it on your server) and ``base_url`` (the API origin, e.g.
    ``https://api.example.com``; a trailing ``/v1`` is accepted) default to the environment
    variables ``HOSTGATE_API_KEY`` and ``HOSTGATE_BASE_URL``.

    ``timeout``: seconds per attempt to send the request and for each read of the answer (default
    30); ``connect_timeout``: seconds to connect (default 10). ``max_read_retries``: retries of a
    read after 429, 503 or a connection failure (default 2; 0 disables; writes are never retried).
    ``max_retry_delay``: the longest single wait before a read retry, in seconds (default 10): a
    ``Retry-After`` beyond it is not waited for, the error is raised. ``http_client``: an
    ``httpx.Client`` of your own (proxies, event hooks); you close it.

    Use it as a context manager, or call ``close()``, to release its connections.
    """

    #: Verifying deliveries needs no API key: also ``hostgate.webhooks``.
    webhooks = _webhooks

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_read_retries: int = DEFAULT_MAX_READ_RETRIES,
        max_retry_delay: float = DEFAULT_MAX_RETRY_DELAY,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._transport = Transport(
            api_key=api_key if api_key is not None else os.environ.get("HOSTGATE_API_KEY", ""),
            base_url=base_url if base_url is not None else os.environ.get("HOSTGATE_BASE_URL", ""),
            timeout=timeout,
            connect_timeout=connect_timeout,
            max_read_retries=max_read_retries,
            max_retry_delay=max_retry_delay,
            http_client=http_client,
        )
        self.destinations = Destinations(self._transport)
        self.domains = Domains(self._transport)
        self.webhook_endpoints = WebhookEndpoints(self._transport)
        self.webhook_deliveries = WebhookDeliveries(self._transport)
        self.widget_sessions = WidgetSessions(self._transport)
        self.usage = Usage(self._transport)
        self.billing = Billing(self._transport)
        self.analytics = Analytics(self._transport)

    @staticmethod
    def generate_key(prefix: str = "hg") -> str:
        """A random idempotency key (``<prefix>_<uuid>``) for a write that has no natural business key.

        Generate it once per logical operation and keep it: a retry must send the same key, or the
        API cannot recognise it as a retry and may apply the write twice.
        """
        if not isinstance(prefix, str) or not _KEY_PREFIX.match(prefix):
            raise ValueError("generate_key(prefix): up to 64 of A-Z a-z 0-9 _ . : -")
        return f"{prefix}_{uuid.uuid4()}" if prefix else str(uuid.uuid4())

    def close(self) -> None:
        """Closes the connections this client opened (not those of an ``http_client`` you passed)."""
        self._transport.close()

    def __enter__(self) -> Hostgate:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
