-- Settings a vendor changes after a domain is connected (issue 23): its metadata (a JSON object of
-- strings, filterable by one key), an edge redirect and per-hostname TLS settings. The edge reads
-- redirect and TLS settings with the route, so a change to them (or to the destination's host or
-- port) notifies the edge like a status change does.
alter table domains
  add column metadata jsonb,
  add column redirect jsonb,
  add column tls_min_version text not null default '1.2' check (tls_min_version in ('1.2', '1.3')),
  add column hsts jsonb;

-- GET /v1/domains?metadata[key]=value: containment on the organization's domains.
create index domains_metadata on domains using gin (metadata jsonb_path_ops) where metadata is not null;

drop trigger domains_notify_edge on domains;
create trigger domains_notify_edge after insert or update of status, destination_id, redirect, tls_min_version, hsts or delete on domains
  for each row execute function hg_notify_edge_domain();

-- A destination's new URL re-routes every domain on it (PATCH /v1/destinations/{id}).
create function hg_notify_edge_destination() returns trigger language plpgsql as $$
begin
  perform pg_notify('hostgate_edge', d.id) from domains d where d.destination_id = new.id and d.status <> 'deleted';
  return null;
end $$;
create trigger destinations_notify_edge after update of host, port on destinations
  for each row execute function hg_notify_edge_destination();

-- The event of a PATCH (hostname.updated).
alter table events drop constraint events_kind_check;
alter table events add constraint events_kind_check check (kind in ('hostname.created', 'hostname.verified', 'hostname.active', 'hostname.failed',
  'hostname.suspended', 'hostname.deleting', 'hostname.deleted', 'hostname.dns_broken', 'hostname.updated'));
