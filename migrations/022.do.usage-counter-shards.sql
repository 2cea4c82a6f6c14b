-- Usage counter shards (issue 26, creates of one organization). Forward-only.
--
-- Since 017 every create of an organization updated that organization's one `organization_usage`
-- row at its commit and held the row lock through the commit's WAL flush, so one organization's
-- creates committed one at a time (group commit could not help) whatever the hardware.
--
-- Now an increment (a domain entering a billable status: every create) adds 1 to one of the
-- organization's 16 shard rows, the first one no other transaction holds (SKIP LOCKED), so
-- concurrent creates of one organization take different rows and commit together. Everything else
-- (a decrement, a period roll, a period close or restart, an increment after the period ended)
-- takes the organization's usage row as before and first folds the shards into it: it locks every
-- shard row (waiting for the increments in flight to commit), adds their sum to `active_hostnames`
-- and raises `peak_hostnames` to that total, zeroes them and keeps them locked to its own commit.
--
-- Why the peak stays exact (017 rejected shards because the peak of a sum is not a sum of shard
-- peaks): between two folds only increments commit, so the true total only grows and its maximum
-- over that stretch is the total now — `greatest(peak_hostnames, active_hostnames + sum(shards))`
-- (db/repositories/usage.ts reads exactly that). A fold records that maximum before the decrement
-- it makes, and because it holds every shard row to its commit, an increment either committed
-- before the fold (folded, counted in the peak) or waits for the decrement's commit (counted after
-- it): the order of increments and decrements is still their commit order. Increments go to shards
-- only while the usage row's period is running (read without a lock), so a shard never holds an
-- increment of a period that had ended when it was made: the roll that closes a period folds first
-- and the closed period's peak includes exactly the increments made in it.
--
-- A transaction that increments (holding a shard row) and then decrements in the same
-- organization locks the other shard rows after the usage row; two such transactions at once in
-- one organization could deadlock (Postgres aborts one). No code path does both in one
-- transaction: a create inserts one domain, a status change moves one.
create table organization_usage_shards (
  organization_id text not null references organizations (id),
  shard smallint not null check (shard >= 0 and shard < 16),
  added integer not null default 0 check (added >= 0),
  primary key (organization_id, shard)
);

create function hg_usage_add_shards(p_org text) returns void language sql as $$
  insert into organization_usage_shards (organization_id, shard)
  select p_org, s from generate_series(0, 15) s
  on conflict do nothing;
$$;

-- Folds the organization's shards into its usage row, which the caller has locked. Every shard row
-- stays locked to the caller's commit, so no increment lands between this fold and that commit.
create function hg_usage_fold(p_org text) returns void language plpgsql as $$
declare
  folded integer;
begin
  perform 1 from organization_usage_shards where organization_id = p_org order by shard for update;
  select coalesce(sum(added), 0) into folded from organization_usage_shards where organization_id = p_org;
  if folded > 0 then
    update organization_usage_shards set added = 0 where organization_id = p_org and added > 0;
    update organization_usage
    set active_hostnames = active_hostnames + folded, peak_hostnames = greatest(peak_hostnames, active_hostnames + folded)
    where organization_id = p_org;
  end if;
end $$;

-- 009's roll, folding the shards right after taking the usage row: the closed periods' peaks and
-- the next period's starting peak (= active) then include every increment.
create or replace function hg_usage_roll(p_org text, p_at timestamptz) returns organization_usage language plpgsql as $$
declare
  u organization_usage;
begin
  perform 1 from organization_usage where organization_id = p_org for update;
  if not found then
    insert into organization_usage (organization_id, period_start, period_end)
    select p_org, p.period_start, p.period_end from hg_period_containing('2000-01-01T00:00:00Z', p_at) p
    on conflict (organization_id) do nothing;
    perform hg_usage_add_shards(p_org);
  end if;
  perform hg_usage_fold(p_org);
  select * into u from organization_usage where organization_id = p_org for update;
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

create or replace function hg_usage_count_domain() returns trigger language plpgsql as $$
declare
  billable constant text[] := array['pending_dns', 'pending_certificate', 'active'];
  delta integer := 0;
  org text;
  running boolean;
  taken smallint;
begin
  if tg_op in ('UPDATE', 'DELETE') and old.status = any(billable) then delta := delta - 1; org := old.organization_id; end if;
  if tg_op in ('INSERT', 'UPDATE') and new.status = any(billable) then delta := delta + 1; org := new.organization_id; end if;
  if delta = 0 then return null; end if;
  -- clock_timestamp, not now(): a transaction that began before the period's end but changes a
  -- domain after it counts in the new period.
  if delta > 0 then
    select u.period_end > clock_timestamp() into running from organization_usage u where u.organization_id = org;
    if running then
      -- A shard no one holds; when all are held (16 increments in flight, or a fold), wait for one
      -- chosen by this backend, which orders this increment after that holder's commit.
      select s.shard into taken from organization_usage_shards s where s.organization_id = org for update skip locked limit 1;
      if taken is null then taken := pg_backend_pid() % 16; end if;
      update organization_usage_shards set added = added + delta where organization_id = org and shard = taken;
      if found then return null; end if;
    end if;
  end if;
  perform hg_usage_roll(org, clock_timestamp());
  update organization_usage
  set active_hostnames = active_hostnames + delta, peak_hostnames = greatest(peak_hostnames, active_hostnames + delta)
  where organization_id = org;
  return null;
end $$;

create or replace function hg_usage_for_new_organization() returns trigger language plpgsql as $$
begin
  insert into organization_usage (organization_id, period_start, period_end)
  select new.id, p.period_start, p.period_end from hg_period_containing('2000-01-01T00:00:00Z', clock_timestamp()) p;
  perform hg_usage_add_shards(new.id);
  return null;
end $$;

select hg_usage_add_shards(organization_id) from organization_usage;
