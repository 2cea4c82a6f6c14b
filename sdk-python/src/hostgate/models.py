"""The API's resources as typed dataclasses, field for field as the API answers them.

Field names are the API's (``destination_id``, ``external_customer_id``); timestamps are aware
``datetime`` objects; fixed value sets are ``Literal`` string types (plain ``str`` at run time, so
``domain.status == "active"`` works and a value added to the API later still comes through).
Results carry the HTTP details of the call that returned them in ``last_response``.

The test suite compares every model with the OpenAPI document the API serves
(tests/test_models_match_document.py), so a field the API adds or drops fails there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Generic, Literal, TypeVar

from ._model_base import ResponseMeta, _Model
from .models_analytics import (
    AnalyticsBucket,
    AnalyticsInterval,
    AnalyticsSort,
    AnalyticsTotals,
    DomainAnalytics,
    OrganizationAnalytics,
    TopHostname,
)

__all__ = [
    "ResponseMeta",
    "DomainStatus",
    "DeliveryStatus",
    "WebhookEventKind",
    "Plan",
    "BillingStatus",
    "DnsRecord",
    "Problem",
    "Verification",
    "OwnershipTrack",
    "CertificateTrack",
    "DomainBandwidth",
    "DomainRedirect",
    "DomainHsts",
    "DomainTls",
    "Domain",
    "Destination",
    "WebhookEndpoint",
    "WebhookEndpointWithSecret",
    "RotatedWebhookEndpoint",
    "WebhookDelivery",
    "WebhookAttempt",
    "WidgetSession",
    "Usage",
    "BillingSession",
    "InvoiceItem",
    "Invoice",
    "AnalyticsInterval",
    "AnalyticsSort",
    "AnalyticsTotals",
    "AnalyticsBucket",
    "DomainAnalytics",
    "TopHostname",
    "OrganizationAnalytics",
    "Page",
    "WebhookCertificateFacts",
    "WebhookEventData",
    "WebhookEvent",
]

DomainStatus = Literal["pending_dns", "pending_certificate", "active", "suspended", "deleting", "deleted", "failed"]
DeliveryStatus = Literal["pending", "succeeded", "failed"]
WebhookEventKind = Literal[
    "hostname.created",
    "hostname.verified",
    "hostname.active",
    "hostname.failed",
    "hostname.suspended",
    "hostname.deleting",
    "hostname.deleted",
    "hostname.dns_broken",
    "hostname.updated",
    "hostname.certificate_renewed",
    "hostname.certificate_expiring",
    "hostname.certificate_failed",
]
Plan = Literal["starter", "growth", "scale"]
BillingStatus = Literal["inactive", "active", "past_due", "canceled"]
DnsRecordType = Literal["CNAME", "A", "AAAA", "TXT"]


@dataclass
class DnsRecord(_Model):
    type: DnsRecordType
    #: The hostname to set the record on.
    name: str
    value: str


@dataclass
class Problem(_Model):
    #: Stable code: wrong_target, conflicting_records, caa_forbids_ca, nxdomain, no_records, …
    code: str
    message: str


@dataclass
class Verification(_Model):
    #: When DNS was last checked; None before the first check.
    checked_at: datetime | None
    expected: list[DnsRecord]
    #: What the check found; None before the first check.
    found: list[DnsRecord] | None
    #: What blocks progress; None when nothing does.
    problem: Problem | None
    verify_requested_at: datetime | None
    #: True while an active domain's DNS no longer points at the service (it keeps serving).
    dns_broken: bool


@dataclass
class OwnershipTrack(_Model):
    """The ownership track of a zero-downtime move (docs/zero-downtime-moves.md)."""

    status: Literal["pending", "verified", "not_required"]
    method: Literal["dns_txt", "dns_target"] | None
    record: DnsRecord | None
    checked_at: datetime | None
    verified_at: datetime | None
    problem: Problem | None


@dataclass
class CertificateTrack(_Model):
    """The certificate track, with the facts of the domain's newest certificate (None while it has none)."""

    #: ``blocked``: no order can be placed while ``problem`` holds (delegation CNAME or CAA).
    status: Literal["none", "blocked", "pending_validation", "issued", "deployed"]
    method: Literal["dns-01", "http-01"] | None
    problem: Problem | None
    updated_at: datetime | None
    not_before: datetime | None = None
    not_after: datetime | None = None
    #: Lowercase hex.
    serial: str | None = None
    #: The issuing CA's distinguished name.
    issuer: str | None = None
    #: ``managed``: ordered by Hostgate over ACME; ``custom``: your own.
    source: Literal["managed", "custom"] | None = None
    #: When renewal is due (two thirds of the lifetime); for your own certificate (``source: custom``),
    #: when a managed one replaces it if DNS points at Hostgate (3 days before ``not_after``).
    renews_at: datetime | None = None


