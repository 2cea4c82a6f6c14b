-- Zero-downtime moves (issue 17, docs/zero-downtime-moves.md): before a customer points a
-- hostname that still serves traffic elsewhere at us, they prove ownership (a TXT record
-- `_hostgate.<hostname>` holding the domain's token) and we get its certificate through DNS-01,
-- answered by the PowerDNS server we run for the challenge zone, so the edge holds it before the
-- first request arrives. Forward-only.

-- Per domain: the ownership token and the opaque label of its delegation target
-- (`_acme-challenge.<hostname> CNAME <challenge_label>.<challenge zone>`). Random per row, also for
-- the rows that exist already (a volatile default is evaluated per row). The label is not derived
-- from the hostname: the challenge zone is public and must not list our customers' hostnames.
alter table domains
  add column ownership_token text not null default replace(gen_random_uuid()::text, '-', ''),
  add column challenge_label text not null default replace(gen_random_uuid()::text, '-', ''),
  -- The two tracks shown beside the hostname's status (null: nothing checked yet):
  -- ownership {status: pending|verified, checked_at, verified_at, found, problem}
  -- certificate {status: pending_validation|issued|deployed, method, certificate_id, updated_at, problem}
  add column ownership jsonb,
  add column certificate_track jsonb;
create unique index domains_challenge_label on domains (challenge_label);

-- Every certificate order we place, with its outcome: what the abuse limits count (per
-- organization: orders per 3 h, certificates per registered domain per week; per hostname: failed
-- validations per hour). Kept below Let's Encrypt's own limits so one customer cannot exhaust
-- the account every other customer shares.
create table certificate_attempts (
  id bigserial primary key,
  organization_id text not null,
  domain_id text not null references domains (id),
  hostname text not null,
  registered_domain text not null,
  method text not null check (method in ('dns-01', 'http-01')),
  -- failed: the CA refused (counts against the hourly failed-validation limit); abandoned: the
  -- attempt stopped for another reason (CA unreachable, our DNS not answering, a crash).
  outcome text not null default 'pending' check (outcome in ('pending', 'issued', 'failed', 'abandoned')),
  created_at timestamptz not null default hg_now(),
  updated_at timestamptz not null default hg_now()
);
create index certificate_attempts_org on certificate_attempts (organization_id, created_at);
create index certificate_attempts_registered on certificate_attempts (organization_id, registered_domain, created_at);
create index certificate_attempts_hostname on certificate_attempts (hostname, created_at);

-- The challenge zone as PowerDNS's gpgsql backend reads it: its stock schema
-- (/usr/share/doc/pdns-backend-pgsql/schema.pgsql.sql, PowerDNS 4.7) in a schema of its own, so
-- its `domains` and `records` do not meet ours. pdns_server connects with
-- `gpgsql-extra-connection-parameters=options='-c search_path=pdns'`. A row inserted here is
-- answered at once (no reload; the server's caches are off, docs/zero-downtime-moves.md).
create schema if not exists pdns;

create table pdns.domains (
  id                    serial primary key,
  name                  varchar(255) not null,
  master                varchar(128) default null,
  last_check            int default null,
  type                  text not null,
  notified_serial       bigint default null,
  account               varchar(40) default null,
  options               text default null,
  catalog               text default null,
  constraint c_lowercase_name check (((name)::text = lower((name)::text)))
);
create unique index name_index on pdns.domains (name);
create index catalog_idx on pdns.domains (catalog);

create table pdns.records (
  id                    bigserial primary key,
  domain_id             int default null,
  name                  varchar(255) default null,
  type                  varchar(10) default null,
  content               varchar(65535) default null,
  ttl                   int default null,
  prio                  int default null,
  disabled              bool default 'f',
  ordername             varchar(255),
  auth                  bool default 't',
  constraint domain_exists foreign key (domain_id) references pdns.domains (id) on delete cascade,
  constraint c_lowercase_name check (((name)::text = lower((name)::text)))
);
create index rec_name_index on pdns.records (name);
create index nametype_index on pdns.records (name, type);
create index domain_id on pdns.records (domain_id);
create index recordorder on pdns.records (domain_id, ordername text_pattern_ops);

create table pdns.supermasters (
  ip                    inet not null,
  nameserver            varchar(255) not null,
  account               varchar(40) not null,
  primary key (ip, nameserver)
);

create table pdns.comments (
  id                    serial primary key,
  domain_id             int not null,
  name                  varchar(255) not null,
  type                  varchar(10) not null,
  modified_at           int not null,
  account               varchar(40) default null,
  comment               varchar(65535) not null,
  constraint domain_exists foreign key (domain_id) references pdns.domains (id) on delete cascade,
  constraint c_lowercase_name check (((name)::text = lower((name)::text)))
);
create index comments_domain_id_idx on pdns.comments (domain_id);
create index comments_name_type_idx on pdns.comments (name, type);
create index comments_order_idx on pdns.comments (domain_id, modified_at);

create table pdns.domainmetadata (
  id                    serial primary key,
  domain_id             int references pdns.domains (id) on delete cascade,
  kind                  varchar(32),
  content               text
);
create index domainidmetaindex on pdns.domainmetadata (domain_id);

create table pdns.cryptokeys (
  id                    serial primary key,
  domain_id             int references pdns.domains (id) on delete cascade,
  flags                 int not null,
  active                bool,
  published             bool default true,
  content               text
);
create index domainidindex on pdns.cryptokeys (domain_id);

create table pdns.tsigkeys (
  id                    serial primary key,
  name                  varchar(255),
  algorithm             varchar(50),
  secret                varchar(255),
  constraint c_lowercase_name check (((name)::text = lower((name)::text)))
);
create unique index namealgoindex on pdns.tsigkeys (name, algorithm);
