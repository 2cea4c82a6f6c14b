-- The HTTPS edge (edge/agent): what each edge node serves, which certificate it deployed, and the
-- bytes it carried per domain. Forward-only.

-- One row per edge node (HOSTGATE_EDGE_ID): a heartbeat and what its last sync found.
create table edge_nodes (
  id text primary key check (id ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
  started_at timestamptz not null default hg_now(),
  last_seen_at timestamptz not null default hg_now(),
  last_sync_at timestamptz,
  serving_hostnames integer not null default 0,
  -- Rows the agent refused (broken certificate, bad hostname): [{domain_id, hostname, code, message}].
  problems jsonb not null default '[]'
);

-- The certificate an edge serves for a domain right now (one row per edge and domain).
create table edge_deployments (
  edge_id text not null references edge_nodes (id) on delete cascade,
  domain_id text not null references domains (id),
  certificate_id text not null references certificates (id),
  deployed_at timestamptz not null default hg_now(),
  primary key (edge_id, domain_id)
);
create index edge_deployments_certificate on edge_deployments (certificate_id);

-- The last value of HAProxy's per-host byte counters the agent accounted for. Written in the
-- same transaction as the hourly buckets, so a restarted agent neither loses nor double-counts.
-- `process_key` names the HAProxy worker the counters belong to (a new worker starts from zero).
create table edge_bandwidth_counters (
  edge_id text not null references edge_nodes (id) on delete cascade,
  hostname text not null,
  process_key text not null,
  bytes_in bigint not null check (bytes_in >= 0),
  bytes_out bigint not null check (bytes_out >= 0),
  updated_at timestamptz not null default hg_now(),
  primary key (edge_id, hostname)
);

-- Bytes per domain and hour (HTTP bytes incl. headers, as HAProxy counts them), summed over edges.
create table domain_bandwidth_hourly (
  domain_id text not null references domains (id),
  hour timestamptz not null check (date_trunc('hour', hour) = hour),
  bytes_in bigint not null default 0 check (bytes_in >= 0),
  bytes_out bigint not null default 0 check (bytes_out >= 0),
  primary key (domain_id, hour)
);

-- The edge's change feed: a domain whose status or destination changed, or whose certificate was
-- stored or removed, is announced on channel `hostgate_edge` with its id as payload. The agents
-- LISTEN and re-read that domain; polling (updated_at) catches what a lost connection missed.
create function hg_notify_edge() returns trigger language plpgsql as $$
begin
  perform pg_notify('hostgate_edge', coalesce(new.domain_id, old.domain_id));
  return null;
end $$;

create function hg_notify_edge_domain() returns trigger language plpgsql as $$
begin
  perform pg_notify('hostgate_edge', coalesce(new.id, old.id));
  return null;
end $$;

create trigger domains_notify_edge after insert or update of status, destination_id or delete on domains
  for each row execute function hg_notify_edge_domain();
create trigger certificates_notify_edge after insert or update of deleted_at, private_key_enc or delete on certificates
  for each row execute function hg_notify_edge();

create index certificates_edge_changes on certificates (created_at);
create index domains_edge_changes on domains (updated_at);