@dataclass
class DomainBandwidth(_Model):
    """What the edge carried for a hostname in the current usage period (reported, never billed)."""

    period_start: datetime
    period_end: datetime
    bytes_in: int
    bytes_out: int
    bytes: int


@dataclass
class DomainRedirect(_Model):
    """The redirect the edge answers a hostname with instead of proxying (issue 23)."""

    #: An https URL, or another hostname of your organization.
    to: str
    #: 301, 302, 307 or 308.
    status: Literal[301, 302, 307, 308]
    #: Whether the request's path and query are appended to ``to``.
    preserve_path: bool


@dataclass
class DomainHsts(_Model):
    max_age: int
    include_subdomains: bool
    preload: bool


@dataclass
class DomainTls(_Model):
    #: The lowest TLS version the edge accepts for the hostname.
    min_version: Literal["1.2", "1.3"]
    #: Strict-Transport-Security for the hostname; None: none.
    hsts: DomainHsts | None


@dataclass
class Domain(_Model):
    id: str
    #: Lowercase, punycode for internationalised names.
    hostname: str
    destination_id: str
    status: DomainStatus
    #: The records your customer sets.
    dns_records: list[DnsRecord]
    verification: Verification
    ownership: OwnershipTrack
    certificate: CertificateTrack
    external_customer_id: str | None
    #: Your annotations (string values); None when none are set. Never shown to the widget.
    metadata: dict[str, str] | None
    #: The redirect the edge answers with; None: proxied to the destination.
    redirect: DomainRedirect | None
    tls: DomainTls
    created_at: datetime
    updated_at: datetime
    #: Only in ``domains.get``: this period's traffic.
    bandwidth: DomainBandwidth | None = None


@dataclass
class Destination(_Model):
    id: str
    #: Your application's HTTPS origin, e.g. https://app.example.com.
    url: str
    host: str
    #: 443 or 8443.
    port: int
    created_at: datetime
    updated_at: datetime


WebhookEventFilter = Literal[
    "*",
    "hostname.created",
    "hostname.verified",
    "hostname.active",
    "hostname.failed",
    "hostname.suspended",
    "hostname.deleting",
    "hostname.deleted",
    "hostname.dns_broken",
    "hostname.updated",
    "hostname.certificate_renewed",
    "hostname.certificate_expiring",
    "hostname.certificate_failed",
]


@dataclass
class WebhookEndpoint(_Model):
    id: str
    url: str
    description: str | None
    #: ``["*"]`` (every event) or a list of event kinds.
    events: list[WebhookEventFilter]
    enabled: bool
    #: ``manual`` (update enabled=False) or set by delivery (e.g. the endpoint answered 410 Gone).
    disabled_reason: str | None
    created_at: datetime
    updated_at: datetime


@dataclass
class WebhookEndpointWithSecret(WebhookEndpoint):
    """What ``webhook_endpoints.create`` answers: the signing ``secret``, shown only this once."""

    secret: str


@dataclass
class RotatedWebhookEndpoint(WebhookEndpointWithSecret):
    """What ``rotate_secret`` answers: the new ``secret``; the previous one signs beside it until ``previous_secret_expires_at``."""

    previous_secret_expires_at: datetime | None


