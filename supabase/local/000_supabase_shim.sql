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
-- as SHA-256 hashes, each usable once.
create table if not exists auth.refresh_tokens (
  token_hash text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);

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
