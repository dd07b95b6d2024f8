/** Read and reset the fake API's request log (see fake-api.mjs). No widget imports, so any test can use it. */

export interface FakeLog {
  chat: {
    token?: string;
    lastEventId?: string;
    body: { message: string; embedding?: number[]; session_id?: string; message_id: string };
  }[];
  assets: string[];
  csp: unknown[];
  auth: number;
  refresh: number;
  captcha: (string | null)[];
  /** POST /api/feedback bodies, with the status answered and what was stored. */
  feedback: {
    body: { message_id: string; rating: number; comment?: string };
    status: number | null;
    stored?: { comment: string | null };
  }[];
}

export async function fakeLog(): Promise<FakeLog> {
  return (await fetch('/__fake/log')).json() as Promise<FakeLog>;
}

export async function resetFake(): Promise<void> {
  await fetch('/__fake/reset', { method: 'POST' });
  localStorage.clear();
  sessionStorage.clear();
}

/**
 * Whether `../shared/data/<path>` exists beside the repository (asked of the fake API, which uses
 * scripts/lib/shared-data.mjs like every Node test). A test that needs it calls `this.skip()` when it is absent;
 * in CI the lookup refuses instead and this throws its message, so the test fails rather than skips.
 */
export async function hasSharedData(path: string): Promise<boolean> {
  const response = await fetch(`/__fake/shared?path=${encodeURIComponent(path)}`);
  const body = (await response.json()) as { present?: boolean; error?: { message: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `GET /__fake/shared answered ${response.status}`);
  return body.present === true;
}

/** Hold (true) or release (false) the fake API's /api/config, /ort/ and /models/ responses: the model stays "loading". */
export async function holdAssets(on: boolean): Promise<void> {
  await fetch('/__fake/hold-assets', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ on }),
  });
}