@dataclass
class WebhookDelivery(_Model):
    id: str
    endpoint_id: str
    #: The event (``evt_…``): the delivered body's ``id`` and ``Service-Event-Id``.
    event_id: str
    event: WebhookEventKind
    status: DeliveryStatus
    #: Attempts finished since creation or the last retry request.
    attempt_count: int
    #: True while an attempt is out: ``next_attempt_at`` is then None.
    attempting: bool
    last_response_code: int | None
    last_error: str | None
    next_attempt_at: datetime | None
    created_at: datetime
    updated_at: datetime


@dataclass
class WebhookAttempt(_Model):
    #: ``wha_…``
    id: str
    #: The attempt's number in the delivery's life, continuing across retry requests.
    attempt_number: int
    started_at: datetime
    duration_ms: int
    response_code: int | None
    #: The first 1 KiB of the response body.
    response_body: str | None
    error: str | None


@dataclass
class WidgetSession(_Model):
    id: str
    #: For the browser (``wst_…``); shown once. The API key stays on your server.
    token: str
    expires_at: datetime
    expires_in: int
    external_customer_id: str
    allowed_origins: list[str] | None
    destination_id: str | None
    created_at: datetime


@dataclass
class Usage(_Model):
    plan: Plan
    billing_status: BillingStatus
    period_start: datetime
    period_end: datetime
    active_hostnames: int
    peak_hostnames: int
    included_hostnames: int
    overage_hostnames: int
    estimated_overage_cents: int
    bandwidth_bytes: int
    bandwidth_gb: float
    included_bandwidth_gb: float


@dataclass
class BillingSession(_Model):
    """A checkout or customer-portal session: send the payer's browser to ``url``."""

    id: str
    url: str


@dataclass
class InvoiceItem(_Model):
    kind: Literal["overage_hostnames"]
    quantity: int
    unit_amount_cents: int
    amount_cents: int
    description: str


@dataclass
class Invoice(_Model):
    id: str
    period_start: datetime
    period_end: datetime
    plan: Plan
    peak_hostnames: int
    included_hostnames: int
    overage_hostnames: int
    unit_amount_cents: int
    total_cents: int
    currency: Literal["eur"]
    provider_invoice_id: str | None
    items: list[InvoiceItem]
    created_at: datetime


T = TypeVar("T")


@dataclass
class Page(Generic[T]):
    """One page of a list, newest first; pass ``next_cursor`` as ``cursor`` for the next one."""

    data: list[T]
    has_more: bool
    next_cursor: str | None
    last_response: ResponseMeta | None = None


@dataclass
class WebhookCertificateFacts(_Model):
    """The certificate a ``hostname.certificate_*`` event is about."""

    serial: str
    issuer: str
    source: Literal["managed", "custom"]
    not_before: datetime
    not_after: datetime
    renews_at: datetime


@dataclass
class WebhookEventData(_Model):
    """The domain an event is about, as it was when the event happened."""

    id: str
    hostname: str
    status: DomainStatus
    destination_id: str
    external_customer_id: str | None
    #: Your metadata of the domain when the event happened; None when none is set.
    metadata: dict[str, str] | None = None
    #: ``hostname.updated`` only: the fields that changed.
    changes: list[Literal["destination_id", "metadata", "redirect", "external_customer_id", "tls"]] | None = None
    #: ``hostname.certificate_*`` events only: the certificate.
    certificate: WebhookCertificateFacts | None = None
    #: ``hostname.certificate_expiring`` only: 14 or 3.
    days_left: int | None = None
    #: ``hostname.certificate_failed`` only: why the renewal fails.
    problem: Problem | None = None


@dataclass
class WebhookEvent(_Model):
    """A delivery's body. ``id`` (``evt_…``) is the same on every retry of one event: de-duplicate on it."""

    id: str
    event: WebhookEventKind
    #: When the event happened (not when it was sent).
    created_at: datetime
    data: WebhookEventData
