"""hostgate: the official Python client of the Hostgate API. See sdk-python/README.md.

    import hostgate

    client = hostgate.Hostgate(api_key=os.environ["HOSTGATE_API_KEY"], base_url="https://api.example.com")
    domain = client.domains.create(hostname="shop.customer.com", destination_id="dst_…", idempotency_key="domain-shop.customer.com")
"""

from . import models, webhooks
from ._client import Hostgate
from ._version import VERSION
from .errors import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    HostgateError,
    InternalServerError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    WebhookSignatureError,
)
from .models import (
    BillingSession,
    DomainAnalytics,
    OrganizationAnalytics,
    Destination,
    DnsRecord,
    Domain,
    DomainHsts,
    DomainRedirect,
    DomainTls,
    Invoice,
    Page,
    ResponseMeta,
    RotatedWebhookEndpoint,
    Usage,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEndpointWithSecret,
    WebhookEvent,
    WidgetSession,
)
from .pagination import ListResult

__version__ = VERSION

__all__ = [
    "Hostgate",
    "VERSION",
    "models",
    "webhooks",
    "ListResult",
    "HostgateError",
    "InvalidRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "APIConnectionError",
    "APITimeoutError",
    "WebhookSignatureError",
    "BillingSession",
    "DomainAnalytics",
    "OrganizationAnalytics",
    "Destination",
    "DnsRecord",
    "Domain",
    "DomainHsts",
    "DomainRedirect",
    "DomainTls",
    "Invoice",
    "Page",
    "ResponseMeta",
    "RotatedWebhookEndpoint",
    "Usage",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEndpointWithSecret",
    "WebhookEvent",
    "WidgetSession",
]
