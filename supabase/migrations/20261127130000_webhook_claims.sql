-- Webhook events sent once across servers. Several Node servers on one PostgreSQL database (DATABASE_URL)
-- each run their own dispatcher; a visitor's retried request — or the same message_id sent to two servers
-- at once — makes each of them emit the same `question.refused` event (its id is the refusal's). The event
-- is sent by whichever server claims its id first: a unique key decides, so two claims at once cannot both
-- win. Claims older than a day are deleted as new ones are made (a retry comes within seconds or minutes).
create table kb_webhook_claims (
  event_id text primary key check (char_length(event_id) between 1 and 200),
  claimed_at timestamptz not null default now()
);
alter table kb_webhook_claims enable row level security;
-- Supabase grants anon and authenticated every privilege on a new table by default; only the server's own
-- connection (the owner, or the service role) claims events.
revoke all on kb_webhook_claims from anon, authenticated;
create index kb_webhook_claims_claimed_at on kb_webhook_claims (claimed_at);

create function kb_claim_webhook_event(p_event_id text)
returns boolean
language plpgsql
set search_path = public, extensions, pg_temp
as $$
declare
  v_claimed boolean;
begin
  delete from kb_webhook_claims where claimed_at < now() - interval '1 day';
  insert into kb_webhook_claims (event_id) values (p_event_id)
  on conflict (event_id) do nothing
  returning true into v_claimed;
  return coalesce(v_claimed, false);
end;
$$;
comment on function kb_claim_webhook_event(text) is 'Claims a webhook event id for this server: true for the first claim of that id, false for every later one (another server, or a retried request, already sends it). Called by the Node server''s webhook dispatcher with its own connection.';
revoke all on function kb_claim_webhook_event(text) from public, anon, authenticated;
grant execute on function kb_claim_webhook_event(text) to service_role;
