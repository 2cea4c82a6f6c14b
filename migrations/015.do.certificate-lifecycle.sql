-- Issuance that cannot run away, and renewal you can see (issue 22).
--
-- Every ACME order placed for a domain, whichever path placed it (HTTP-01 step by step, the
-- one-attempt fast path, DNS-01 before a move): the per-domain brake counts these rows before
-- the next order leaves (db/repositories/certificate-lifecycle.ts). acme_orders alone would miss
-- DNS-01 orders, which keep no row.
create table certificate_order_placements (
  id bigserial primary key,
  domain_id text not null references domains (id),
  method text not null check (method in ('http-01', 'dns-01')),
  placed_at timestamptz not null default hg_now()
);
create index certificate_order_placements_domain on certificate_order_placements (domain_id, placed_at desc);

-- Where a certificate comes from: ours (ACME) or the customer's own (issue 22, part B).
alter table certificates add column source text not null default 'managed' check (source in ('managed', 'custom'));

-- The domain's certificate history: one row per issuance and renewal, and the troubles in between
-- (a renewal refused, a certificate due on arrival, one below the lifetime floor, the brake).
-- domain_status_history keeps status moves; these are not status moves (an active domain renews
-- while staying active).
create table certificate_history (
  id bigserial primary key,
  domain_id text not null references domains (id),
  certificate_id text references certificates (id),
  kind text not null check (kind in ('issued', 'renewed', 'renewal_failed', 'due_on_arrival', 'lifetime_below_floor', 'order_brake')),
  detail text,
  created_at timestamptz not null default hg_now()
);
create index certificate_history_domain on certificate_history (domain_id, id);
-- An issuance is recorded once, however often the activity that stored it runs.
create unique index certificate_history_once on certificate_history (certificate_id, kind) where kind in ('issued', 'renewed', 'lifetime_below_floor');

-- Notices sent once per certificate: expiring in 14 and 3 days, renewal failing late.
create table certificate_notices (
  certificate_id text not null references certificates (id),
  kind text not null check (kind in ('expiring_14d', 'expiring_3d', 'failed')),
  created_at timestamptz not null default hg_now(),
  primary key (certificate_id, kind)
);

-- The certificate events (webhooks): renewed, expiring (14 and 3 days), failed.
alter table events drop constraint events_kind_check;
alter table events add constraint events_kind_check check (kind in ('hostname.created', 'hostname.verified', 'hostname.active', 'hostname.failed',
  'hostname.suspended', 'hostname.deleting', 'hostname.deleted', 'hostname.dns_broken', 'hostname.updated',
  'hostname.certificate_renewed', 'hostname.certificate_expiring', 'hostname.certificate_failed'));
