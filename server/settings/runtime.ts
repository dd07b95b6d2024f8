/**
 * The settings an admin changes at runtime (`kb_settings`, `/api/admin/settings`) merged with the server's
 * defaults: what a question is answered with. A stored null is "not set here", so the server's value —
 * its environment, else the code's calibrated default — applies; the admin API shows both and the source.
 *
 * @example
 * const read = settingsReader(store, defaults);
 * const { retrieval, refusalSuggestions } = await read(); // never rejects: the server's defaults on failure
 */
import type { AnswerMode, Settings, WebhookDeliveries } from '../../protocol/index.ts';
import { thresholdsOf, type GateThresholds, type RetrievalOptions } from '../retrieval/index.ts';
import type { ChatStore, StoredSettings, WebhookState } from '../store/types.ts';

/**
 * What a "no evidence" refusal offers unless an admin set `refusal_suggestions` (`/api/admin/settings`):
 * a setting's default, so it lives here and the refusals (chat/refusal.ts) read it from here.
 */
export const DEFAULT_SUGGESTIONS: readonly string[] = ['Contact support', 'Rephrase your question'];

/** What applies when no admin has chosen: the server's configuration. */
export interface SettingsDefaults {
  answerMode: AnswerMode;
  /** The chat's retrieval options (thresholds from CHAT_*_THRESHOLD or gate.ts). */
  retrieval: RetrievalOptions;
  refusalSuggestions?: readonly string[];
  /** KB_WEBHOOK_URL, and whether KB_WEBHOOK_SECRET is set (never the secret). */
  webhook?: { url: string | null; secretSet: boolean };
}

/** The settings in effect for one question. */
export interface RuntimeSettings {
  answerMode: AnswerMode;
  /** The chat's retrieval options with the admin's thresholds applied. */
  retrieval: RetrievalOptions;
  refusalSuggestions: string[];
  greeting: string | null;
  /** Where the widget's "Contact support" leads; its `support-url` attribute wins. */
  supportUrl: string | null;
  /** The empty panel's starter questions; the widget's `starters` attribute wins. */
  starters: string[];
}

export function effectiveSettings(stored: StoredSettings | null, defaults: SettingsDefaults): RuntimeSettings {
  const server = thresholdsOf(defaults.retrieval);
  return {
    answerMode: stored?.answer_mode ?? defaults.answerMode,
    retrieval: {
      ...defaults.retrieval,
      evidenceThreshold: stored?.evidence_threshold ?? server.vector,
      lexicalThreshold: stored?.lexical_threshold ?? server.lexical,
      hybridThreshold: stored?.hybrid_threshold ?? server.hybrid,
    },
    refusalSuggestions: stored?.refusal_suggestions ?? [...(defaults.refusalSuggestions ?? DEFAULT_SUGGESTIONS)],
    greeting: stored?.greeting ?? null,
    supportUrl: stored?.support_url ?? null,
    starters: stored?.starters ?? [],
  };
}

/**
 * One `kb_get_settings` call per use, merged with the defaults. It never rejects: a question must not fail
 * because the settings could not be read, so then the server's defaults apply (and the question is
 * answered as if no admin had changed anything).
 */
export function settingsReader(
  store: Pick<ChatStore, 'getSettings'>,
  defaults: SettingsDefaults,
): () => Promise<RuntimeSettings> {
  return async function readSettings() {
    const stored = await store.getSettings().catch(() => null);
    return effectiveSettings(stored, defaults);
  };
}

/** `GET/PUT /api/admin/settings`: every setting in effect, its source and the server's default. */
export function adminSettings(
  stored: StoredSettings,
  defaults: SettingsDefaults,
  webhook: WebhookState & { editable: boolean; deliveries?: WebhookDeliveries | null } = {
    url: null,
    secret_set: false,
    last_change: null,
    editable: false,
  },
): Settings {
  const server = defaults.webhook ?? { url: null, secretSet: false };
  const gate: GateThresholds = thresholdsOf(defaults.retrieval);
  const serverSuggestions = [...(defaults.refusalSuggestions ?? DEFAULT_SUGGESTIONS)];
  const source = (value: unknown) => (value === null ? ('server' as const) : ('admin' as const));
  return {
    answer_mode: stored.answer_mode ?? defaults.answerMode,
    answer_mode_source: source(stored.answer_mode),
    server_answer_mode: defaults.answerMode,
    evidence_threshold: stored.evidence_threshold ?? gate.vector,
    evidence_threshold_source: source(stored.evidence_threshold),
    server_evidence_threshold: gate.vector,
    lexical_threshold: stored.lexical_threshold ?? gate.lexical,
    lexical_threshold_source: source(stored.lexical_threshold),
    server_lexical_threshold: gate.lexical,
    hybrid_threshold: stored.hybrid_threshold ?? gate.hybrid,
    hybrid_threshold_source: source(stored.hybrid_threshold),
    server_hybrid_threshold: gate.hybrid,
    greeting: stored.greeting,
    greeting_source: source(stored.greeting),
    server_greeting: null,
    refusal_suggestions: stored.refusal_suggestions ?? serverSuggestions,
    refusal_suggestions_source: source(stored.refusal_suggestions),
    server_refusal_suggestions: serverSuggestions,
    support_url: stored.support_url,
    support_url_source: source(stored.support_url),
    server_support_url: null,
    starters: stored.starters ?? [],
    starters_source: source(stored.starters),
    server_starters: [],
    webhook_url: webhook.url ?? server.url,
    webhook_url_source: source(webhook.url),
    // One pair: a URL set here is signed with its own secret only, KB_WEBHOOK_URL with KB_WEBHOOK_SECRET only.
    webhook_secret_set: webhook.url !== null ? webhook.secret_set : server.secretSet,
    webhook_secret_source: source(webhook.url),
    webhook_editable: webhook.editable,
    webhook_last_change: webhook.last_change,
    webhook_deliveries: webhook.deliveries ?? null,
    updated_at: stored.updated_at,
  };
}
