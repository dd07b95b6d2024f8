-- Generative mode: the visitor's browser writes a fuller answer from the cited passages and stores
-- it against the extractive answer it was written from, so history and replays show it. It lives in the
-- answer's meta (`meta.generated = {text, model, created_at}`): one answer, two views of it, no second row.
--
-- chat_save_generated is the only way in (visitors have no table privileges, 20261125000000): the caller's own
-- answer (not a refusal, not someone else's — the same error for both, so ids cannot be probed), the text
-- bounded, and every [n] marker one of the answer's citations — the server stays the gate on what a written
-- answer may claim as its source. Idempotent: the first written answer stays; a second call returns it.
create function chat_save_generated(p_message_id uuid, p_text text, p_model text)
returns jsonb
language plpgsql security definer
set search_path = public, extensions, pg_temp
as $$
declare
  v_user uuid := auth.uid();
  v_meta jsonb;
  v_citations jsonb;
  v_marker text[];
begin
  if v_user is null then
    raise exception 'chat_save_generated needs a signed-in user' using errcode = 'insufficient_privilege';
  end if;
  if p_text is null or char_length(btrim(p_text)) not between 1 and 8000
     or p_model is null or char_length(p_model) not between 1 and 200 then
    raise exception 'text must be 1 to 8000 characters and model 1 to 200' using errcode = 'invalid_parameter_value';
  end if;
  select m.meta, m.citations into v_meta, v_citations
  from chat_messages m join chat_sessions s on s.id = m.session_id
  where m.id = p_message_id and m.role = 'assistant' and s.user_id = v_user
    and coalesce(m.meta ->> 'kind', 'answer') = 'answer'
  for update of m;
  if not found then
    raise exception 'message % is not an answer of this user', p_message_id using errcode = 'insufficient_privilege';
  end if;
  if v_meta ? 'generated' then
    return v_meta -> 'generated';
  end if;
  -- Every number of every marker, `[2]` as well as a list such as `[1, 2]`.
  for v_marker in select regexp_matches(p_text, '\[\s*(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\s*\]', 'g') loop
    if exists (
      select 1 from regexp_split_to_table(v_marker[1], '\s*[,;]\s*') n
      where not exists (
        select 1 from jsonb_array_elements(coalesce(v_citations, '[]'::jsonb)) c where (c ->> 'n')::text = ltrim(n, '0')
      )
    ) then
      raise exception 'text cites [%], which is not a source of this answer', v_marker[1] using errcode = 'invalid_parameter_value';
    end if;
  end loop;
  update chat_messages
  set meta = meta || jsonb_build_object('generated', jsonb_build_object('text', btrim(p_text), 'model', p_model, 'created_at', now()))
  where id = p_message_id
  returning meta -> 'generated' into v_meta;
  return v_meta;
end;
$$;

revoke all on function chat_save_generated(uuid, text, text) from public, anon, authenticated;
grant execute on function chat_save_generated(uuid, text, text) to authenticated, service_role;
