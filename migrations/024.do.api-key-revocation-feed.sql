-- The API's key-revocation feed: the API process keeps keys it has authenticated in memory for a
-- few seconds (api/api-key-cache.ts), and evicts one the moment it is revoked, changed or removed
-- here — from any connection (the CLI, another API process) — by LISTENing on `hostgate_api_keys`,
-- whose payload is the key's id. The cache's short TTL bounds a notification that is lost; while
-- its LISTEN connection is down it caches nothing. Forward-only.
create function hg_notify_api_key() returns trigger language plpgsql as $$
begin
  perform pg_notify('hostgate_api_keys', old.id);
  return null;
end $$;

-- What the cache holds is the row a lookup returns: any change of it, not only a revocation.
-- last_used_at is not part of what authenticates a key, so a change of it alone (were it kept
-- per request) would not flood the channel.
create trigger api_keys_notify_change after update on api_keys for each row
  when (old.revoked_at is distinct from new.revoked_at
        or old.scopes is distinct from new.scopes
        or old.organization_id is distinct from new.organization_id
        or old.secret_hash is distinct from new.secret_hash
        or old.name is distinct from new.name)
  execute function hg_notify_api_key();

create trigger api_keys_notify_delete after delete on api_keys for each row
  execute function hg_notify_api_key();
