-- The DNS check schedule of pending domains (issue 26, bulk import). Forward-only.
--
-- The periodic DNS checks of `pending_dns` domains move out of per-workflow Temporal timers into
-- the worker's DNS checker (worker/dns-checker.ts), which claims due rows of this table in batches
-- (FOR UPDATE SKIP LOCKED: several workers share it), checks DNS and signals a domain's workflow
-- only when DNS is right. 5,000 domains created at once were 5,000 workflows whose first check
-- waited behind Temporal's task backlog (≈ 6.5 min for the last) and whose backoff timers kept
-- the worker at 30 % of a core when nothing happened.
--
-- One row per domain in `pending_dns`, kept by a trigger on `domains` so that every way into and
-- out of the status (create, retry, resume, verified, suspend, delete…) keeps it true without the
-- code paths having to know: a domain entering `pending_dns` is due at once (the first check at
-- create does not wait for its workflow), one leaving it loses its row. The insert notifies
-- `hostgate_dns_checks` (delivered at commit; one notification per transaction) so the checker
-- takes new domains within milliseconds.
--
-- `next_check_at` doubles as the claim: a checker pushes it a lease ahead when it takes the row
-- and sets the real next slot when the check is done, so a checker that dies mid-check leaves
-- the row due again when the lease runs out.
create table dns_check_schedule (
  domain_id text primary key references domains (id) on delete cascade,
  next_check_at timestamptz not null,
  -- Checks made in this wait (the backoff's attempt number: 5 s doubling to the 1 h cap).
  checks integer not null default 0,
  wait_started_at timestamptz not null default hg_now(),
  -- A zero-downtime move's DNS-01 order in progress (activities/moves.ts): the checker and the
  -- workflow (on a verify) both step moves, and two orders at once would issue two certificates.
  move_order_until timestamptz
);
create index dns_check_schedule_due on dns_check_schedule (next_check_at);

create function hg_dns_check_schedule() returns trigger language plpgsql as $$
begin
  if new.status = 'pending_dns' then
    if tg_op = 'INSERT' or old.status is distinct from 'pending_dns' then
      insert into dns_check_schedule (domain_id, next_check_at, checks, wait_started_at)
      values (new.id, hg_now(), 0, hg_now())
      on conflict (domain_id) do update set next_check_at = excluded.next_check_at, checks = 0, wait_started_at = excluded.wait_started_at;
      perform pg_notify('hostgate_dns_checks', '');
    end if;
  elsif tg_op = 'UPDATE' and old.status = 'pending_dns' then
    delete from dns_check_schedule where domain_id = new.id;
  end if;
  return null;
end $$;

create trigger domains_dns_check_schedule after insert or update of status on domains
  for each row execute function hg_dns_check_schedule();

-- Domains already waiting when this runs: due within the next five minutes, spread so that a
-- deploy over a large backlog does not check them all in the same second. Their workflows take
-- the checker's path at their next wake-up (patch `dns-checks-by-checker`).
insert into dns_check_schedule (domain_id, next_check_at, checks, wait_started_at)
select id, hg_now() + random() * interval '5 minutes', 0, hg_now() from domains where status = 'pending_dns';
