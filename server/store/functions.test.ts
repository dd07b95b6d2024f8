/**
 * The embedded store's statements, built from the one description of each SQL function. Whether the
 * description matches the database (names, argument order, grants) is test/workerd/schema.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { isRetried, positionalCall, SQL_FUNCTIONS } from './functions.ts';
import type { Rpc } from './supabase.ts';

describe('positionalCall', () => {
  it('numbers the arguments in declaration order, whatever order the call names them in', () => {
    expect(positionalCall('rate_limit_hit', { p_window_seconds: 60, p_bucket: 'chat', p_limit: 5 })).toEqual({
      sql: 'select * from rate_limit_hit($1, $2, $3)',
      params: ['chat', 5, 60],
    });
  });

  it('sends JSON arguments as text cast to their type, and null as null', () => {
    const { sql, params } = positionalCall('search_chunks', {
      query_embedding: [0.5, 1],
      query_text: 'refunds',
      match_count: 5,
      search_mode: 'hybrid',
      filters: { tags: ['a'] },
      candidate_count: 50,
    });
    expect(sql).toBe('select * from search_chunks($1::vector, $2, $3, $4, $5::jsonb, $6)');
    expect(params).toEqual(['[0.5,1]', 'refunds', 5, 'hybrid', '{"tags":["a"]}', 50]);
    expect(positionalCall('kb_set_http_cache', { p_source: 's', p_http_cache: null }).params).toEqual(['s', null]);
  });

  it('selects a single value as v, and leaves trailing arguments to their defaults', () => {
    expect(positionalCall('kb_has_documents', {}).sql).toBe('select kb_has_documents() as v');
    expect(
      positionalCall('record_content_gap', { p_question: 'q', p_reason: 'r', p_message_id: 'm', p_write_key: 'k' }).sql,
    ).toBe('select record_content_gap($1, $2, $3, $4) as v');
    expect(positionalCall('list_chat_sessions', {})).toEqual({ sql: 'select * from list_chat_sessions()', params: [] });
  });

  it('refuses an argument the function does not have, or a gap before a given one', () => {
    expect(() => positionalCall('get_chunk', { p_chunk: 'x' } as never)).toThrow(/get_chunk: no argument p_chunk/);
    expect(() => positionalCall('rate_limit_hit', { p_bucket: 'chat', p_window_seconds: 60 })).toThrow(
      /p_limit left out/,
    );
  });
});

describe('SQL_FUNCTIONS', () => {
  it('retries only what a store calls and says is safe to repeat', () => {
    expect(isRetried('search_chunks')).toBe(true);
    expect(isRetried('rate_limit_hit')).toBe(false);
    expect(isRetried('kb_search_chunks')).toBe(false);
    expect(isRetried('toString')).toBe(false);
  });

  it('names every argument once, and the answer write key only where the server stores its word', () => {
    for (const [name, f] of Object.entries(SQL_FUNCTIONS)) {
      const names = f.args.map((a) => a.split(':')[0]);
      expect(new Set(names).size, name).toBe(names.length);
    }
    const keyed = Object.entries(SQL_FUNCTIONS)
      .filter(([, f]) => f.args.some((a) => a === 'p_write_key'))
      .map(([name]) => name);
    expect(keyed.sort()).toEqual(['chat_finish_turn', 'chat_save_generated', 'record_content_gap']);
  });
});

describe('the Supabase store’s calls', () => {
  it('are typed per function: another function’s argument name does not type-check (tsc checks this file)', () => {
    const calls: string[] = [];
    const rpc = ((fn: string) => (calls.push(fn), Promise.resolve(null))) as unknown as Rpc;
    void rpc('kb_set_http_cache', { p_source: 's', p_http_cache: null });
    // @ts-expect-error p_prefix is kb_http_cache's argument, not kb_set_http_cache's
    void rpc('kb_set_http_cache', { p_prefix: 'https://site/' });
    // @ts-expect-error no such function
    void rpc('kb_no_such_function', {});
    expect(calls).toEqual(['kb_set_http_cache', 'kb_set_http_cache', 'kb_no_such_function']);
  });
});
