/**
 * Reads a chat SSE response event by event, as it arrives, and validates each event against the wire
 * contract (chat.ts). For Node-side clients of the API: the API and Worker tests and `npm run eval`. The
 * widget streams with @microsoft/fetch-event-source (widget/api/) and does not import this file, so it adds
 * nothing to the widget's bundle.
 */
import { parseChatEvent, type ChatEvent } from './index.ts';

export interface ReceivedEvent {
  id: string | null;
  event: ChatEvent;
  /** Milliseconds since reading started: shows that events arrive one by one. */
  at: number;
}

export async function readChatEvents(response: Response): Promise<ReceivedEvent[]> {
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`expected an event stream, got ${response.status} ${response.headers.get('content-type')}`);
  }
  const started = performance.now();
  const events: ReceivedEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const fields = { event: 'message', data: [] as string[], id: null as string | null };
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) continue; // comment (heartbeat)
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'event') fields.event = value;
        else if (name === 'data') fields.data.push(value);
        else if (name === 'id') fields.id = value;
      }
      if (fields.data.length === 0) continue;
      events.push({
        id: fields.id,
        event: parseChatEvent(fields.event, fields.data.join('\n')),
        at: performance.now() - started,
      });
    }
  }
  return events;
}
