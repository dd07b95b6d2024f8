-- Local only: what a Supabase project already has, so that the *same* migrations and row-level security
-- run in the embedded PGlite database. Never pushed to Supabase (it lives outside supabase/migrations).
-- Mirrors Supabase: the API roles, auth.uid() read from the JWT claims PostgREST puts in
-- `request.jwt.claims`, a minimal auth.users, the `extensions` schema, and default grants so that
-- row-level security, not table privileges, decides what a visitor sees.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
end
$$;

create schema if not exists extensions;
create schema if not exists auth;
grant usage on schema extensions, auth, public to anon, authenticated, service_role;

create table if not exists auth.users (
  id uuid primary key default gen_random_uuid(),
  is_anonymous boolean not null default true,
  created_at timestamptz not null default now()
);

-- Refresh tokens of the local anonymous sign-in (Supabase Auth keeps its own in auth.refresh_tokens): stored
-- as SHA-256 hashes, each usable once. A sign-in starts a family; each refresh uses up one token and issues
-- the next of the same family, which never outlives `family_expires_at` (the session's absolute end, fixed
-- at sign-in). Presenting a token of the family that was used already means two parties hold it (a thief
-- and the visitor): the whole family is deleted, so both must sign in again. Used tokens are therefore
-- kept until the family ends; rows are pruned a bounded batch at a time whenever a token is issued.
create table if not exists auth.refresh_tokens (
  token_hash text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
-- Families came later: a token made before is a family of its own that ends when the token expires.
alter table auth.refresh_tokens add column if not exists family_id uuid;
alter table auth.refresh_tokens add column if not exists family_expires_at timestamptz;
update auth.refresh_tokens set family_id = gen_random_uuid(), family_expires_at = expires_at where family_id is null;
alter table auth.refresh_tokens alter column family_id set not null, alter column family_expires_at set not null;
create index if not exists refresh_tokens_family on auth.refresh_tokens (family_id);
-- What pruning looks for: ended families, and unused tokens past their own expiry.
create index if not exists refresh_tokens_family_end on auth.refresh_tokens (family_expires_at);
create index if not exists refresh_tokens_unused_end on auth.refresh_tokens (expires_at) where used_at is null;

create or replace function auth.jwt() returns jsonb
language sql stable
as $$ select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb $$;

create or replace function auth.uid() returns uuid
language sql stable
as $$ select nullif(auth.jwt() ->> 'sub', '')::uuid $$;

create or replace function auth.role() returns text
language sql stable
as $$ select auth.jwt() ->> 'role' $$;

alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant execute on functions to anon, authenticated, service_role;

-- One-time sign-in links of the local admin (`npm run admin -- link`): a link is a signed token; when it is
-- exchanged for a session the `jti` of its verified payload is stored here, so it can never be used again.
-- The key is the jti, not the token's text: the JWT verifier decodes base64url leniently (`=` padding, the
-- unused low bits of the signature's last character, whitespace), so one signature has several spellings
-- that all verify, and each would be a "new" string. The first exchange creates the local admin user; later
-- ones sign in as that same user. On Supabase, Supabase Auth signs admins in (magic link or password) and
-- none of this exists.
create table if not exists auth.admin_link_uses (
  jti text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  used_at timestamptz not null default now()
);
-- Databases made before the key was the jti: keep their rows (the first one names the local admin); the
-- old keys are hashes of expired links and can never equal a jti.
do $$
begin
  if exists (select 1 from information_schema.columns where table_schema = 'auth' and table_name = 'admin_link_uses' and column_name = 'token_hash') then
    alter table auth.admin_link_uses rename column token_hash to jti;
  end if;
end
$$;

-- On a PostgreSQL server (DATABASE_URL) the server connects as the database's owner, who must be able to
-- `set role authenticated` for a visitor's call as PostgREST does: a member of the API roles. A superuser
-- (PGlite, a test cluster) is one already; a managed database's owner (RDS, Cloud SQL, Neon) is not.
do $$
begin
  if not (select rolsuper from pg_roles where rolname = current_user) then
    execute format('grant anon, authenticated, service_role to %I', current_user);
  end if;
end
$$;
