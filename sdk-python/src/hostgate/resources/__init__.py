"""The API's resources, one class each, reached as attributes of :class:`hostgate.Hostgate`."""

from .analytics import Analytics
from .billing import Billing, Invoices
from .destinations import Destinations
from .domains import Domains
from .usage import Usage
from .webhook_deliveries import WebhookDeliveries
from .webhook_endpoints import WebhookEndpoints
from .widget_sessions import WidgetSessions

__all__ = ["Analytics", "Billing", "Invoices", "Destinations", "Domains", "Usage", "WebhookDeliveries", "WebhookEndpoints", "WidgetSessions"]
