-- ACME orders, so certificate issuance resumes after a crash: the order URL is known before the
-- CA is told anything else, and the certificate's private key is generated and stored (sealed)
-- before the CSR is sent, so a re-run finalizes or downloads with the same key instead of
-- starting over. `completed` means the certificate is stored (`certificate_id`); the key then
-- lives on the certificate row and is cleared here.
create table acme_orders (
  order_url text primary key,
  domain_id text not null references domains (id),
  directory_url text not null,
  hostname text not null,
  status text not null check (status in ('pending', 'ready', 'processing', 'valid', 'invalid', 'completed', 'abandoned')),
  expires_at timestamptz,
  private_key_enc bytea,
  key_id text,
  certificate_id text references certificates (id),
  error jsonb,
  created_at timestamptz not null default hg_now(),
  updated_at timestamptz not null default hg_now(),
  check ((private_key_enc is null) = (key_id is null)),
  check (status <> 'completed' or certificate_id is not null)
);
create index acme_orders_domain on acme_orders (domain_id, created_at desc);
-- At most one order in flight per domain: a retried "begin" finds it instead of opening another.
create unique index acme_orders_open_per_domain on acme_orders (domain_id) where status not in ('invalid', 'completed', 'abandoned');
