-- Webhook deliveries ride the workflow outbox: the fan-out commits a delivery row and its
-- "start workflow" row together, and a retry through the API commits the reset and its signal
-- together, so neither is lost when Temporal is unreachable or a process dies after commit.
alter table workflow_outbox drop constraint workflow_outbox_kind_check;
alter table workflow_outbox add constraint workflow_outbox_kind_check
  check (kind in ('start_domain', 'signal_domain', 'start_delivery', 'retry_delivery'));

-- Wakes the webhook fan-out (LISTEN hostgate_events in the worker) when an event commits, so a
-- delivery starts within milliseconds instead of at the next sweep. One notification per
-- statement; Postgres delivers it at commit and drops it on rollback.
create function hg_notify_events() returns trigger language plpgsql as $$
begin
  perform pg_notify('hostgate_events', '');
  return null;
end $$;
create trigger events_notify after insert on events for each statement execute function hg_notify_events();

