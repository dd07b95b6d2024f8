/**
 * The API client's sign-in against the fake API (widget/test/fake-api.mjs), in Chromium: without a CAPTCHA a
 * sign-in is one request and never waits for /api/config; when the server answers `captcha_required`, the
 * client reads the config, solves the challenge and signs in with its token.
 */
import { expect } from '@open-wc/testing';
import { fakeLog, resetFake } from '../test/fake-log.ts';
import { ApiClient } from './api-client.ts';

describe('ApiClient sign-in', () => {
  beforeEach(resetFake);
  afterEach(() => fetch('/__fake/captcha', { method: 'POST', body: JSON.stringify({ on: false }) }));

  it('signs in with one request and no config when no CAPTCHA is asked for', async () => {
    const solved: unknown[] = [];
    const client = new ApiClient(
      location.origin,
      () => ({}),
      async (config) => (solved.push(config), 'unused'),
    );
    const seen: string[] = [];
    const observer = new PerformanceObserver((list) =>
      seen.push(...list.getEntries().map((e) => new URL(e.name).pathname)),
    );
    observer.observe({ type: 'resource', buffered: false });
    expect(await client.token()).to.match(/^token-/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    observer.disconnect();
    expect(seen.filter((p) => p.startsWith('/api/'))).to.deep.equal(['/api/auth/anonymous']);
    expect(solved).to.deep.equal([]);
  });

  it('solves the CAPTCHA the server asks for (captcha_required), then signs in with its token', async () => {
    await fetch('/__fake/captcha', { method: 'POST', body: JSON.stringify({ on: true }) });
    const solved: { site_key: string }[] = [];
    const client = new ApiClient(
      location.origin,
      () => ({}),
      async (config) => (solved.push(config), 'turnstile-ok-direct'),
    );
    expect(await client.token()).to.match(/^token-/);
    expect(solved.map((c) => c.site_key)).to.deep.equal(['fake-site-key']);
    const log = await fakeLog();
    expect(log.captcha).to.deep.equal([null, 'turnstile-ok-direct']);
    expect(log.auth).to.equal(1);
  });
});
