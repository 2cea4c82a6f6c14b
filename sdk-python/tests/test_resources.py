"""Every resource method against the real API: what is sent, and the typed answer."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from conftest import Control, Recorder, new_key, uniq

import hostgate
from hostgate import models


def test_destinations_create_get_list_delete(client: hostgate.Hostgate) -> None:
    created = client.destinations.create(url="https://app.example.com:8443", idempotency_key=new_key("dst"))
    assert isinstance(created, models.Destination)
    assert created.id.startswith("dst_")
    assert (created.url, created.host, created.port) == ("https://app.example.com:8443", "app.example.com", 8443)
    assert isinstance(created.created_at, datetime) and created.created_at.tzinfo is not None
    assert created.last_response is not None
    assert (created.last_response.status, created.last_response.idempotent_replayed, created.last_response.attempts) == (201, False, 1)
    assert (created.last_response.request_id or "").startswith("req_")

    read = client.destinations.get(created.id)
    assert read == created  # last_response is not part of equality
    assert read.last_response is not None and read.last_response.status == 200
    assert created.id in [d.id for d in client.destinations.list()]
    deleted = client.destinations.delete(created.id, idempotency_key=new_key("dst-del"))
    assert deleted.id == created.id
    assert created.id not in [d.id for d in client.destinations.list()]


def test_domains_create_get_list_verify_delete(client: hostgate.Hostgate) -> None:
    destination = client.destinations.create(url=f"https://dom-{uniq()}.example.com", idempotency_key=new_key())
    hostname = f"shop-{uniq()}.sdk-python.example"
    domain = client.domains.create(hostname=hostname, destination_id=destination.id, external_customer_id="cus_py", idempotency_key=new_key("dom"))
    assert isinstance(domain, models.Domain)
    assert (domain.hostname, domain.destination_id, domain.status, domain.external_customer_id) == (hostname, destination.id, "pending_dns", "cus_py")
    assert domain.dns_records == [models.DnsRecord(type="CNAME", name=hostname, value="edge.hostgate.test")]
    assert domain.verification.checked_at is None and domain.verification.dns_broken is False
    assert domain.bandwidth is None  # only GET /v1/domains/{id} reports it
    assert domain.last_response is not None and domain.last_response.status == 201

    read = client.domains.get(domain.id)
    assert read.hostname == hostname
    assert read.bandwidth is not None and read.bandwidth.bytes == 0
    assert read.bandwidth.period_start < read.bandwidth.period_end
    # Filters: the hostname as typed (case does not matter), status and customer together.
    assert [d.id for d in client.domains.list(hostname=hostname.upper())] == [domain.id]
    assert domain.id in [d.id for d in client.domains.list(external_customer_id="cus_py", status="pending_dns")]
    assert domain.id not in [d.id for d in client.domains.list(status="active")]

    verifying = client.domains.verify(domain.id, idempotency_key=new_key("verify"))
    assert verifying.last_response is not None and verifying.last_response.status == 202
    assert isinstance(verifying.verification.verify_requested_at, datetime)
    deleting = client.domains.delete(domain.id, idempotency_key=new_key("dom-del"))
    assert deleting.last_response is not None and deleting.last_response.status == 202
    assert deleting.status == "deleting"
    assert deleting.to_dict()["status"] == "deleting"
    assert deleting.to_dict()["created_at"].endswith("Z")


def test_domains_and_destinations_update(client: hostgate.Hostgate) -> None:
    first = client.destinations.create(url=f"https://upd-{uniq()}.example.com", idempotency_key=new_key())
    second = client.destinations.create(url=f"https://upd-{uniq()}.example.com", idempotency_key=new_key())
    apex = f"upd-{uniq()}.sdk-python.example"
    domain = client.domains.create(hostname=f"shop.{apex}", destination_id=first.id, idempotency_key=new_key("dom"))
    assert (domain.metadata, domain.redirect, domain.tls) == (None, None, models.DomainTls(min_version="1.2", hsts=None))
    changed = client.domains.update(
        domain.id,
        destination_id=second.id,
        metadata={"plan": "pro"},
        redirect={"to": "https://example.org/", "status": 308, "preserve_path": True},
        tls={"min_version": "1.3", "hsts": {"max_age": 600, "include_subdomains": False, "preload": False}},
        idempotency_key=new_key("dom-upd"),
    )
    assert (changed.destination_id, changed.metadata) == (second.id, {"plan": "pro"})
    assert changed.redirect == models.DomainRedirect(to="https://example.org/", status=308, preserve_path=True)
    assert changed.tls == models.DomainTls(min_version="1.3", hsts=models.DomainHsts(max_age=600, include_subdomains=False, preload=False))
    assert [d.id for d in client.domains.list(metadata=("plan", "pro"))] == [domain.id]
    cleared = client.domains.update(domain.id, metadata=None, redirect=None, idempotency_key=new_key("dom-clr"))
    assert (cleared.metadata, cleared.redirect) == (None, None)
    with pytest.raises(hostgate.InvalidRequestError):
        client.domains.update(domain.id, idempotency_key=new_key("dom-empty"))
    moved = client.destinations.update(second.id, url=f"https://moved-{uniq()}.example.com:8443", idempotency_key=new_key("dst-upd"))
    assert moved.port == 8443


def test_webhook_endpoints_create_get_list_update_rotate_delete(client: hostgate.Hostgate) -> None:
    endpoint = client.webhook_endpoints.create(
        url="https://hooks.example.com/python", events=["hostname.active"], description="python", idempotency_key=new_key("whe")
    )
    assert isinstance(endpoint, models.WebhookEndpointWithSecret)
    assert endpoint.id.startswith("whe_") and endpoint.secret.startswith("whsec_")
    assert (endpoint.events, endpoint.enabled, endpoint.description) == (["hostname.active"], True, "python")
    read = client.webhook_endpoints.get(endpoint.id)
    assert type(read) is models.WebhookEndpoint and not hasattr(read, "secret")
    assert endpoint.id in [e.id for e in client.webhook_endpoints.list(limit=100)]

    paused = client.webhook_endpoints.update(endpoint.id, enabled=False, idempotency_key=new_key("whe-upd"))
    assert (paused.enabled, paused.disabled_reason, paused.description) == (False, "manual", "python")
    cleared = client.webhook_endpoints.update(endpoint.id, description=None, events=["*"], idempotency_key=new_key("whe-upd2"))
    assert (cleared.description, cleared.events) == (None, ["*"])
    with pytest.raises(hostgate.InvalidRequestError) as nothing:
        client.webhook_endpoints.update(endpoint.id, idempotency_key=new_key("whe-empty"))
    assert (nothing.value.status, nothing.value.code) == (400, "invalid_request")

    rotated = client.webhook_endpoints.rotate_secret(endpoint.id, idempotency_key=new_key("whe-rot"))
    assert isinstance(rotated, models.RotatedWebhookEndpoint)
    assert rotated.secret.startswith("whsec_") and rotated.secret != endpoint.secret
    assert isinstance(rotated.previous_secret_expires_at, datetime) and rotated.previous_secret_expires_at > datetime.now(timezone.utc)

    client.webhook_endpoints.delete(endpoint.id, idempotency_key=new_key("whe-del"))
    with pytest.raises(hostgate.NotFoundError) as gone:
        client.webhook_endpoints.get(endpoint.id)
    assert gone.value.code == "webhook_endpoint_not_found"


def test_webhook_deliveries_list_get_attempts_retry(control: Control, base_url: str) -> None:
    # An organization of its own: the events of the other tests are not fanned out to it.
    with hostgate.Hostgate(api_key=control.new_org("Deliveries org"), base_url=base_url) as c:
        endpoint = c.webhook_endpoints.create(url=f"https://hooks.example.com/{uniq()}", idempotency_key=new_key())
        destination = c.destinations.create(url=f"https://whd-{uniq()}.example.com", idempotency_key=new_key())
        c.domains.create(hostname=f"whd-{uniq()}.sdk-python.example", destination_id=destination.id, idempotency_key=new_key())
        assert control.fan_out() >= 1
        deliveries = c.webhook_deliveries.list(endpoint_id=endpoint.id).to_list()
        assert len(deliveries) == 1
        delivery = deliveries[0]
        assert (delivery.endpoint_id, delivery.event, delivery.status, delivery.attempt_count) == (endpoint.id, "hostname.created", "pending", 0)
        assert delivery.event_id.startswith("evt_")
        assert [d.id for d in c.webhook_deliveries.list(status="pending")] == [delivery.id]
        assert c.webhook_deliveries.list(status="succeeded").to_list() == []
        assert c.webhook_deliveries.get(delivery.id).id == delivery.id
        attempts = c.webhook_deliveries.attempts(delivery.id, limit=5).first_page()
        assert (attempts.data, attempts.has_more, attempts.next_cursor) == ([], False, None)
        retried = c.webhook_deliveries.retry(delivery.id, idempotency_key=new_key("retry"))
        assert (retried.id, retried.status, retried.attempt_count) == (delivery.id, "pending", 0)
        with pytest.raises(hostgate.NotFoundError) as missing:
            c.webhook_deliveries.attempts("whd_doesnotexist").first_page()
        assert (missing.value.status, missing.value.code) == (404, "webhook_delivery_not_found")


def test_widget_sessions_create(client: hostgate.Hostgate) -> None:
    destination = client.destinations.create(url=f"https://wss-{uniq()}.example.com", idempotency_key=new_key())
    session = client.widget_sessions.create(
        external_customer_id="cus_widget", allowed_origins=["https://app.example.com"], destination_id=destination.id, idempotency_key=new_key("wss")
    )
    assert isinstance(session, models.WidgetSession)
    assert session.token.startswith("wst_")
    assert (session.expires_in, session.external_customer_id, session.allowed_origins, session.destination_id) == (
        1800, "cus_widget", ["https://app.example.com"], destination.id,
    )
    assert session.expires_at > session.created_at


def test_usage_and_billing_send_what_the_contract_asks(control: Control, base_url: str, recorder: Recorder) -> None:
    # The built-in local payment provider: usage and checkout answer; with no subscription yet the
    # portal and a plan change are refused with subscription_missing (409).
    with hostgate.Hostgate(api_key=control.new_org("Billing org"), base_url=base_url, http_client=recorder.http) as c:
        usage = c.usage.get()
        assert isinstance(usage, models.Usage)
        assert (usage.billing_status, usage.active_hostnames, usage.peak_hostnames) == ("inactive", 0, 0)
        assert usage.plan in ("starter", "growth", "scale") and isinstance(usage.bandwidth_gb, float)
        checkout = c.billing.create_checkout_session(plan="growth")
        assert isinstance(checkout, models.BillingSession) and checkout.id and checkout.url
        for call in (
            lambda: c.billing.create_portal_session(idempotency_key=new_key("portal")),
            lambda: c.billing.change_plan(plan="scale", idempotency_key=new_key("plan")),
        ):
            with pytest.raises(hostgate.ConflictError) as refused:
                call()
            assert (refused.value.status, refused.value.code) == (409, "subscription_missing")
        assert c.billing.invoices.list().to_list() == []
        with pytest.raises(hostgate.NotFoundError) as no_invoice:
            c.billing.invoices.get("inv_doesnotexist")
        assert no_invoice.value.status == 404

    sent = [
        (r.method, r.url.path, "key" if "idempotency-key" in r.headers else "no key", json.loads(r.content) if r.content else None)
        for r in recorder.requests
    ]
    assert sent == [
        ("GET", "/v1/usage", "no key", None),
        ("POST", "/v1/billing/checkout-session", "no key", {"plan": "growth"}),
        ("POST", "/v1/billing/portal-session", "key", {}),
        ("POST", "/v1/billing/plan", "key", {"plan": "scale"}),
        ("GET", "/v1/billing/invoices", "no key", None),
        ("GET", "/v1/billing/invoices/inv_doesnotexist", "no key", None),
    ]
    assert all(r.headers["user-agent"] == f"hostgate-python/{hostgate.VERSION}" for r in recorder.requests)
    assert all(r.headers["authorization"].startswith("Bearer hg_live_") for r in recorder.requests)


def test_writes_without_a_body_send_no_content_type(client: hostgate.Hostgate, api_key: str, base_url: str, recorder: Recorder) -> None:
    destination = client.destinations.create(url=f"https://nobody-{uniq()}.example.com", idempotency_key=new_key())
    with hostgate.Hostgate(api_key=api_key, base_url=base_url, http_client=recorder.http) as c:
        c.destinations.delete(destination.id, idempotency_key=new_key())
    (request,) = recorder.requests
    assert request.content == b"" and "content-type" not in request.headers
