-- The reconciler runs every second: its queries must not scan the whole domains table
-- (bench:lifecycle saw 307k rows read per minute at 5k domains) nor the outbox.
create index domains_without_workflow on domains (created_at) where workflow_started_at is null and status <> 'deleted';
create index workflow_outbox_workflow on workflow_outbox (workflow_id, kind);
