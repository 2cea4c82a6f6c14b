-- Hostgate initial schema. Forward-only: a fix is a new numbered migration, never an edit.
-- Timestamps are truncated to milliseconds so a keyset cursor built from a JSON timestamp
-- round-trips exactly.

create function hg_now() returns timestamptz language sql stable as $$ select date_trunc('milliseconds', now()) $$;

create table organizations (
  id text primary key,
  name text not null check (length(name) between 1 and 200),
  plan text not null default 'starter' check (plan in ('starter', 'growth', 'scale')),
  billing_status text not null default 'inactive' check (billing_status in ('inactive', 'active', 'past_due', 'canceled')),
  allowed_return_origins text[] not null default '{}',
  created_at timestamptz not null default hg_now()
);

create table api_keys (
  id text primary key,
  organization_id text not null references organizations (id),
  name text,
  -- The visible start of the key (hg_live_xxxx) to tell keys apart in listings.
  display_prefix text not null,
  secret_hash bytea not null unique check (length(secret_hash) = 32),
  scopes text[] not null check (scopes <@ array['destinations:write', 'domains:write', 'webhooks:write', 'widget:write', 'billing:write']::text[]),
  created_at timestamptz not null default hg_now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
create index api_keys_org on api_keys (organization_id, created_at desc, id desc);

create table destinations (
  id text primary key,
  organization_id text not null references organizations (id),
  url text not null,
  host text not null,
  port integer not null check (port in (443, 8443)),
  created_at timestamptz not null default hg_now(),
  updated_at timestamptz not null default hg_now(),
  deleted_at timestamptz
);
create index destinations_org_page on destinations (organization_id, created_at desc, id desc) where deleted_at is null;

create table widget_sessions (
  id text primary key,
  organization_id text not null references organizations (id),
  token_hash bytea not null unique check (length(token_hash) = 32),
  external_customer_id text not null check (length(external_customer_id) between 1 and 255),
  allowed_origins text[],
  destination_id text references destinations (id),
  created_at timestamptz not null default hg_now(),
  expires_at timestamptz not null
);
create index widget_sessions_org on widget_sessions (organization_id, created_at desc);

create table domains (
  id text primary key,
  organization_id text not null references organizations (id),
  destination_id text not null references destinations (id),
  hostname text not null check (length(hostname) between 1 and 253 and hostname = lower(hostname)),
  is_apex boolean not null,
  status text not null default 'pending_dns'
    check (status in ('pending_dns', 'pending_certificate', 'active', 'suspended', 'deleting', 'deleted', 'failed')),
  -- Monotonic transition counter: a late or retried writer carrying an older sequence cannot
  -- move a domain backwards.
  status_seq bigint not null default 0,
  external_customer_id text check (external_customer_id is null or length(external_customer_id) between 1 and 255),
  widget_session_id text references widget_sessions (id),
  verification jsonb,
  verify_requested_at timestamptz,
  workflow_started_at timestamptz,
  created_at timestamptz not null default hg_now(),
  updated_at timestamptz not null default hg_now(),
  deleted_at timestamptz
);
-- One live claim per hostname across every organization.
create unique index domains_live_hostname on domains (hostname) where status <> 'deleted';
create index domains_org_page on domains (organization_id, created_at desc, id desc);
create index domains_org_status_page on domains (organization_id, status, created_at desc, id desc);
create index domains_org_customer_page on domains (organization_id, external_customer_id, created_at desc, id desc);
create index domains_destination_live on domains (destination_id) where status <> 'deleted';
create index domains_widget_session on domains (widget_session_id) where widget_session_id is not null;

create table domain_status_history (
  domain_id text not null references domains (id),
  seq bigint not null,
  from_status text,
  to_status text not null,
  reason text,
  created_at timestamptz not null default hg_now(),
  primary key (domain_id, seq)
);

create table acme_accounts (
  directory_url text primary key,
  account_url text,
  private_key_enc bytea not null,
  key_id text not null,
  created_at timestamptz not null default hg_now()
);

create table acme_challenges (
  token text primary key,
  key_authorization text not null,
  domain_id text not null references domains (id),
  created_at timestamptz not null default hg_now()
);

create table certificates (
  id text primary key,
  domain_id text not null references domains (id),
  serial text not null,
  issuer text not null,
  not_before timestamptz not null,
  not_after timestamptz not null,
  chain_pem text not null,
  private_key_enc bytea,
  key_id text not null,
  created_at timestamptz not null default hg_now(),
  deleted_at timestamptz,
  unique (domain_id, serial),
  check (not_after > not_before)
);

create table webhook_endpoints (
  id text primary key,
  organization_id text not null references organizations (id),
  url text not null,
  description text,
  events text[] not null default array['*'],
  enabled boolean not null default true,
  disabled_reason text,
  secret_enc bytea not null,
  secret_key_id text not null,
  previous_secret_enc bytea,
  previous_secret_key_id text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz not null default hg_now(),
  updated_at timestamptz not null default hg_now(),
  deleted_at timestamptz
);
create index webhook_endpoints_org_page on webhook_endpoints (organization_id, created_at desc, id desc) where deleted_at is null;

-- Transactional outbox of domain events: written in the same transaction as the transition.
create table events (
  id text primary key,
  organization_id text not null references organizations (id),
  kind text not null check (kind in ('hostname.created', 'hostname.verified', 'hostname.active', 'hostname.failed',
    'hostname.suspended', 'hostname.deleting', 'hostname.deleted', 'hostname.dns_broken')),
  domain_id text references domains (id),
  data jsonb not null,
  created_at timestamptz not null default hg_now(),
  fanned_out_at timestamptz
);
create index events_unfanned on events (created_at) where fanned_out_at is null;

create table webhook_deliveries (
  id text primary key,
  organization_id text not null references organizations (id),
  endpoint_id text not null references webhook_endpoints (id),
  event_id text not null references events (id),
  event text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempt_count integer not null default 0 check (attempt_count >= 0),
  last_response_code integer,
  last_error text,
  next_attempt_at timestamptz,
  created_at timestamptz not null default hg_now(),
  updated_at timestamptz not null default hg_now(),
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_org_page on webhook_deliveries (organization_id, created_at desc, id desc);
create index webhook_deliveries_endpoint_page on webhook_deliveries (organization_id, endpoint_id, created_at desc, id desc);
create index webhook_deliveries_status_page on webhook_deliveries (organization_id, status, created_at desc, id desc);

create table webhook_attempts (
  delivery_id text not null references webhook_deliveries (id),
  attempt_number integer not null check (attempt_number >= 1),
  started_at timestamptz not null,
  duration_ms integer not null check (duration_ms >= 0),
  response_code integer,
  response_body text check (response_body is null or octet_length(response_body) <= 1024),
  error text,
  primary key (delivery_id, started_at, attempt_number)
);

-- Idempotency records, one per (scope, key). Scope is `org:<id>` or `wss:<id>`.
create table idempotency_keys (
  scope text not null,
  key text not null check (length(key) between 1 and 128),
  method text not null,
  path text not null,
  body_hash bytea not null,
  state text not null default 'in_flight' check (state in ('in_flight', 'completed')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default hg_now(),
  expires_at timestamptz not null,
  primary key (scope, key)
);
create index idempotency_keys_expiry on idempotency_keys (expires_at);

-- Workflow starts and signals requested by API transactions, dispatched after commit (and
-- re-dispatched by the reconciler), so a request never waits on Temporal and nothing is lost.
create table workflow_outbox (
  id bigint generated always as identity primary key,
  kind text not null check (kind in ('start_domain', 'signal_domain')),
  workflow_id text not null,
  payload jsonb not null,
  created_at timestamptz not null default hg_now(),
  attempts integer not null default 0,
  last_error text,
  dispatched_at timestamptz
);
create index workflow_outbox_pending on workflow_outbox (id) where dispatched_at is null;

-- Usage: peak hostnames per organization and period; bandwidth reported by the edge.
create table usage_periods (
  organization_id text not null references organizations (id),
  period_start timestamptz not null,
  period_end timestamptz not null,
  peak_hostnames integer not null default 0 check (peak_hostnames >= 0),
  bandwidth_bytes bigint not null default 0 check (bandwidth_bytes >= 0),
  primary key (organization_id, period_start),
  check (period_end > period_start)
);
