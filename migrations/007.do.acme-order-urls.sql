-- The URLs an order's next steps POST to, kept from the order's creation so those steps do not
-- have to ask the CA for the order and its authorizations again first (two signed requests per
-- issuance each). Null on orders placed before this migration: those steps then fetch them.
alter table acme_orders
  add column finalize_url text,
  add column challenge_urls text[];
