-- Usage counting and billing (issue 13). Forward-only.
--
-- Counting: one row per organization holds `active_hostnames` and the current period's
-- `peak_hostnames`. A row trigger on `domains` moves them in the same transaction as every status
-- change (insert, status update, delete), with the organization's usage row locked, so no code
-- path can forget it and concurrent creates/deletes serialize on that row: the counter is never
-- off by one and the peak is the true maximum. Nothing is recomputed by scanning at read time.
-- Which statuses count: model/domain-status.ts `billableStatuses` (pending_dns,
-- pending_certificate, active); test/usage-counting.test.ts checks that both lists agree.
-- A row trigger (a column list needs one): right for the one-domain transitions every code path
-- makes; a bulk statement over thousands of one organization's domains in one transaction gets
-- slower per row (each update of the usage row walks its version chain), so bulk loads go in
-- chunks of ~1,000 rows per transaction.

-- Outbox: signals (with start) to the organization's billing workflow `billing/<org id>`.
alter table workflow_outbox drop constraint workflow_outbox_kind_check;
alter table workflow_outbox add constraint workflow_outbox_kind_check
  check (kind in ('start_domain', 'signal_domain', 'start_delivery', 'retry_delivery', 'signal_billing'));

-- Bandwidth buckets written by the edge (migration 008 creates this table; created here too, with
-- exactly the same shape, so this migration also applies where 008 has not landed).
create table if not exists domain_bandwidth_hourly (
  domain_id text not null references domains (id),
  hour timestamptz not null,
  bytes_in bigint not null default 0,
  bytes_out bigint not null default 0,
  primary key (domain_id, hour)
);

-- The same buckets summed per organization, maintained by a trigger on the edge's table, so
-- GET /v1/usage sums at most ~744 rows for a period instead of every domain's buckets.
create table organization_bandwidth_hourly (
  organization_id text not null references organizations (id),
  hour timestamptz not null,
  bytes bigint not null default 0 check (bytes >= 0),
  primary key (organization_id, hour)
);

