/**
 * The runtime-agnostic API: only Request/Response and Web Streams. The Node entry (server/node.ts) and the
 * Workers entry wrap it; tests call `app.request()` directly.
 */
import { Hono } from 'hono';
import { API_PATHS, type AnonymousAuth, type ClientConfig, type Health } from '../protocol/index.ts';
import { issueAccessToken, TOKEN_TTL_SECONDS } from './auth/jwt.ts';
import { chatRoute } from './chat/route.ts';
import { AppError, errorBody, fromStoreError, onAppError } from './http/errors.ts';
import type { ChatStore, LocalAuthStore } from './store/types.ts';

export interface AppDeps {
  store: ChatStore;
  /** Local mode: issue anonymous tokens (the stand-in for Supabase anonymous sign-in). */
  localAuth?: LocalAuthStore;
  /**
   * `POST /api/auth/anonymous` when the token comes from elsewhere (Workers: Supabase Auth's anonymous
   * sign-in). Takes precedence over `localAuth`.
   */
  anonymousSignIn?: () => Promise<AnonymousAuth>;
  jwtSecret: string;
  evidenceThreshold: number;
  embedModel: string;
  /** Where browsers load model files and the ONNX Runtime wasm from (same origin as the widget). */
  modelsUrl?: string;
  ortWasmUrl?: string;
}

export function createApp(deps: AppDeps) {
  const app = new Hono();
  const { store, localAuth, jwtSecret, evidenceThreshold, embedModel } = deps;

  app.get(API_PATHS.health, async function health(c) {
    const kb = await store.kbStats().catch((error) => {
      throw fromStoreError(error);
    });
    return c.json<Health>({ status: 'ok', embed_model: embedModel, evidence_threshold: evidenceThreshold, kb });
  });

  app.get(API_PATHS.config, function clientConfig(c) {
    return c.json<ClientConfig>({
      embed_model: embedModel,
      dimensions: 384,
      models_url: deps.modelsUrl ?? '/models/',
      ort_wasm_url: deps.ortWasmUrl ?? '/ort/',
    });
  });

  const signIn = deps.anonymousSignIn ?? (localAuth && localAnonymousSignIn(localAuth, jwtSecret));
  if (signIn) {
    app.post(API_PATHS.anonymousAuth, async function anonymousSignIn(c) {
      const auth = await signIn().catch((error) => {
        throw fromStoreError(error);
      });
      return c.json<AnonymousAuth>(auth);
    });
  }

  app.route(API_PATHS.chat, chatRoute({ store, jwtSecret, evidenceThreshold }));

  app.notFound((c) =>
    c.req.path.startsWith('/api/')
      ? c.json(errorBody('not_found', `No endpoint ${c.req.method} ${c.req.path}.`), 404)
      : c.text('Not found', 404),
  );
  app.onError(onAppError);
  return app;
}

/** Local mode: create the auth.users row, then sign the token ourselves with the JWT secret. */
function localAnonymousSignIn(localAuth: LocalAuthStore, jwtSecret: string) {
  return async (): Promise<AnonymousAuth> => {
    const userId = await localAuth.createAnonymousUser();
    const accessToken = await issueAccessToken(userId, jwtSecret);
    return { access_token: accessToken, user_id: userId, expires_in: TOKEN_TTL_SECONDS };
  };
}

export { AppError };
