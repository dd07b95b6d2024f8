/**
 * Generative mode's half of the chat UI (dist/kb-chat-generative.<hash>.js): the writing Worker's controller
 * and the flow that turns a quoted answer into a written one. The chat UI imports this module only once the
 * server's config says the answer mode is `generative`, so extractive visitors (the default) never download
 * it. It imports neither Lit nor the Markdown renderer: what it changes reaches the screen through the
 * conversation (`patch`), which the chat UI renders — including the Written / Quoted switch, which stays there
 * because a stored written answer is shown from history whatever the mode is now.
 */
import type { ReactiveControllerHost } from 'lit';
import type { ClientConfig } from '../../protocol/api.ts';
import type { ApiClient } from '../api/api-client.ts';
import type { AnswerTurn, WrittenAnswer } from '../controllers/chat-controller.ts';
import { GeneratorController } from '../controllers/generator-controller.ts';
import { isCannotAnswer, streamableText, validateCitations } from '../generator/output.ts';

/** What generative mode needs from the chat UI: no more, so this chunk never bundles the UI's code. */
export interface GenerativeHost {
  /** The chat UI, which the writing model's controller asks to re-render. */
  ui: ReactiveControllerHost;
  api(): ApiClient;
  /** Change an answer's written version (ChatController.patch). */
  patch(turnId: string, patch: { written: WrittenAnswer }): void;
  emit(type: string, detail: unknown): void;
  /** The element's settings: `generatorUrl`, `generatorTimeout`, `modelBaseUrl`. */
  workerUrl(): string | URL;
  timeoutMs(): number;
  modelsUrl(): string | null | undefined;
}

/** `[1, 2]` → `[1] [2]`: the form the citation badges (render/citations.ts) and the server's check read. */
function singleMarkers(text: string): string {
  return text.replace(/\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})+)\]/g, (_, list: string) =>
    list
      .split(/\s*[,;]\s*/)
      .map((n) => `[${n}]`)
      .join(' '),
  );
}

export class GenerativeMode {
  readonly generator: GeneratorController;
  /** The written answer being generated: one at a time, a newer answer (or chat) stops it. */
  private writing?: AbortController;

  constructor(private readonly host: GenerativeHost) {
    this.generator = new GeneratorController(host.ui, {
      api: () => host.api(),
      workerUrl: () => host.workerUrl(),
      modelsUrl: () => host.modelsUrl(),
      timeoutMs: () => host.timeoutMs(),
    });
  }

  /** Load the writing model (nothing unless the config's mode is generative). */
  start(config: ClientConfig): void {
    this.generator.start(config);
  }

  /** The writing model's first download, 0–99, while it is under way; otherwise undefined. */
  get loadingPercent(): number | undefined {
    const { status, progress } = this.generator;
    return status === 'loading' && progress !== undefined && progress < 100 ? progress : undefined;
  }

  /** Stop the answer being written (a new chat, a restored session). */
  abort(): void {
    this.writing?.abort();
  }

  /**
   * The on-device model writes a fuller answer from the answer's cited passages, streamed into the message.
   * What it writes may cite only the answer's sources (an invented `[n]` is dropped) and is rendered through
   * the same sanitizing Markdown pipeline as every answer. On any failure, timeout or "I cannot answer", the
   * quoted (extractive) answer stays; a written one is stored against the answer.
   */
  async write(turn: AnswerTurn): Promise<void> {
    const { answerId, request, passages } = turn;
    if (!answerId || !request || !passages?.length || turn.written) return;
    const generator = this.generator;
    if (generator.status !== 'loading' && generator.status !== 'ready') return;
    const host = this.host;
    this.writing?.abort();
    const abort = (this.writing = new AbortController());
    const allowed = new Set(turn.citations.map((c) => c.n));
    const tidy = (text: string) => singleMarkers(validateCitations(text, allowed));
    const byN = new Map(turn.citations.map((c) => [c.n, c]));
    let raw = '';
    host.patch(turn.id, { written: { status: 'writing', markdown: '' } });
    try {
      const result = await generator.write(
        request.message,
        passages.map((p) => ({
          n: p.n,
          title: byN.get(p.n)?.title ?? '',
          section: byN.get(p.n)?.section ?? null,
          text: p.text,
        })),
        (delta) => {
          raw += delta;
          host.patch(turn.id, { written: { status: 'writing', markdown: tidy(streamableText(raw)) } });
        },
        abort.signal,
      );
      // Final check against what the model was shown (the prompt's bounds may have left a passage out).
      const shown = new Set(result.cited.filter((n) => allowed.has(n)));
      const text = singleMarkers(validateCitations(result.text, shown)).trim();
      if (abort.signal.aborted || result.stopped === 'cancelled') throw new Error('stopped');
      if (isCannotAnswer(text)) throw new Error('the model could not answer from the passages');
      const model = generator.model ?? 'unknown';
      host.patch(turn.id, { written: { status: 'done', markdown: text, model } });
      const { tokens, firstTokenMs, tokensPerSecond } = result;
      host.emit('kb-answer-written', {
        messageId: request.message_id,
        answerId,
        text,
        model,
        tokens,
        firstTokenMs,
        tokensPerSecond,
      });
      // Stored so history and replays show it; if that fails the visitor still has it on screen.
      await host
        .api()
        .saveGenerated(answerId, { text, model })
        .catch((error: unknown) => console.warn('[kb-chat] the written answer was not stored:', error));
    } catch (error) {
      console.warn(
        '[kb-chat] no written answer; the quoted one stays:',
        error instanceof Error ? error.message : error,
      );
      host.patch(turn.id, { written: { status: 'failed', markdown: '' } });
    } finally {
      if (this.writing === abort) this.writing = undefined;
    }
  }
}
