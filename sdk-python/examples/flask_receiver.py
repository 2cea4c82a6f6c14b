"""A webhook receiver with Flask: verify each delivery, then handle the event.

    pip install ./sdk-python flask
    HOSTGATE_WEBHOOK_SECRET=whsec_… python sdk-python/examples/flask_receiver.py

Point a webhook endpoint at http(s)://<this host>:8000/hostgate/webhooks. During a secret rotation
set HOSTGATE_WEBHOOK_SECRET to both secrets, comma-separated (new first): either one verifies.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from flask import Flask, request

import hostgate
from hostgate.models import WebhookEvent


def handle(event: WebhookEvent) -> None:
    # Delivery is at least once: de-duplicate on event.id (also the Service-Event-Id header).
    # Answer quickly (within 15 s); hand long work to a queue.
    print(f"{event.id} {event.event}: {event.data.hostname} is {event.data.status}")


def create_app(secrets: Sequence[str], on_event: Callable[[WebhookEvent], None] = handle) -> Flask:
    app = Flask(__name__)

    @app.post("/hostgate/webhooks")
    def receive() -> tuple[str, int]:
        try:
            event = hostgate.webhooks.construct_event(
                request.get_data(),  # the raw body: a re-serialised body would not verify
                request.headers.get(hostgate.webhooks.SIGNATURE_HEADER),
                list(secrets),
            )
        except hostgate.WebhookSignatureError as error:
            return f"{error.code}: {error}", 400
        on_event(event)
        return "ok", 200

    return app


if __name__ == "__main__":
    create_app(os.environ["HOSTGATE_WEBHOOK_SECRET"].split(",")).run(port=8000)
