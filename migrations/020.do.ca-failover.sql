-- A second CA and a shared CA budget (issue 22).
--
-- Which configured CA issued a managed certificate (HOSTGATE_ACME_DIRECTORIES' name; null for
-- certificates from before, and for the customer's own).
alter table certificates add column ca_name text;

-- The shared budget: every new order placed with a CA's account, whichever worker placed it
-- (db/repositories/ca-budget.ts counts these under an advisory lock per account before the next
-- order leaves). Rows older than the account's window are deleted as new ones come.
create table ca_budget_placements (
  id bigserial primary key,
  directory_url text not null,
  domain_id text not null references domains (id),
  placed_at timestamptz not null default hg_now()
);
create index ca_budget_placements_window on ca_budget_placements (directory_url, placed_at);

-- Orders waiting for an account's budget, one row per account and domain (a domain may wait at
-- each CA it could use): the queue's order is renewals first, then the oldest. `retry_at` is when the waiter was told to come back: one that has not come back a
-- while after it (its domain was deleted, or got its certificate another way) no longer holds
-- its place.
create table ca_budget_waiters (
  directory_url text not null,
  domain_id text not null references domains (id),
  renewal boolean not null,
  since timestamptz not null default hg_now(),
  retry_at timestamptz not null,
  primary key (directory_url, domain_id)
);
create index ca_budget_waiters_domain on ca_budget_waiters (domain_id);

-- A CA that answered rateLimited (with its Retry-After), 5xx or not at all: no worker sends it a
-- new order before `paused_until`; the next configured CA is used meanwhile.
create table ca_status (
  directory_url text primary key,
  paused_until timestamptz not null,
  reason text not null,
  updated_at timestamptz not null default hg_now()
);
