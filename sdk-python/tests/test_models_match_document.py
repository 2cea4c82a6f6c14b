"""The hand-written models and method signatures against the OpenAPI document the API serves.

For every operation the client calls: each field of the answer is a field of the model (and the
model requires only fields the API always sends), a field is ``… | None`` exactly when the API may
send null, every value of an enumerated field is one of the model's ``Literal`` values, and each
method takes every field of the request body and every query filter. A change to the API's
schemas that the client does not follow fails here, naming the field.
"""

from __future__ import annotations

import dataclasses
import inspect
import keyword
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import hostgate
from hostgate import models, resources

Schema = dict[str, Any]

# (method, path, success status) → the model of the answer's `data` (a list's items for lists).
RESPONSES: dict[tuple[str, str, str], type] = {
    ("post", "/v1/destinations", "201"): models.Destination,
    ("get", "/v1/destinations", "200"): models.Destination,
    ("get", "/v1/destinations/{id}", "200"): models.Destination,
    ("delete", "/v1/destinations/{id}", "200"): models.Destination,
    ("patch", "/v1/destinations/{id}", "200"): models.Destination,
    ("patch", "/v1/domains/{id}", "200"): models.Domain,
    ("post", "/v1/domains", "201"): models.Domain,
    ("get", "/v1/domains", "200"): models.Domain,
    ("get", "/v1/domains/{id}", "200"): models.Domain,
    ("delete", "/v1/domains/{id}", "202"): models.Domain,
    ("post", "/v1/domains/{id}/verify", "202"): models.Domain,
    ("put", "/v1/domains/{id}/certificate", "200"): models.Domain,
    ("delete", "/v1/domains/{id}/certificate", "200"): models.Domain,
    ("post", "/v1/webhook-endpoints", "201"): models.WebhookEndpointWithSecret,
    ("get", "/v1/webhook-endpoints", "200"): models.WebhookEndpoint,
    ("get", "/v1/webhook-endpoints/{id}", "200"): models.WebhookEndpoint,
    ("patch", "/v1/webhook-endpoints/{id}", "200"): models.WebhookEndpoint,
    ("delete", "/v1/webhook-endpoints/{id}", "200"): models.WebhookEndpoint,
    ("post", "/v1/webhook-endpoints/{id}/rotate-secret", "200"): models.RotatedWebhookEndpoint,
    ("get", "/v1/webhook-deliveries", "200"): models.WebhookDelivery,
    ("get", "/v1/webhook-deliveries/{id}", "200"): models.WebhookDelivery,
    ("get", "/v1/webhook-deliveries/{id}/attempts", "200"): models.WebhookAttempt,
    ("post", "/v1/webhook-deliveries/{id}/retry", "200"): models.WebhookDelivery,
    ("post", "/v1/widget-sessions", "201"): models.WidgetSession,
    ("get", "/v1/usage", "200"): models.Usage,
    ("get", "/v1/domains/{id}/analytics", "200"): models.DomainAnalytics,
    ("get", "/v1/analytics", "200"): models.OrganizationAnalytics,
    ("post", "/v1/billing/checkout-session", "201"): models.BillingSession,
    ("post", "/v1/billing/portal-session", "201"): models.BillingSession,
    ("post", "/v1/billing/plan", "200"): models.Usage,
    ("get", "/v1/billing/invoices", "200"): models.Invoice,
    ("get", "/v1/billing/invoices/{id}", "200"): models.Invoice,
}

# (method, path) → the client method that sends it (request bodies and query filters).
METHODS: dict[tuple[str, str], Callable[..., Any]] = {
    ("post", "/v1/destinations"): resources.Destinations.create,
    ("get", "/v1/destinations"): resources.Destinations.list,
    ("post", "/v1/domains"): resources.Domains.create,
    ("patch", "/v1/domains/{id}"): resources.Domains.update,
    ("put", "/v1/domains/{id}/certificate"): resources.Domains.put_certificate,
    ("patch", "/v1/destinations/{id}"): resources.Destinations.update,
    ("get", "/v1/domains"): resources.Domains.list,
    ("post", "/v1/webhook-endpoints"): resources.WebhookEndpoints.create,
    ("get", "/v1/webhook-endpoints"): resources.WebhookEndpoints.list,
    ("patch", "/v1/webhook-endpoints/{id}"): resources.WebhookEndpoints.update,
    ("get", "/v1/webhook-deliveries"): resources.WebhookDeliveries.list,
    ("get", "/v1/webhook-deliveries/{id}/attempts"): resources.WebhookDeliveries.attempts,
    ("post", "/v1/widget-sessions"): resources.WidgetSessions.create,
    ("post", "/v1/billing/checkout-session"): resources.Billing.create_checkout_session,
    ("post", "/v1/billing/portal-session"): resources.Billing.create_portal_session,
    ("post", "/v1/billing/plan"): resources.Billing.change_plan,
    ("get", "/v1/billing/invoices"): resources.Invoices.list,
    ("get", "/v1/domains/{id}/analytics"): resources.Domains.analytics,
    ("get", "/v1/analytics"): resources.Analytics.get,
}


