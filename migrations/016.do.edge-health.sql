-- Several edges (docs/edge.md, "Several edges"): each edge reports with its heartbeat how often it
-- beats (liveness = a heartbeat within 3 of its own intervals) and its own view of itself (the
-- state its health endpoint answers with). A certificate counts as deployed once every live edge
-- in state `in_sync` serves it (model/edge-health.ts). Forward-only.
--
-- Rows written by an agent from before this migration keep the defaults: `in_sync` at the old
-- 10 s heartbeat, which is what activation assumed of them until now.
alter table edge_nodes
  add column heartbeat_interval_ms integer not null default 10000 check (heartbeat_interval_ms between 100 and 600000),
  add column state text not null default 'in_sync' check (state in ('catching_up', 'in_sync', 'haproxy_unreachable', 'stopping')),
  -- Milliseconds since the agent's last complete read of Postgres, at its last heartbeat (null: none yet).
  add column sync_lag_ms integer check (sync_lag_ms >= 0);
