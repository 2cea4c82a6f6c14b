-- Admitting a new ACME order in one statement each for the common case (issue 26, verify burst).
-- Forward-only.
--
-- Every new order passes two admissions, each serialized by an advisory lock so that two workers
-- cannot both take the last place: the per-domain brake (certificate_order_placements, migration
-- 015) and the shared CA budget (ca_budget_placements / ca_budget_waiters, migration 020). Each
-- was a transaction of 5 and 8 statements (BEGIN, the lock, the reads, the insert, COMMIT), i.e.
-- 13 of the ≈ 35 statements an activation costs, each a round trip and a syscall of 0.3–0.6 ms on
-- the development VM (bench:lifecycle, docs/scale.md).
--
-- These functions make the admission that is plain — room in the window, and for the budget no
-- other domain queued — in one call: a plpgsql function takes the lock, then reads with a new
-- snapshot per statement (READ COMMITTED), so what the lock protects is read after it is held,
-- as in the transaction it replaces; the lock is released when the calling statement commits.
-- When the answer is not plain they return null and change nothing, and the repository takes
-- its transaction as before, which computes when the turn comes (model/ca-budget.ts,
-- model/certificate-lifetime.ts). So the rules stay in TypeScript; these only say "admitted".

-- The per-domain brake: at most p_limit orders per window. Returns the placement's id, or null
-- when the window is full (nothing recorded).
create function hg_admit_order_plain(p_domain_id text, p_method text, p_limit integer, p_window_secs float8)
returns text language plpgsql as $$
declare
  v_id text;
begin
  perform pg_advisory_xact_lock(hashtext('certificate-orders/' || p_domain_id));
  if (select count(*) from certificate_order_placements
      where domain_id = p_domain_id and placed_at > hg_now() - make_interval(secs => p_window_secs)) >= p_limit then
    return null;
  end if;
  insert into certificate_order_placements (domain_id, method) values (p_domain_id, p_method) returning id::text into v_id;
  return v_id;
end $$;

-- The shared CA budget of one account: admitted when the window has room and no other domain
-- still waits its turn (then none is ahead: model/ca-budget.ts `budgetTurn` admits too). Drops
-- the placements that left the window, records the placement, takes the domain out of every
-- queue. Returns the placement's id, or null (nothing changed but the expired placements) when
-- the window is full or others wait — the repository then works out the turn.
create function hg_ca_budget_admit_plain(p_directory_url text, p_domain_id text, p_orders integer, p_window_secs float8, p_waiter_grace_secs float8)
returns text language plpgsql as $$
declare
  v_id text;
begin
  perform pg_advisory_xact_lock(hashtext('ca-budget/' || p_directory_url));
  delete from ca_budget_placements where directory_url = p_directory_url and placed_at <= hg_now() - make_interval(secs => p_window_secs);
  if (select count(*) from ca_budget_placements
      where directory_url = p_directory_url and placed_at > hg_now() - make_interval(secs => p_window_secs)) >= p_orders then
    return null;
  end if;
  -- The waiters the transactional path would count (WAITING_STATUSES, WAITER_GRACE_MS), any order.
  if exists (select 1 from ca_budget_waiters q join domains d on d.id = q.domain_id
             where q.directory_url = p_directory_url and q.domain_id <> p_domain_id
               and d.status in ('pending_dns', 'pending_certificate', 'active')
               and q.retry_at > hg_now() - make_interval(secs => p_waiter_grace_secs)) then
    return null;
  end if;
  insert into ca_budget_placements (directory_url, domain_id) values (p_directory_url, p_domain_id) returning id::text into v_id;
  delete from ca_budget_waiters where domain_id = p_domain_id;
  return v_id;
end $$;
