-- Stored idempotent responses can carry secrets shown once (webhook signing secrets), so they are
-- kept encrypted like every other secret at rest.
alter table idempotency_keys drop column response_body;
alter table idempotency_keys add column response_body_enc bytea;
alter table idempotency_keys add column response_key_id text;
