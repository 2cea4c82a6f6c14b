from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._transport import path_of
from ..models import RotatedWebhookEndpoint, WebhookEndpoint, WebhookEndpointWithSecret
from ..pagination import ListResult
from ._base import UNSET, Resource, Unset, body_of


class WebhookEndpoints(Resource):
    """Where signed event deliveries go. The signing ``secret`` is shown only by create and rotate_secret."""

    def create(
        self,
        *,
        url: str,
        events: Sequence[str] | None = None,
        description: str | None = None,
        idempotency_key: str,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> WebhookEndpointWithSecret:
        """POST /v1/webhook-endpoints (scope webhooks:write): the endpoint with its ``secret``, shown once.

        ``events``: ``["*"]`` (the default: every event) or event kinds such as ``"hostname.active"``.
        """
        body = body_of(url=url, events=None if events is None else list(events), description=description)
        return self._one(WebhookEndpointWithSecret, "POST", "/v1/webhook-endpoints", body=body, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def list(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> ListResult[WebhookEndpoint]:
        """GET /v1/webhook-endpoints: newest first."""
        return self._list(WebhookEndpoint, "/v1/webhook-endpoints", {"limit": limit}, cursor=cursor, timeout=timeout, request_id=request_id, max_retries=max_retries)

    def get(self, endpoint_id: str, /, *, timeout: float | None = None, request_id: str | None = None, max_retries: int | None = None) -> WebhookEndpoint:
        """GET /v1/webhook-endpoints/{id}."""
        return self._one(WebhookEndpoint, "GET", path_of("webhook-endpoints", endpoint_id), timeout=timeout, request_id=request_id, max_retries=max_retries)

    def update(
        self,
        endpoint_id: str,
        /,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        enabled: bool | None = None,
        description: str | None | Unset = UNSET,
        idempotency_key: str,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> WebhookEndpoint:
        """PATCH /v1/webhook-endpoints/{id}: the fields given change (at least one).

        ``enabled=False`` pauses deliveries, ``True`` resumes them; ``description=None`` clears it.
        """
        body: dict[str, Any] = body_of(url=url, events=None if events is None else list(events), enabled=enabled)
        if not isinstance(description, Unset):
            body["description"] = description
        return self._one(WebhookEndpoint, "PATCH", path_of("webhook-endpoints", endpoint_id), body=body, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def delete(self, endpoint_id: str, /, *, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> WebhookEndpoint:
        """DELETE /v1/webhook-endpoints/{id}."""
        return self._one(WebhookEndpoint, "DELETE", path_of("webhook-endpoints", endpoint_id), idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def rotate_secret(self, endpoint_id: str, /, *, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> RotatedWebhookEndpoint:
        """POST /v1/webhook-endpoints/{id}/rotate-secret: a new ``secret``, shown once.

        The old secret keeps signing beside it for 24 h (deliveries carry two ``v1=`` signatures), so
        receivers can switch without losing a delivery.
        """
        return self._one(RotatedWebhookEndpoint, "POST", path_of("webhook-endpoints", endpoint_id, "/rotate-secret"), idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)
