// Quick start: connect a customer's domain with the Hostgate client.
//
//   npm start                      # the local stack (prints an API key on first start)
//   HOSTGATE_API_KEY=hg_live_… npm run example:sdk
//
// HOSTGATE_API_URL defaults to http://localhost:3000. Optional: HOSTGATE_EXAMPLE_ORIGIN (your
// app's HTTPS origin, default https://app.example.com) and HOSTGATE_EXAMPLE_HOSTNAME (the
// customer's hostname, default a fresh shop-….example.com).
//
// In your own code: import { Hostgate } from '@hostgate/sdk';
import { Hostgate, HostgateConnectionError, HostgateError } from '../src/index.ts';

const apiKey = process.env.HOSTGATE_API_KEY;
if (!apiKey) {
  process.stderr.write('HOSTGATE_API_KEY is not set: export the API key `npm start` printed (or create one: npm run cli -- keys create --org org_… --scopes destinations:write,domains:write)\n');
  process.exit(2);
}
const hostgate = new Hostgate({ apiKey, baseUrl: process.env.HOSTGATE_API_URL ?? 'http://localhost:3000', timeoutMs: 10_000 });

const origin = process.env.HOSTGATE_EXAMPLE_ORIGIN ?? 'https://app.example.com';
const hostname = process.env.HOSTGATE_EXAMPLE_HOSTNAME ?? `shop-${Date.now().toString(36)}.example.com`;

try {
  // Writes take an idempotency key: a business key you would send again when retrying the same
  // operation (the client never retries a write by itself).
  const destination = await hostgate.destinations.create({ url: origin }, { idempotencyKey: `quickstart-destination-${origin}` });
  console.log(`destination ${destination.id} → ${destination.url}`);

  const domain = await hostgate.domains.create(
    { hostname, destination_id: destination.id, external_customer_id: 'cus_quickstart' },
    { idempotencyKey: `quickstart-domain-${hostname}` },
  );
  console.log(`domain ${domain.id} ${domain.hostname}: ${domain.status}; ask your customer to set:`);
  for (const r of domain.dns_records) console.log(`  ${r.name} ${r.type} ${r.value}`);

  // Once DNS is set, ask for a check now rather than at the next scheduled one.
  const verifying = await hostgate.domains.verify(domain.id, { idempotencyKey: `quickstart-verify-${domain.id}` });
  console.log(`verify requested at ${verifying.verification.verify_requested_at}`);

  // Lists are async iterators over pages (keyset cursors, newest first).
  let count = 0;
  for await (const page of hostgate.domains.list({ limit: 50, external_customer_id: 'cus_quickstart' })) count += page.data.length;
  console.log(`${count} domain(s) of cus_quickstart`);

  const current = await hostgate.domains.retrieve(domain.id);
  console.log(`status now: ${current.status}${current.verification.problem ? ` (${current.verification.problem})` : ''}`);
} catch (error) {
  if (error instanceof HostgateError) {
    process.stderr.write(`Hostgate API error ${error.status ?? '(no answer)'} ${error.code}: ${error.message}${error.requestId ? ` [request ${error.requestId}]` : ''}\n`);
    if (error instanceof HostgateConnectionError) process.stderr.write('Is the API running? `npm start` starts the local stack; HOSTGATE_API_URL sets where it listens.\n');
    process.exit(1);
  }
  throw error;
}
