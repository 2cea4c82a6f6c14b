-- Outbox rows are leased for a short time instead of being locked for the whole dispatch, so a
-- dispatcher never holds a database connection while it waits on Temporal.
alter table workflow_outbox add column locked_until timestamptz;