-- Statement-level with transition tables: the edge writes many buckets in one statement, and a
-- row trigger would update the same (organization, hour) row once per bucket (each update in one
-- transaction walks the row's growing version chain: quadratic). One upsert per group instead.
create function hg_bandwidth_rollup_insert() returns trigger language plpgsql as $$
begin
  insert into organization_bandwidth_hourly (organization_id, hour, bytes)
  select d.organization_id, n.hour, sum(n.bytes_in + n.bytes_out) from new_rows n join domains d on d.id = n.domain_id
  group by d.organization_id, n.hour having sum(n.bytes_in + n.bytes_out) <> 0
  on conflict (organization_id, hour) do update set bytes = organization_bandwidth_hourly.bytes + excluded.bytes;
  return null;
end $$;
create function hg_bandwidth_rollup_update() returns trigger language plpgsql as $$
begin
  insert into organization_bandwidth_hourly (organization_id, hour, bytes)
  select d.organization_id, n.hour, sum((n.bytes_in + n.bytes_out) - (o.bytes_in + o.bytes_out))
  from new_rows n join old_rows o on o.domain_id = n.domain_id and o.hour = n.hour join domains d on d.id = n.domain_id
  group by d.organization_id, n.hour having sum((n.bytes_in + n.bytes_out) - (o.bytes_in + o.bytes_out)) <> 0
  on conflict (organization_id, hour) do update set bytes = organization_bandwidth_hourly.bytes + excluded.bytes;
  return null;
end $$;
create trigger domain_bandwidth_rollup_insert after insert on domain_bandwidth_hourly
  referencing new table as new_rows for each statement execute function hg_bandwidth_rollup_insert();
create trigger domain_bandwidth_rollup_update after update on domain_bandwidth_hourly
  referencing old table as old_rows new table as new_rows for each statement execute function hg_bandwidth_rollup_update();
insert into organization_bandwidth_hourly (organization_id, hour, bytes)
select d.organization_id, b.hour, sum(b.bytes_in + b.bytes_out) from domain_bandwidth_hourly b join domains d on d.id = b.domain_id
group by d.organization_id, b.hour;

-- Periods are whole months counted from an anchor, computed in UTC: the n-th period is
-- [anchor + n months, anchor + n+1 months). A calendar month (no subscription) is the anchor
-- 2000-01-01T00:00Z; a subscription's anchor is the start of its first period.
create function hg_period_containing(anchor timestamptz, at timestamptz, out period_start timestamptz, out period_end timestamptz)
language plpgsql immutable as $$
declare
  a timestamp := anchor at time zone 'UTC';
  t timestamp := at at time zone 'UTC';
  n integer := (extract(year from t)::int - extract(year from a)::int) * 12 + extract(month from t)::int - extract(month from a)::int;
begin
  if (a + make_interval(months => n)) > t then n := n - 1; end if;
  if n < 0 then n := 0; end if;
  period_start := (a + make_interval(months => n)) at time zone 'UTC';
  period_end := (a + make_interval(months => n + 1)) at time zone 'UTC';
end $$;

create table organization_usage (
  organization_id text primary key references organizations (id),
  active_hostnames integer not null default 0 check (active_hostnames >= 0),
  peak_hostnames integer not null default 0 check (peak_hostnames >= 0),
  period_anchor timestamptz not null default '2000-01-01T00:00:00Z',
  period_start timestamptz not null,
  period_end timestamptz not null,
  check (period_end > period_start and peak_hostnames >= active_hostnames)
);

-- Closed periods keep their peak in `usage_periods` (from 001): the overage is billed from it.
-- Rolls the locked usage row forward while its period has ended by `at`: each closed period is
-- recorded with its peak and bandwidth; the next one starts with peak = the active count (the
-- count did not change between the two instants). Returns the rolled row.
create function hg_usage_roll(p_org text, p_at timestamptz) returns organization_usage language plpgsql as $$
declare
  u organization_usage;
begin
  select * into u from organization_usage where organization_id = p_org for update;
  if not found then
    insert into organization_usage (organization_id, period_start, period_end)
    select p_org, p.period_start, p.period_end from hg_period_containing('2000-01-01T00:00:00Z', p_at) p
    on conflict (organization_id) do nothing;
    select * into u from organization_usage where organization_id = p_org for update;
  end if;
  while u.period_end <= p_at loop
    insert into usage_periods (organization_id, period_start, period_end, peak_hostnames, bandwidth_bytes)
    values (p_org, u.period_start, u.period_end, u.peak_hostnames,
      (select coalesce(sum(b.bytes), 0) from organization_bandwidth_hourly b
       where b.organization_id = p_org and b.hour >= u.period_start and b.hour < u.period_end))
    on conflict (organization_id, period_start) do nothing;
    select p.period_start, p.period_end into u.period_start, u.period_end from hg_period_containing(u.period_anchor, u.period_end) p;
    u.peak_hostnames := u.active_hostnames;
  end loop;
  update organization_usage set period_start = u.period_start, period_end = u.period_end, peak_hostnames = u.peak_hostnames
  where organization_id = p_org and (period_start, period_end, peak_hostnames) is distinct from (u.period_start, u.period_end, u.peak_hostnames);
  return u;
end $$;

create function hg_usage_count_domain() returns trigger language plpgsql as $$
declare
  billable constant text[] := array['pending_dns', 'pending_certificate', 'active'];
  delta integer := 0;
  org text;
begin
  if tg_op in ('UPDATE', 'DELETE') and old.status = any(billable) then delta := delta - 1; org := old.organization_id; end if;
  if tg_op in ('INSERT', 'UPDATE') and new.status = any(billable) then delta := delta + 1; org := new.organization_id; end if;
  if delta = 0 then return null; end if;
  -- clock_timestamp, not now(): a transaction that began before the period's end but changes a
  -- domain after it counts in the new period.
  perform hg_usage_roll(org, clock_timestamp());
  update organization_usage
  set active_hostnames = active_hostnames + delta, peak_hostnames = greatest(peak_hostnames, active_hostnames + delta)
  where organization_id = org;
  return null;
end $$;
create trigger domains_usage_count after insert or update of status or delete on domains
  for each row execute function hg_usage_count_domain();

create function hg_usage_for_new_organization() returns trigger language plpgsql as $$
begin
  insert into organization_usage (organization_id, period_start, period_end)
  select new.id, p.period_start, p.period_end from hg_period_containing('2000-01-01T00:00:00Z', clock_timestamp()) p;
  return null;
end $$;
create trigger organizations_usage_row after insert on organizations
  for each row execute function hg_usage_for_new_organization();

-- Existing organizations: counted once here; from now on only the trigger moves the numbers.
insert into organization_usage (organization_id, active_hostnames, peak_hostnames, period_start, period_end)
select o.id, c.n, c.n, p.period_start, p.period_end
from organizations o
cross join lateral (select count(*)::int as n from domains d where d.organization_id = o.id and d.status in ('pending_dns', 'pending_certificate', 'active')) c
cross join lateral hg_period_containing('2000-01-01T00:00:00Z', clock_timestamp()) p;

-- Billing ------------------------------------------------------------------------------------

-- One subscription per organization at the payment provider. `organizations.plan` and
-- `.billing_status` stay the values the API shows; this row holds the provider's ids.
create table billing_subscriptions (
  organization_id text primary key references organizations (id),
  provider text not null check (provider in ('local', 'stripe')),
  customer_id text,
  subscription_id text,
  plan text not null check (plan in ('starter', 'growth', 'scale')),
  status text not null check (status in ('active', 'past_due', 'canceled')),
  current_period_start timestamptz not null,
  current_period_end timestamptz not null,
  past_due_since timestamptz,
  canceled_at timestamptz,
  created_at timestamptz not null default hg_now(),
  updated_at timestamptz not null default hg_now()
);
create unique index billing_subscriptions_provider_id on billing_subscriptions (provider, subscription_id) where subscription_id is not null;

-- Checkout sessions. The local provider serves these as pages; Stripe's are mirrored here so a
-- completed session can be tied back to its organization.
create table billing_checkout_sessions (
  id text primary key,
  organization_id text not null references organizations (id),
  provider text not null check (provider in ('local', 'stripe')),
  plan text not null check (plan in ('starter', 'growth', 'scale')),
  status text not null default 'open' check (status in ('open', 'completed', 'canceled')),
  success_url text,
  cancel_url text,
  created_at timestamptz not null default hg_now(),
  expires_at timestamptz not null,
  completed_at timestamptz
);
create index billing_checkout_sessions_org on billing_checkout_sessions (organization_id, created_at desc);

-- Local provider portal sessions (Stripe's live at Stripe): a page for plan, cancellation and
-- payment, reachable only through its unguessable id, for one hour.
create table billing_portal_sessions (
  id text primary key,
  organization_id text not null references organizations (id),
  return_url text,
  created_at timestamptz not null default hg_now(),
  expires_at timestamptz not null
);

-- Provider events, de-duplicated on the provider's event id (Stripe retries and replays).
create table billing_events (
  provider text not null check (provider in ('local', 'stripe')),
  event_id text not null,
  organization_id text references organizations (id),
  type text not null,
  received_at timestamptz not null default hg_now(),
  primary key (provider, event_id)
);

-- The local equivalent of an invoice with its items; with Stripe, `provider_invoice_id` names
-- the renewal invoice the overage item was added to. One invoice per organization and period.
create table invoices (
  id text primary key,
  organization_id text not null references organizations (id),
  period_start timestamptz not null,
  period_end timestamptz not null,
  plan text not null check (plan in ('starter', 'growth', 'scale')),
  peak_hostnames integer not null check (peak_hostnames >= 0),
  included_hostnames integer not null check (included_hostnames >= 0),
  total_cents integer not null check (total_cents >= 0),
  provider_invoice_id text,
  created_at timestamptz not null default hg_now(),
  unique (organization_id, period_start)
);
create table invoice_items (
  invoice_id text not null references invoices (id),
  kind text not null check (kind in ('overage_hostnames')),
  quantity integer not null check (quantity >= 0),
  unit_amount_cents integer not null check (unit_amount_cents >= 0),
  amount_cents integer not null check (amount_cents = quantity * unit_amount_cents),
  description text not null,
  provider_item_id text,
  primary key (invoice_id, kind)
);

-- Domains suspended by dunning, so paying again resumes exactly those (and not the ones an
-- operator suspended for another reason).
create table billing_suspensions (
  organization_id text not null references organizations (id),
  domain_id text not null references domains (id),
  suspended_at timestamptz not null default hg_now(),
  resumed_at timestamptz,
  primary key (organization_id, domain_id, suspended_at)
);
create index billing_suspensions_open on billing_suspensions (organization_id) where resumed_at is null;
