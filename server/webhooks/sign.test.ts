import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './sign.ts';

describe('the webhook signature', () => {
  it('is HMAC-SHA256 of "<t>.<body>" in hex, as any HMAC library computes it', async () => {
    const header = await signatureHeader('s3cret-s3cret-s3cret', '{"a":1}', 1764130000);
    expect(header).toBe(
      `t=1764130000,v1=${createHmac('sha256', 's3cret-s3cret-s3cret').update('1764130000.{"a":1}').digest('hex')}`,
    );
  });

  it('is refused when its timestamp is older than the tolerance (a replayed delivery)', async () => {
    const header = await signatureHeader('s3cret-s3cret-s3cret', '{}', 1764130000);
    expect(await verifySignature('s3cret-s3cret-s3cret', header, '{}', 300, 1764130000_000 + 299_000)).toBe(true);
    expect(await verifySignature('s3cret-s3cret-s3cret', header, '{}', 300, 1764130000_000 + 301_000)).toBe(false);
    expect(await verifySignature('s3cret-s3cret-s3cret', null, '{}')).toBe(false);
  });
});
