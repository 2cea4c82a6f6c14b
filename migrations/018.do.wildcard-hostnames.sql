-- Wildcard hostnames (issue 22, docs/wildcards.md). Forward-only.
--
-- `*.<base>` covers every single-label name directly under <base>. An organization's wildcard
-- must never cover a name another organization connected, nor the reverse: the edge would serve
-- one organization's visitors with the other's certificate or route. Checked by the database, so
-- two concurrent creates cannot both pass a check and both insert (an exclusion constraint takes
-- the same kind of index lock a unique index does):
--   parent   — the hostname without its first label (`*.shop.example.com` and `a.shop.example.com`
--              both have `shop.example.com`);
--   wildcard — 1 for `*.…`, 0 otherwise;
-- two live rows conflict when their parents are equal, exactly one is a wildcard and their
-- organizations differ. Two exact names under one parent never conflict (wildcard equal), nor a
-- wildcard and names of its own organization (an exact name of the same organization wins at the
-- edge), nor `<base>` itself or deeper names (a `*.<base>` certificate covers neither). Two
-- wildcards on one name are already one hostname (domains_live_hostname).
--
-- `on conflict do nothing` in domains.create takes this constraint as an arbiter too (exclusion
-- constraints are allowed for DO NOTHING), so a refused create inserts nothing and raises nothing.
-- btree_gist gives GiST the `=`/`<>` operators of text and smallint (a trusted extension since
-- Postgres 13: the database owner may create it).
create extension if not exists btree_gist;

alter table domains
  add column cover_parent text generated always as (substr(hostname, strpos(hostname, '.') + 1)) stored,
  add column cover_wildcard smallint generated always as (case when left(hostname, 2) = '*.' then 1 else 0 end) stored;

alter table domains add constraint domains_wildcard_isolation
  exclude using gist (cover_parent with =, cover_wildcard with <>, organization_id with <>) where (status <> 'deleted');

-- The hostname check of migration 001 (lowercase, 1–253) holds for `*.` names as they are.