@pytest.fixture(scope="module")
def document(base_url: str) -> Schema:
    response = httpx.get(f"{base_url}/v1/openapi.json", timeout=30)
    assert response.status_code == 200
    doc: Schema = response.json()
    return doc


class Shape:
    """A schema with its `$ref`s resolved and `allOf` merged."""

    def __init__(self, document: Schema) -> None:
        self.document = document

    def resolve(self, schema: Schema) -> Schema:
        seen = 0
        while "$ref" in schema:
            ref: str = schema["$ref"]
            assert ref.startswith("#/"), ref
            node: Any = self.document
            for part in ref[2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            schema = node
            seen += 1
            assert seen < 20, f"$ref loop at {ref}"
        if "allOf" in schema:
            merged: Schema = {"type": "object", "properties": {}, "required": []}
            for part in schema["allOf"]:
                p = self.resolve(part)
                merged["properties"].update(p.get("properties", {}))
                merged["required"] += p.get("required", [])
            return merged
        return schema

    def alternatives(self, schema: Schema) -> list[Schema]:
        """The non-null alternatives of a schema (itself when it is no union)."""
        s = self.resolve(schema)
        for key in ("anyOf", "oneOf"):
            if key in s:
                return [a for alt in s[key] for a in self.alternatives(alt)]
        if isinstance(s.get("type"), list):
            return [{**s, "type": t} for t in s["type"] if t != "null"]
        return [] if s.get("type") == "null" else [s]

    def nullable(self, schema: Schema) -> bool:
        s = self.resolve(schema)
        if s.get("type") == "null" or (isinstance(s.get("type"), list) and "null" in s["type"]):
            return True
        if s.get("enum") is not None and None in s["enum"]:
            return True
        return any(self.nullable(a) for key in ("anyOf", "oneOf") for a in s.get(key, []))

    def enum_values(self, schema: Schema) -> set[Any] | None:
        """The values an enumerated schema allows; None when it is not enumerated."""
        values: set[Any] = set()
        for alt in self.alternatives(schema):
            if "const" in alt:
                values.add(alt["const"])
            elif "enum" in alt:
                values.update(v for v in alt["enum"] if v is not None)
            else:
                return None
        return values or None


def _model_of(tp: Any) -> tuple[Any, bool]:
    """A field's type without None, and whether it admits None."""
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        args = typing.get_args(tp)
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]), type(None) in args
    return tp, False


def _literal_values(tp: Any) -> set[Any] | None:
    return set(typing.get_args(tp)) if typing.get_origin(tp) is typing.Literal else None


def compare(shape: Shape, schema: Schema, model: type, where: str) -> Iterator[str]:
    """Every disagreement between an object schema and a dataclass, as readable lines."""
    s = shape.resolve(schema)
    properties: dict[str, Schema] = s.get("properties", {})
    required = set(s.get("required", []))
    hints = typing.get_type_hints(model)
    fields = {f.name: f for f in dataclasses.fields(model)}
    for name, prop in properties.items():
        if name not in fields:
            yield f"{where}.{name}: sent by the API, missing from {model.__name__}"
            continue
        f = fields[name]
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if name not in required and not has_default:
            yield f"{where}.{name}: optional in the API, required by {model.__name__}"
        tp, admits_none = _model_of(hints[name])
        if not has_default and shape.nullable(prop) != admits_none:
            yield f"{where}.{name}: the API {'may send' if shape.nullable(prop) else 'never sends'} null; {model.__name__} says {hints[name]}"
        yield from compare_type(shape, prop, tp, f"{where}.{name}")
    for name, f in fields.items():
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        if name not in properties and not has_default:
            yield f"{where}.{name}: required by {model.__name__}, not in the API's answer"


