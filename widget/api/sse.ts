/**
 * A small Server-Sent Events reader for a `fetch` POST: pure stages (bytes → lines → messages) so a message
 * split across network chunks (even mid-line or mid-UTF-8 character) is reassembled exactly once.
 * Replaces @microsoft/fetch-event-source, whose defaults (re-POST on every error, abort when the tab is
 * hidden) are wrong for a chat question, and which cannot send `Last-Event-ID` on a resumed POST.
 */

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** Feed text chunks, get complete messages; `flush()` at end of stream drops an unterminated message. */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id?: string;

  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
      if (this.buffer[newline] === '\r' && newline === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + (this.buffer.startsWith('\r\n', newline) ? 2 : 1));
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      const message = this.data.length || this.event ? { id: this.id, event: this.event || 'message', data: this.data.join('\n') } : undefined;
      this.data = [];
      this.event = '';
      return message;
    }
    if (line.startsWith(':')) return undefined; // comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }
}

/** Read a response body as SSE; resolves when the server closes the stream. */
export async function readSse(body: ReadableStream<Uint8Array>, onMessage: (message: SseMessage) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const message of parser.push(decoder.decode(value, { stream: true }))) onMessage(message);
  }
  for (const message of parser.push(decoder.decode())) onMessage(message);
}
