import { describe, expect, it } from 'vitest';
import { readConfig } from './index.ts';

describe('KB_WEBHOOK_* configuration', () => {
  it('is off unless set, and takes an https URL with a secret of at least 32 characters', () => {
    expect(readConfig({}).webhook).toEqual({ url: null, secret: null, allowLoopback: false });
    expect(
      readConfig({
        KB_WEBHOOK_URL: 'https://hooks.example.com/kb',
        KB_WEBHOOK_SECRET: 'whsec-0123456789abcdef0123456789abcdef',
      }).webhook,
    ).toEqual({
      url: 'https://hooks.example.com/kb',
      secret: 'whsec-0123456789abcdef0123456789abcdef',
      allowLoopback: false,
    });
  });

  it('refuses to start with a URL the server would not post to, or a short secret', () => {
    expect(() => readConfig({ KB_WEBHOOK_URL: 'http://hooks.example.com/kb' })).toThrow(/KB_WEBHOOK_URL must be https/);
    expect(() => readConfig({ KB_WEBHOOK_URL: 'http://127.0.0.1:9000/kb' })).toThrow(/KB_WEBHOOK_ALLOW_LOOPBACK/);
    expect(
      readConfig({ KB_WEBHOOK_URL: 'http://127.0.0.1:9000/kb', KB_WEBHOOK_ALLOW_LOOPBACK: '1' }).webhook.allowLoopback,
    ).toBe(true);
    expect(() => readConfig({ KB_WEBHOOK_SECRET: 'short' })).toThrow(/at least 32 characters/);
    // 16 characters were enough before; a secret that short is guessed offline from one signed event.
    expect(() => readConfig({ KB_WEBHOOK_SECRET: '0123456789abcdef' })).toThrow(/at least 32 characters/);
  });
});
