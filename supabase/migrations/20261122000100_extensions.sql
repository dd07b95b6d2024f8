-- pgvector for embeddings. Supabase keeps extensions in their own schema; `extensions` is on the
-- search_path of every Supabase role (and of the embedded database, see supabase/local).
create extension if not exists vector with schema extensions;
