-- The webhook consumer's view (issue 25). Attempts get an id of their own (`wha_…`) and a number
-- over the delivery's whole life (`sequence_number`: 1, 2, … continuing across manual retries,
-- which restart `attempt_number`, the workflow's count since the last reset). Both are set on
-- insert by a trigger, so every writer (the delivery activity, tests, benches) gets them; the
-- activity locks the delivery row first, so two attempts of one delivery never draw one number.
alter table webhook_attempts add column id text, add column sequence_number integer;

update webhook_attempts a set
  id = 'wha_' || substr(md5(a.delivery_id || '/' || a.started_at::text || '/' || a.attempt_number::text), 1, 26),
  sequence_number = n.seq
from (
  select delivery_id, started_at, attempt_number,
         row_number() over (partition by delivery_id order by started_at, attempt_number)::int as seq
  from webhook_attempts
) n
where n.delivery_id = a.delivery_id and n.started_at = a.started_at and n.attempt_number = a.attempt_number;

create function hg_webhook_attempt_defaults() returns trigger language plpgsql as $$
begin
  -- 26 lowercase hex digits: within the ids' alphabet (db/ids.ts), random enough to be unique.
  if new.id is null then
    new.id := 'wha_' || substr(md5(random()::text || clock_timestamp()::text || new.delivery_id), 1, 26);
  end if;
  if new.sequence_number is null then
    new.sequence_number := coalesce((select max(sequence_number) from webhook_attempts where delivery_id = new.delivery_id), 0) + 1;
  end if;
  return new;
end $$;

create trigger webhook_attempt_defaults before insert on webhook_attempts
  for each row execute function hg_webhook_attempt_defaults();

alter table webhook_attempts
  alter column id set not null,
  alter column sequence_number set not null,
  add constraint webhook_attempts_id unique (id),
  add constraint webhook_attempts_sequence unique (delivery_id, sequence_number);

-- Set while an attempt is out (the request is being made), cleared when it is recorded or put
-- off: the API shows `attempting: true` and no `next_attempt_at` in the past meanwhile.
alter table webhook_deliveries add column attempting_since timestamptz;
