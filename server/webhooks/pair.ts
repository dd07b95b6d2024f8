/**
 * A webhook URL set in the console and its signing secret are one pair: the URL is stored with a secret
 * given with it, or with one generated here (returned once, in the answer to that change), and clearing the
 * URL clears the secret. So no URL set in the console is ever signed with a secret meant for another — the
 * environment's KB_WEBHOOK_SECRET included — and the database refuses a patch that sets one without the
 * other (kb_set_settings).
 */
import { WEBHOOK_SECRET_MIN_CHARS } from '../../protocol/index.ts';
import { AppError } from '../http/errors.ts';
import { webhookUrlProblem } from './url.ts';

/** 32 random bytes, base64url: 43 characters. */
export function generateWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** The webhook part of a settings patch, made a pair; `generated` is the secret made here, if any. */
export function webhookPair(update: { webhook_url?: string | null; webhook_secret?: string | null }): {
  patch: { webhook_url: string | null; webhook_secret: string | null };
  generated?: string;
} {
  if (!('webhook_url' in update))
    throw new AppError(400, 'invalid_request', 'webhook_secret: send it with the webhook_url it signs for.');
  const url = update.webhook_url ?? null;
  if (url === null) {
    if (update.webhook_secret)
      throw new AppError(400, 'invalid_request', 'webhook_secret: a secret without a webhook_url signs nothing.');
    return { patch: { webhook_url: null, webhook_secret: null } };
  }
  // Loopback passes here (a development receiver); the server sends to it only with KB_WEBHOOK_ALLOW_LOOPBACK.
  const problem = webhookUrlProblem(url, true);
  if (problem) throw new AppError(400, 'invalid_request', `webhook_url: ${problem}`);
  if (update.webhook_secret) {
    if (update.webhook_secret.length < WEBHOOK_SECRET_MIN_CHARS)
      throw new AppError(
        400,
        'invalid_request',
        `webhook_secret: must be at least ${WEBHOOK_SECRET_MIN_CHARS} characters`,
      );
    return { patch: { webhook_url: url, webhook_secret: update.webhook_secret } };
  }
  const generated = generateWebhookSecret();
  return { patch: { webhook_url: url, webhook_secret: generated }, generated };
}
