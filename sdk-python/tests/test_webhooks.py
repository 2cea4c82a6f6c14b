"""Receiving webhooks: real deliveries — made by the API's delivery activity, signed with the
endpoint's secret, POSTed to a receiver on loopback — verified by ``construct_event``, before and
after a secret rotation; the README's Flask receiver (examples/flask_receiver.py) receiving one;
stale and future timestamps, tampered bodies and bodies that are not events refused."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import pathlib
import threading
import time
from collections.abc import Iterator
from types import ModuleType

import pytest
from conftest import Control, Receiver, new_key, uniq
from werkzeug.serving import make_server

import hostgate
from hostgate import models, webhooks


def deliver_pending(control: Control, c: hostgate.Hostgate, endpoint_id: str) -> list[models.WebhookDelivery]:
    """Fans pending events out and makes the first attempt of each new delivery, as the worker does."""
    control.fan_out()
    pending = c.webhook_deliveries.list(endpoint_id=endpoint_id, status="pending").to_list()
    for d in pending:
        control.attempt(d.id)
    return pending


@pytest.fixture()
def org_client(control: Control, base_url: str) -> Iterator[hostgate.Hostgate]:
    with hostgate.Hostgate(api_key=control.new_org("Webhooks org"), base_url=base_url) as c:
        yield c


def test_a_real_delivery_verifies_and_after_rotation_both_secrets_do(control: Control, org_client: hostgate.Hostgate, receiver: Receiver) -> None:
    c = org_client
    endpoint = c.webhook_endpoints.create(url=receiver.url("/hook"), idempotency_key=new_key())
    destination = c.destinations.create(url="https://app.example.com", idempotency_key=new_key())
    hostname = f"hooked-{uniq()}.sdk-python.example"
    domain = c.domains.create(hostname=hostname, destination_id=destination.id, external_customer_id="cus_9", idempotency_key=new_key())
    assert len(deliver_pending(control, c, endpoint.id)) == 1

    (first,) = receiver.requests_to("/hook")
    header = first.headers["service-signature"]
    event = webhooks.construct_event(first.body, header, endpoint.secret)
    assert isinstance(event, models.WebhookEvent)
    assert event.id.startswith("evt_") and event.event == "hostname.created"
    assert event.data == models.WebhookEventData(id=domain.id, hostname=hostname, status="pending_dns", destination_id=destination.id, external_customer_id="cus_9")
    assert event.created_at.tzinfo is not None
    assert first.headers["service-event-id"] == event.id
    # The same verifier from the client, from the raw text, and as a plain dict.
    assert c.webhooks.construct_event(first.body.decode(), header, endpoint.secret, tolerance=60) == event
    assert webhooks.verify(first.body, header, endpoint.secret)["id"] == event.id
    for body, secret in ((first.body, "whsec_wrong"), (first.body.replace(b"cus_9", b"cus_X"), endpoint.secret)):
        with pytest.raises(hostgate.WebhookSignatureError) as refused:
            webhooks.construct_event(body, header, secret)
        assert refused.value.code == "no_matching_signature"

    # The attempt shows through the client.
    (delivery,) = c.webhook_deliveries.list(endpoint_id=endpoint.id).to_list()
    assert (delivery.status, delivery.attempt_count, delivery.attempting, delivery.last_response_code, delivery.event_id) == ("succeeded", 1, False, 200, event.id)
    (attempt,) = c.webhook_deliveries.attempts(delivery.id).to_list()
    assert (attempt.attempt_number, attempt.response_code, attempt.response_body, attempt.error) == (1, 200, "ok", None)
    assert attempt.id.startswith("wha_")

    # Rotation: the next delivery carries a signature per live secret; either verifies, and so does the pair.
    rotated = c.webhook_endpoints.rotate_secret(endpoint.id, idempotency_key=new_key())
    c.domains.delete(domain.id, idempotency_key=new_key())
    assert len(deliver_pending(control, c, endpoint.id)) == 1
    second = receiver.requests_to("/hook")[1]
    header2 = second.headers["service-signature"]
    assert header2.count("v1=") == 2
    for secrets in (endpoint.secret, rotated.secret, [rotated.secret, endpoint.secret]):
        e = webhooks.construct_event(second.body, header2, secrets)
        assert (e.event, e.data.status) == ("hostname.deleting", "deleting")


def _load_example() -> ModuleType:
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "flask_receiver.py"
    spec = importlib.util.spec_from_file_location("flask_receiver", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_shows_the_flask_receiver_as_it_is() -> None:
    root = pathlib.Path(__file__).resolve().parents[1]
    code = (root / "examples" / "flask_receiver.py").read_text()
    shown = code[code.index("from __future__ import annotations"):].strip()
    assert f"```python\n{shown}\n```" in (root / "README.md").read_text()


def test_the_readme_flask_receiver_accepts_a_real_delivery_and_refuses_a_forged_one(control: Control, org_client: hostgate.Hostgate) -> None:
    example = _load_example()
    secrets: list[str] = []  # filled once the endpoint (which needs the receiver's URL) exists
    handled: list[models.WebhookEvent] = []
    server = make_server("127.0.0.1", 0, example.create_app(secrets, on_event=handled.append), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/hostgate/webhooks"
        endpoint = org_client.webhook_endpoints.create(url=url, events=["hostname.created"], idempotency_key=new_key())
        secrets.append(endpoint.secret)
        destination = org_client.destinations.create(url="https://app.example.com", idempotency_key=new_key())
        domain = org_client.domains.create(hostname=f"flask-{uniq()}.sdk-python.example", destination_id=destination.id, idempotency_key=new_key())
        deliver_pending(control, org_client, endpoint.id)
        assert [(e.event, e.data.id) for e in handled] == [("hostname.created", domain.id)]
        (delivery,) = org_client.webhook_deliveries.list(endpoint_id=endpoint.id).to_list()
        assert (delivery.status, delivery.last_response_code) == ("succeeded", 200)

        # A forged delivery (signed with another secret) is answered 400 and not handled.
        body = json.dumps({"id": "evt_forged", "event": "hostname.active", "created_at": "2026-01-01T00:00:00.000Z",
                           "data": {"id": domain.id, "hostname": "x.example", "status": "active", "destination_id": destination.id, "external_customer_id": None}})
        forged = example.create_app(secrets, on_event=handled.append).test_client().post(
            "/hostgate/webhooks", data=body, headers={"Service-Signature": webhooks.signature_header(body, "whsec_forger")}, content_type="application/json"
        )
        assert forged.status_code == 400 and forged.get_data(as_text=True).startswith("no_matching_signature")
        assert len(handled) == 1
    finally:
        server.shutdown()


EVENT = {
    "id": "evt_1",
    "event": "hostname.active",
    "created_at": "2026-01-01T00:00:00.000Z",
    "data": {"id": "dom_1", "hostname": "a.example.com", "status": "active", "destination_id": "dst_1", "external_customer_id": None},
}


def test_stale_and_future_timestamps_beyond_the_tolerance_are_refused() -> None:
    body = json.dumps(EVENT)
    ts = 1_800_000_000
    header = webhooks.signature_header(body, "whsec_test", ts)
    assert webhooks.construct_event(body, header, "whsec_test", now=ts + 300).event == "hostname.active"
    assert webhooks.construct_event(body, header, "whsec_test", now=ts - 300).event == "hostname.active"
    for now in (ts + 301, ts - 301):
        with pytest.raises(hostgate.WebhookSignatureError) as stale:
            webhooks.construct_event(body, header, "whsec_test", now=now)
        assert stale.value.code == "timestamp_outside_tolerance"
    with pytest.raises(hostgate.WebhookSignatureError):
        webhooks.verify(body, header, "whsec_test", tolerance=10, now=ts + 11)
    assert webhooks.verify(body, header, "whsec_test", tolerance=10, now=ts + 10)["id"] == "evt_1"
    # Against the real clock, a header of now verifies and one 10 minutes old does not.
    assert webhooks.construct_event(body, webhooks.signature_header(body, "whsec_test"), "whsec_test").id == "evt_1"
    with pytest.raises(hostgate.WebhookSignatureError, match="older than"):
        webhooks.construct_event(body, webhooks.signature_header(body, "whsec_test", int(time.time()) - 600), "whsec_test")


def test_the_signature_is_the_documented_hmac() -> None:
    # HMAC-SHA256 keyed with the whole secret over "<t>.<raw body>", hex: the contract's scheme, as
    # the TypeScript verifier computes it (sdk/webhooks.ts).
    body = '{"a":1}'
    expected = hmac.new(b"whsec_test", b'1800000000.{"a":1}', hashlib.sha256).hexdigest()
    assert webhooks.compute_signature(body, "whsec_test", 1_800_000_000) == expected
    assert webhooks.compute_signature(body.encode(), "whsec_test", 1_800_000_000) == expected
    a, b = (webhooks.compute_signature(body, s, 5) for s in ("whsec_a", "whsec_b"))
    assert webhooks.signature_header(body, ["whsec_a", "whsec_b"], 5) == f"t=5,v1={a},v1={b}"


@pytest.mark.parametrize(
    ("header", "code"),
    [
        (None, "missing_header"),
        ("", "missing_header"),
        ("t=1800000000", "malformed_header"),
        ("v1=" + "0" * 64, "malformed_header"),
        ("t=soon,v1=" + "0" * 64, "malformed_header"),
        ("t=1800000000,t=1800000000,v1=" + "0" * 64, "malformed_header"),
        ("t=1800000000,v1=XYZ", "malformed_header"),
        ("t=1800000000,garbage", "malformed_header"),
        ("t=1800000000," + "v1=" + "0" * 64 * 200, "malformed_header"),
        ("t=1800000000,v0=abc,v1=" + "0" * 64, "no_matching_signature"),
    ],
    ids=["none", "empty", "no-v1", "no-t", "t-not-a-number", "two-t", "v1-not-hex", "no-equals", "too-long", "unknown-scheme-ignored"],
)
def test_malformed_headers_are_refused_with_their_code(header: str | None, code: str) -> None:
    with pytest.raises(hostgate.WebhookSignatureError) as refused:
        webhooks.verify(json.dumps(EVENT), header, "whsec_test", now=1_800_000_000)
    assert refused.value.code == code


def test_construct_event_refuses_signed_bodies_that_are_not_hostgate_events() -> None:
    def signed(value: object) -> tuple[str, str]:
        body = json.dumps(value)
        return body, webhooks.signature_header(body, "whsec_test")

    body, header = signed({**EVENT, "event": "hostname.teleported"})
    with pytest.raises(hostgate.WebhookSignatureError, match="hostname.teleported") as unknown:
        webhooks.construct_event(body, header, "whsec_test")
    assert unknown.value.code == "invalid_payload"
    assert webhooks.verify(body, header, "whsec_test")["event"] == "hostname.teleported"  # verify only checks the signature
    for value in ({k: v for k, v in EVENT.items() if k != "data"}, {**EVENT, "created_at": "yesterday"}, [1, 2]):
        body, header = signed(value)
        with pytest.raises(hostgate.WebhookSignatureError) as invalid:
            webhooks.construct_event(body, header, "whsec_test")
        assert invalid.value.code == "invalid_payload"
    not_json = "not json"
    with pytest.raises(hostgate.WebhookSignatureError) as garbage:
        webhooks.verify(not_json, webhooks.signature_header(not_json, "whsec_test"), "whsec_test")
    assert garbage.value.code == "invalid_payload"
    with pytest.raises(TypeError, match="raw request body"):
        webhooks.verify(EVENT, "t=1,v1=" + "0" * 64, "whsec_test")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="secret"):
        webhooks.verify("{}", "t=1,v1=" + "0" * 64, "")


def test_a_certificate_event_carries_the_certificate() -> None:
    body = json.dumps({
        "id": "evt_2", "event": "hostname.certificate_expiring", "created_at": "2026-11-26T10:00:00.000Z",
        "data": {
            "id": "dom_1", "hostname": "shop.example.com", "status": "active", "destination_id": "dst_1", "external_customer_id": None,
            "certificate": {
                "serial": "0a1b", "issuer": "CN=R11, O=Let's Encrypt, C=US", "source": "managed",
                "not_before": "2026-09-01T00:00:00.000Z", "not_after": "2026-11-30T00:00:00.000Z", "renews_at": "2026-10-31T00:00:00.000Z",
            },
            "days_left": 14,
        },
    })
    event = webhooks.construct_event(body, webhooks.signature_header(body, "whsec_test"), "whsec_test")
    assert event.event == "hostname.certificate_expiring"
    assert event.data.days_left == 14 and event.data.problem is None
    assert event.data.certificate is not None and event.data.certificate.source == "managed"
    assert event.data.certificate.not_after.year == 2026
