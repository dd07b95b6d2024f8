-- Chat history: sessions and messages, each visible only to its owner.
-- The API calls these functions with the visitor's JWT, so row-level security — not a WHERE clause in
-- application code — is what keeps one visitor out of another's history.

create table chat_sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  title text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table chat_sessions enable row level security;
create index chat_sessions_user_updated on chat_sessions (user_id, updated_at desc);

create policy "own sessions: select" on chat_sessions for select to authenticated
  using (user_id = auth.uid());
create policy "own sessions: insert" on chat_sessions for insert to authenticated
  with check (user_id = auth.uid());
create policy "own sessions: update" on chat_sessions for update to authenticated
  using (user_id = auth.uid()) with check (user_id = auth.uid());
create policy "own sessions: delete" on chat_sessions for delete to authenticated
  using (user_id = auth.uid());

create table chat_messages (
  -- For user messages, the client-generated message_id of the request (so a retried request finds its turn).
  id uuid primary key default gen_random_uuid(),
  session_id uuid not null references chat_sessions (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  content text not null,
  -- Assistant answers: [{ n, chunk_id, document_id, title, page, section, url, similarity }]; null otherwise.
  citations jsonb,
  -- The user message an assistant message answers: one answer per question.
  reply_to uuid unique references chat_messages (id) on delete cascade,
  -- kind: 'answer' | 'refusal'; a refusal keeps its reason and suggestions here.
  meta jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
alter table chat_messages enable row level security;
create index chat_messages_session_created on chat_messages (session_id, created_at);

create policy "messages of own sessions: select" on chat_messages for select to authenticated
  using (exists (select 1 from chat_sessions s where s.id = session_id and s.user_id = auth.uid()));
create policy "messages of own sessions: insert" on chat_messages for insert to authenticated
  with check (exists (select 1 from chat_sessions s where s.id = session_id and s.user_id = auth.uid()));
