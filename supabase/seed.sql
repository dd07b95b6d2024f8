-- Seed data for `supabase db reset` (runs after every migration; see config.toml [db.seed]).
--
-- The knowledge base is not seeded here on purpose: its rows carry embeddings that only the ingestion
-- CLI can compute (the same model as the browser), and ingest_document writes a document with all its
-- chunks in one transaction. Fill it with:
--   SUPABASE_URL=… SUPABASE_SERVICE_ROLE_KEY=… npm run ingest -- demo/kb
--
-- What a fresh project needs beyond the migrations is only a sanity check that they ran.
do $$
begin
  if to_regprocedure('public.match_chunks(extensions.vector, double precision, integer)') is null then
    raise exception 'kb-chat migrations are missing: run `supabase db push` (or `supabase db reset`) first';
  end if;
end
$$;
