-- Traffic analytics per hostname (issue 24; docs/analytics.md). Forward-only.
--
-- Each edge agent counts the request log lines HAProxy sends it and adds them, once per flush and
-- in one statement (db/repositories/traffic.ts), to a row per domain, minute and edge and to the
-- hour row of the same key: the hour is the exact sum of its minutes from the start, so no later
-- rollup job can miss or double a minute. Rows are keyed by edge (each edge writes its own) and
-- reads sum over edges. Origin times are a sparse histogram of fixed log buckets
-- (model/analytics-counters.ts): {"bucket index": count}, summed bucket by bucket.
-- Retention (temporal Schedules `traffic-minutes`, `traffic-hours`): minutes 48 h, hours 400 days.

create function hg_hist_add(a jsonb, b jsonb) returns jsonb language sql immutable parallel safe as $$
  select coalesce(jsonb_object_agg(k, n), '{}'::jsonb)
  from (select k, sum(v::bigint) as n
        from (select * from jsonb_each_text(coalesce(a, '{}'::jsonb)) union all select * from jsonb_each_text(coalesce(b, '{}'::jsonb))) e (k, v)
        group by k) s
$$;

create aggregate hg_hist_sum(jsonb) (sfunc = hg_hist_add, stype = jsonb, initcond = '{}');

-- The value a bucket stands for, as model/analytics-counters.ts `bucketValue` reads it (γ = 1.05):
-- its only whole millisecond when it holds one, else its geometric middle.
create function hg_bucket_value(i int) returns float8 language sql immutable parallel safe as $$
  select case when i <= 0 then 0::float8
    when ceil(1.05::float8 ^ (i - 1) - 1e-9) < 1.05::float8 ^ i and ceil(1.05::float8 ^ (i - 1) - 1e-9) + 1 >= 1.05::float8 ^ i then ceil(1.05::float8 ^ (i - 1) - 1e-9)
    else sqrt(1.05::float8 ^ (i - 1) * 1.05::float8 ^ i) end
$$;

-- The q-quantile (nearest rank) of a histogram in ms, one decimal, as `histogramQuantiles` reads it.
create function hg_hist_quantile(h jsonb, q float8) returns float8 language sql immutable parallel safe as $$
  select (round((hg_bucket_value(i) * 10)::numeric) / 10)::float8
  from (select k::int as i, sum(v::bigint) over (order by k::int) as cum, sum(v::bigint) over () as total
        from jsonb_each_text(coalesce(h, '{}'::jsonb)) e (k, v) where v::bigint > 0) t
  where cum >= greatest(1, ceil(q * total)) order by i limit 1
$$;

-- Each row keeps the percentiles of its own histogram, so a series of one edge's rows is read
-- without the histograms (docs/analytics.md, "Reading fast"); only sums over edges merge them.
create function hg_traffic_percentiles() returns trigger language plpgsql as $$
begin
  new.origin_p50 := hg_hist_quantile(new.origin_ms, 0.5);
  new.origin_p95 := hg_hist_quantile(new.origin_ms, 0.95);
  new.origin_p99 := hg_hist_quantile(new.origin_ms, 0.99);
  return new;
end $$;

create table domain_traffic_minutes (
  domain_id text not null references domains (id),
  minute timestamptz not null check (date_trunc('minute', minute) = minute),
  edge_id text not null references edge_nodes (id) on delete cascade,
  -- Copied from the domain at insert: the organization's totals are one index range, no join.
  organization_id text not null,
  requests bigint not null default 0,
  status_2xx bigint not null default 0,
  status_3xx bigint not null default 0,
  status_4xx bigint not null default 0,
  status_5xx bigint not null default 0,
  edge_answers bigint not null default 0,
  no_answer bigint not null default 0,
  bytes_in bigint not null default 0,
  bytes_out bigint not null default 0,
  http1 bigint not null default 0,
  http2 bigint not null default 0,
  tls12 bigint not null default 0,
  tls13 bigint not null default 0,
  total_ms_sum bigint not null default 0,
  origin_ms jsonb not null default '{}',
  origin_p50 float8,
  origin_p95 float8,
  origin_p99 float8,
  primary key (domain_id, minute, edge_id)
);
create index domain_traffic_minutes_org on domain_traffic_minutes (organization_id, minute);
create index domain_traffic_minutes_minute on domain_traffic_minutes (minute);

create table domain_traffic_hours (like domain_traffic_minutes including defaults);
alter table domain_traffic_hours rename column minute to hour;
alter table domain_traffic_hours add primary key (domain_id, hour, edge_id);
alter table domain_traffic_hours add foreign key (domain_id) references domains (id);
alter table domain_traffic_hours add foreign key (edge_id) references edge_nodes (id) on delete cascade;
alter table domain_traffic_hours add check (date_trunc('hour', hour) = hour);
create index domain_traffic_hours_org on domain_traffic_hours (organization_id, hour);
create index domain_traffic_hours_hour on domain_traffic_hours (hour);
create trigger domain_traffic_minutes_percentiles before insert or update on domain_traffic_minutes for each row execute function hg_traffic_percentiles();
create trigger domain_traffic_hours_percentiles before insert or update on domain_traffic_hours for each row execute function hg_traffic_percentiles();

-- Per edge and minute: the lines the agent received, those of requests the bandwidth stick table
-- counted, and what that table counted over the same flushes (completeness = counted_lines ÷
-- counted_requests; a line lost under overload or while the agent was away shows here).
create table edge_traffic_minutes (
  edge_id text not null references edge_nodes (id) on delete cascade,
  minute timestamptz not null check (date_trunc('minute', minute) = minute),
  lines bigint not null default 0,
  counted_lines bigint not null default 0,
  counted_requests bigint not null default 0,
  unattributed bigint not null default 0,
  malformed bigint not null default 0,
  primary key (edge_id, minute)
);
create index edge_traffic_minutes_minute on edge_traffic_minutes (minute);

-- The stick table's request total at the last flush (absolute; a new HAProxy worker starts at 0).
create table edge_traffic_baseline (
  edge_id text primary key references edge_nodes (id) on delete cascade,
  process_key text not null,
  requests bigint not null check (requests >= 0),
  updated_at timestamptz not null default hg_now()
);
