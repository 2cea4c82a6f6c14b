from __future__ import annotations

from .._transport import Transport, path_of
from ..models import BillingSession, Invoice, Plan, Usage
from ..pagination import ListResult
from ._base import Resource, body_of


class Invoices(Resource):
    """The usage invoices of closed periods (any key of the organization): ``client.billing.invoices``."""

    def list(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> ListResult[Invoice]:
        """GET /v1/billing/invoices: newest period first."""
        return self._list(Invoice, "/v1/billing/invoices", {"limit": limit}, cursor=cursor, timeout=timeout, request_id=request_id, max_retries=max_retries)

    def get(self, invoice_id: str, /, *, timeout: float | None = None, request_id: str | None = None, max_retries: int | None = None) -> Invoice:
        """GET /v1/billing/invoices/{id}: the invoice with its items."""
        return self._one(Invoice, "GET", path_of("billing/invoices", invoice_id), timeout=timeout, request_id=request_id, max_retries=max_retries)


class Billing(Resource):
    """The subscription: checkout, the customer portal, plan changes (scope billing:write); invoices."""

    def __init__(self, transport: Transport) -> None:
        super().__init__(transport)
        self.invoices = Invoices(transport)

    def create_checkout_session(
        self,
        *,
        plan: Plan,
        success_url: str | None = None,
        cancel_url: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> BillingSession:
        """POST /v1/billing/checkout-session: ``id`` and ``url``; send the payer to ``url``.

        The contract's one write without an Idempotency-Key: each call opens a new session, and the
        client never repeats it on its own.
        """
        body = body_of(plan=plan, success_url=success_url, cancel_url=cancel_url)
        return self._one(BillingSession, "POST", "/v1/billing/checkout-session", body=body, takes_key=False, timeout=timeout, request_id=request_id)

    def create_portal_session(
        self,
        *,
        return_url: str | None = None,
        idempotency_key: str,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> BillingSession:
        """POST /v1/billing/portal-session: a customer-portal ``url`` (invoices, payment methods, cancellation)."""
        body = body_of(return_url=return_url)
        return self._one(BillingSession, "POST", "/v1/billing/portal-session", body=body, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def change_plan(self, *, plan: Plan, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> Usage:
        """POST /v1/billing/plan: change the plan; answers the usage under the new plan."""
        return self._one(Usage, "POST", "/v1/billing/plan", body={"plan": plan}, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)
