/** Read and reset the fake API's request log (see fake-api.mjs). No widget imports, so any test can use it. */

export interface FakeLog {
  chat: { token?: string; lastEventId?: string; body: { message: string; embedding?: number[]; session_id?: string; message_id: string } }[];
  assets: string[];
  csp: unknown[];
  auth: number;
}

export async function fakeLog(): Promise<FakeLog> {
  return (await fetch('/__fake/log')).json() as Promise<FakeLog>;
}

export async function resetFake(): Promise<void> {
  await fetch('/__fake/reset', { method: 'POST' });
  localStorage.clear();
}
