from __future__ import annotations

from collections.abc import Sequence

from ..models import WidgetSession
from ._base import Resource, body_of


class WidgetSessions(Resource):
    """Short-lived tokens for the ``<service-widget>`` in your customers' browsers."""

    def create(
        self,
        *,
        external_customer_id: str,
        allowed_origins: Sequence[str] | None = None,
        destination_id: str | None = None,
        idempotency_key: str,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> WidgetSession:
        """POST /v1/widget-sessions (scope widget:write).

        Hand only ``token`` to the browser (valid ``expires_in`` = 1800 s, bound to
        ``allowed_origins``); the API key stays on your server.
        """
        body = body_of(
            external_customer_id=external_customer_id,
            allowed_origins=None if allowed_origins is None else list(allowed_origins),
            destination_id=destination_id,
        )
        return self._one(WidgetSession, "POST", "/v1/widget-sessions", body=body, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)
