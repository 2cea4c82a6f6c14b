-- Indexes for the retention purges (workflows/maintenance/, db/repositories/retention.ts): each
-- hourly batch finds its oldest rows by an index instead of scanning the table, and deleting an
-- event no longer scans webhook_deliveries for the foreign-key check (event_id was only the
-- second column of unique (endpoint_id, event_id)).
create index webhook_deliveries_event on webhook_deliveries (event_id);
create index webhook_deliveries_finished_created on webhook_deliveries (created_at) where status in ('succeeded', 'failed');
create index events_fanned_out_created on events (created_at) where fanned_out_at is not null;
create index widget_sessions_expiry on widget_sessions (expires_at);
create index workflow_outbox_dispatched on workflow_outbox (dispatched_at) where dispatched_at is not null;

-- The API key that created a widget session: revoking the key ends its sessions at once, instead
-- of leaving their tokens valid for up to 30 minutes. Null for sessions made before this column
-- (and for the development demo's, which no key makes).
alter table widget_sessions add column api_key_id text references api_keys (id);
