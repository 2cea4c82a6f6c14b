-- The customer's own certificate (issue 22, part B; docs/custom-certificates.md).
--
-- A custom certificate is a `certificates` row with source 'custom' (column added by 015). While
-- it is "in place" (not withdrawn, not deleted) it is the domain's current certificate whatever
-- managed ones exist, and the domain workflow orders none. `withdrawn_at`: the customer removed it
-- (DELETE /v1/domains/{id}/certificate) or it is about to lapse and a managed one was ordered; a
-- withdrawn certificate is still served, ranked by age like a managed one, until a newer managed
-- certificate is stored (db/repositories/certificates.ts, currentFirst).
alter table certificates add column withdrawn_at timestamptz;
alter table certificates add constraint certificates_withdrawn_custom check (withdrawn_at is null or source = 'custom');
-- One custom certificate in place per domain: a new PUT retires the previous one in its transaction.
create unique index certificates_custom_in_place on certificates (domain_id) where source = 'custom' and withdrawn_at is null and deleted_at is null;

-- A withdrawal changes what the edge serves: announce it like a store or a removal.
drop trigger certificates_notify_edge on certificates;
create trigger certificates_notify_edge after insert or update of deleted_at, private_key_enc, withdrawn_at or delete on certificates
  for each row execute function hg_notify_edge();

-- History: a custom certificate put in place, removed by the customer, or replaced by a managed
-- order because it is about to lapse.
alter table certificate_history drop constraint certificate_history_kind_check;
alter table certificate_history add constraint certificate_history_kind_check check (kind in ('issued', 'renewed', 'renewal_failed', 'due_on_arrival',
  'lifetime_below_floor', 'order_brake', 'custom_installed', 'custom_removed', 'custom_lapsing'));
