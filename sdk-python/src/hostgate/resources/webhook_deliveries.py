from __future__ import annotations

from .._transport import path_of
from ..models import DeliveryStatus, WebhookAttempt, WebhookDelivery
from ..pagination import ListResult
from ._base import Resource


class WebhookDeliveries(Resource):
    """One event sent to one endpoint: status, attempt count, last response, next attempt."""

    def list(
        self,
        *,
        endpoint_id: str | None = None,
        status: DeliveryStatus | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> ListResult[WebhookDelivery]:
        """GET /v1/webhook-deliveries: newest first; filters ``endpoint_id``, ``status``."""
        query = {"endpoint_id": endpoint_id, "status": status, "limit": limit}
        return self._list(WebhookDelivery, "/v1/webhook-deliveries", query, cursor=cursor, timeout=timeout, request_id=request_id, max_retries=max_retries)

    def get(self, delivery_id: str, /, *, timeout: float | None = None, request_id: str | None = None, max_retries: int | None = None) -> WebhookDelivery:
        """GET /v1/webhook-deliveries/{id}."""
        return self._one(WebhookDelivery, "GET", path_of("webhook-deliveries", delivery_id), timeout=timeout, request_id=request_id, max_retries=max_retries)

    def attempts(
        self,
        delivery_id: str,
        /,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> ListResult[WebhookAttempt]:
        """GET /v1/webhook-deliveries/{id}/attempts: newest first (time, duration, response code, first 1 KiB of the body)."""
        path = path_of("webhook-deliveries", delivery_id, "/attempts")
        return self._list(WebhookAttempt, path, {"limit": limit}, cursor=cursor, timeout=timeout, request_id=request_id, max_retries=max_retries)

    def retry(self, delivery_id: str, /, *, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> WebhookDelivery:
        """POST /v1/webhook-deliveries/{id}/retry (scope webhooks:write): back to ``pending``, attempted at once."""
        return self._one(WebhookDelivery, "POST", path_of("webhook-deliveries", delivery_id, "/retry"), idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)
