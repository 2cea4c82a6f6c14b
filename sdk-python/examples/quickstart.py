"""Quick start: connect a customer's domain with the Hostgate Python client.

    npm start                                   # the local stack (prints an API key on first start)
    HOSTGATE_API_KEY=hg_live_… npm run example:python

HOSTGATE_BASE_URL defaults to http://localhost:3000. Optional: HOSTGATE_EXAMPLE_ORIGIN (your app's
HTTPS origin, default https://app.example.com) and HOSTGATE_EXAMPLE_HOSTNAME (the customer's
hostname, default a fresh shop-….example.com). Outside this repository: pip install ./sdk-python,
then python sdk-python/examples/quickstart.py.
"""

from __future__ import annotations

import os
import sys
import time

try:
    import hostgate
except ModuleNotFoundError as missing:  # httpx, the client's one dependency, or the client itself
    print(f"{missing}: install the client with `python3 -m pip install ./sdk-python`", file=sys.stderr)
    sys.exit(2)


def main() -> int:
    api_key = os.environ.get("HOSTGATE_API_KEY")
    if not api_key:
        print(
            "HOSTGATE_API_KEY is not set: export the API key `npm start` printed "
            "(or create one: npm run cli -- keys create --org org_… --scopes destinations:write,domains:write)",
            file=sys.stderr,
        )
        return 2
    base_url = os.environ.get("HOSTGATE_BASE_URL", "http://localhost:3000")
    origin = os.environ.get("HOSTGATE_EXAMPLE_ORIGIN", "https://app.example.com")
    hostname = os.environ.get("HOSTGATE_EXAMPLE_HOSTNAME", f"shop-{int(time.time() * 1000):x}.example.com")

    with hostgate.Hostgate(api_key=api_key, base_url=base_url, timeout=10) as client:
        try:
            # Writes take an idempotency key: a business key you would send again when retrying the
            # same operation (the client never retries a write by itself).
            destination = client.destinations.create(url=origin, idempotency_key=f"quickstart-destination-{origin}")
            print(f"destination {destination.id} → {destination.url}")

            domain = client.domains.create(
                hostname=hostname,
                destination_id=destination.id,
                external_customer_id="cus_quickstart",
                idempotency_key=f"quickstart-domain-{hostname}",
            )
            print(f"domain {domain.id} {domain.hostname}: {domain.status}; ask your customer to set:")
            for record in domain.dns_records:
                print(f"  {record.name} {record.type} {record.value}")

            # Once DNS is set, ask for a check now rather than at the next scheduled one.
            verifying = client.domains.verify(domain.id, idempotency_key=f"quickstart-verify-{domain.id}")
            print(f"verify requested at {verifying.verification.verify_requested_at}")

            # Lists iterate over every page (keyset cursors, newest first), one request per page.
            count = sum(1 for _ in client.domains.list(external_customer_id="cus_quickstart", limit=50))
            print(f"{count} domain(s) of cus_quickstart")

            current = client.domains.get(domain.id)
            problem = current.verification.problem
            print(f"status now: {current.status}" + (f" ({problem.code}: {problem.message})" if problem else ""))
        except hostgate.HostgateError as error:
            status = error.status if error.status is not None else "(no answer)"
            request = f" [request {error.request_id}]" if error.request_id else ""
            print(f"Hostgate API error {status} {error.code}: {error.message}{request}", file=sys.stderr)
            if isinstance(error, hostgate.APIConnectionError):
                print("Is the API running? `npm start` starts the local stack; HOSTGATE_BASE_URL sets where it listens.", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
