/** CORS: only the configured origins (the sites embedding the widget), correct preflight, no credentials. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from './testing/api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ allowedOrigins: ['https://docs.example.com'] });
});
afterAll(() => api?.close());

const preflight = (origin: string) =>
  api.app.request('/api/chat', {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, content-type',
    },
  });

describe('CORS', () => {
  it('answers a preflight from an allowed origin', async () => {
    const res = await preflight('https://docs.example.com');
    expect(res.status).toBe(204);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.example.com');
    expect(res.headers.get('Access-Control-Allow-Methods')).toContain('POST');
    expect(res.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('authorization');
    expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
  });

  it('grants nothing to another origin', async () => {
    const res = await preflight('https://evil.example');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBeNull();
    const get = await api.app.request('/api/health', { headers: { Origin: 'https://evil.example' } });
    expect(get.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('exposes the rate-limit headers to allowed pages', async () => {
    const res = await api.app.request('/api/health', { headers: { Origin: 'https://docs.example.com' } });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('https://docs.example.com');
    expect(res.headers.get('Access-Control-Expose-Headers')).toContain('X-RateLimit-Remaining');
  });

  it('a wildcard never comes with credentials', async () => {
    const open = api.instance({ allowedOrigins: ['*'] });
    const res = await open.request('/api/chat', {
      method: 'OPTIONS',
      headers: { Origin: 'https://any.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
  });
});