def compare_type(shape: Shape, prop: Schema, tp: Any, where: str) -> Iterator[str]:
    alternatives = shape.alternatives(prop)
    if typing.get_origin(tp) is list:
        (item,) = typing.get_args(tp)
        arrays = [a for a in alternatives if a.get("type") == "array"]
        if not arrays:
            yield f"{where}: a list in the client, not an array in the API"
            return
        yield from compare_type(shape, arrays[0].get("items", {}), item, f"{where}[]")
        return
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        objects = [a for a in alternatives if a.get("type") == "object" or "properties" in a]
        if not objects:
            yield f"{where}: {tp.__name__} in the client, not an object in the API"
            return
        yield from compare(shape, objects[0], tp, where)
        return
    literal = _literal_values(tp)
    values = shape.enum_values(prop)
    if values is not None and literal is not None and not values <= literal:
        yield f"{where}: the API may send {sorted(values - literal, key=str)}, unknown to the client's {sorted(literal, key=str)}"
    if values is not None and literal is None and all(isinstance(v, str) for v in values):
        yield f"{where}: the API enumerates {sorted(values)}; the client types it {tp} (use a Literal)"


def _success_data(shape: Shape, operation: Schema, status: str) -> tuple[Schema, bool]:
    response = shape.resolve(operation["responses"][status])
    body = shape.resolve(response["content"]["application/json"]["schema"])
    data = shape.resolve(body["properties"]["data"])
    if data.get("type") == "array":
        assert set(body.get("required", [])) >= {"data", "has_more", "next_cursor"}, "a list answers data, has_more and next_cursor"
        return data["items"], True
    return data, False


def test_every_answer_the_client_decodes_matches_its_model(document: Schema) -> None:
    shape = Shape(document)
    problems: list[str] = []
    for (method, path, status), model in RESPONSES.items():
        operation = document["paths"][path][method]
        assert status in operation["responses"], f"{method.upper()} {path} no longer answers {status}"
        data, _ = _success_data(shape, operation, status)
        problems += compare(shape, data, model, f"{method.upper()} {path} {status} data")
    assert problems == []


def test_the_client_covers_every_operation_of_the_vendor_api(document: Schema) -> None:
    # Every server-key operation (the widget's own API is the browser's) is one the client calls.
    operations = {(m, p) for p, ops in document["paths"].items() if not p.startswith("/v1/widget/") for m in ops if m in ("get", "post", "patch", "delete", "put")}
    assert operations == {(m, p) for (m, p, _) in RESPONSES}


def test_every_request_field_and_filter_is_a_parameter(document: Schema) -> None:
    shape = Shape(document)
    problems: list[str] = []
    for (method, path), call in METHODS.items():
        operation = document["paths"][path][method]
        parameters = inspect.signature(call).parameters
        required_params = {n for n, p in parameters.items() if p.default is inspect.Parameter.empty and p.kind is inspect.Parameter.KEYWORD_ONLY}
        wanted: dict[str, bool] = {}
        if "requestBody" in operation:
            body = shape.resolve(shape.resolve(operation["requestBody"])["content"]["application/json"]["schema"])
            wanted.update({n: n in body.get("required", []) for n in body.get("properties", {})})
        for p in operation.get("parameters", []):
            p = shape.resolve(p)
            if p["in"] == "query":
                wanted[p["name"]] = bool(p.get("required"))
        for api_name, needed in wanted.items():
            # A parameter named by a Python keyword (`from`) is that name with a trailing underscore.
            name = f"{api_name}_" if keyword.iskeyword(api_name) else api_name
            if name not in parameters:
                problems.append(f"{method.upper()} {path}: {call.__qualname__} takes no {name}")
            elif needed != (name in required_params):
                problems.append(f"{method.upper()} {path}: {name} is {'required' if needed else 'optional'} in the API, not in {call.__qualname__}")
        extra = required_params - set(wanted) - {"idempotency_key"}
        if extra:
            problems.append(f"{method.upper()} {path}: {call.__qualname__} requires {sorted(extra)}, unknown to the API")
    assert problems == []


def test_webhook_events_match_the_documented_payloads(document: Schema) -> None:
    shape = Shape(document)
    events = document.get("webhooks", {})
    assert set(events) == set(hostgate.webhooks.EVENT_KINDS)
    problems: list[str] = []
    for kind, item in events.items():
        body = shape.resolve(shape.resolve(item["post"]["requestBody"])["content"]["application/json"]["schema"])
        problems += compare(shape, body, models.WebhookEvent, f"webhook {kind}")
    assert problems == []
