-- Usage counting at commit (issue 26). Forward-only.
--
-- Migration 009 moved `organization_usage` from a plain row trigger: the organization's usage row
-- was locked at the INSERT of a domain and held until the create's COMMIT, so every create of one
-- organization waited for the whole of the previous one (its history, event, outbox and
-- idempotency statements, the client round trips between them, and the commit). The same function
-- now runs from a DEFERRABLE INITIALLY DEFERRED constraint trigger: Postgres fires it inside
-- COMMIT, after the transaction's last statement, so the row is locked only for the update itself
-- and the commit's WAL flush. The counting stays exactly as exact: the lock is still taken, still
-- held until commit, and changes still apply one at a time in the order they take the row — which
-- is now the order they commit, the order any reader sees them in.
--
-- Chosen over (measured and reasoned in docs/billing.md, "Counting and concurrency"):
-- - counter shards per organization: `active_hostnames` is a sum over shards, but the peak of a sum
--   is not a sum of shard peaks; an exact peak still needs one ordered place.
-- - an ordered usage log rolled up later: the log's order (a sequence taken at INSERT) is not the
--   commit order, so a roll-up could compute a peak a reader already saw and then lower it when a
--   concurrent transaction with a smaller number commits; fixing the order needs the commit order,
--   i.e. this lock at commit.
--
-- Semantics kept: a transaction's `SET CONSTRAINTS ALL IMMEDIATE` (none in the code) would make it
-- fire per statement again; a transaction reading `organization_usage` after moving a domain reads
-- the count before its own change (none does: GET /v1/usage and the billing period close run in
-- their own transactions).
drop trigger domains_usage_count on domains;
create constraint trigger domains_usage_count after insert or update of status or delete on domains
  deferrable initially deferred
  for each row execute function hg_usage_count_domain();
