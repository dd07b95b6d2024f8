/**
 * The answer on screen, and generative mode's part of the chat UI. Generative mode itself (its writing model's
 * controller and the flow that writes an answer) is a chunk of its own, ui/generative.ts, imported the first
 * time the server's config says the mode is generative, so extractive visitors never fetch it. What stays here
 * is what every visitor needs: which version of an answer is shown (a stored written answer comes back from
 * history whatever the mode is now) and its rendered Markdown, rebuilt only when the text or sources change.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ClientConfig } from '../../protocol/api.ts';
import type { AnswerTurn } from '../controllers/chat-controller.ts';
import type { GeneratorController } from '../controllers/generator-controller.ts';
import type { KbChatStrings } from '../i18n.ts';
import { answerElement } from '../render/citations.ts';
import type { GenerativeHost, GenerativeMode } from './generative.ts';

declare const __KB_GENERATIVE_FILE__: string | undefined;
/**
 * Generative mode's chunk, next to this one: its content-hashed name when built (esbuild.config.mjs), the
 * source file when the tests serve the sources. Not a literal `import()`, which esbuild would bundle into the
 * chat UI's chunk, for every visitor.
 */
const GENERATIVE_URL = new URL(
  typeof __KB_GENERATIVE_FILE__ === 'string' ? `./${__KB_GENERATIVE_FILE__}` : './generative.ts',
  import.meta.url,
);

export class WrittenAnswerController implements ReactiveController {
  /** Generative mode, once the server's config asked for it and its chunk has loaded. */
  #loading?: Promise<GenerativeMode | undefined>;
  #mode?: GenerativeMode;
  readonly #bodies = new Map<string, { key: string; node: HTMLElement }>();

  readonly #host: ReactiveControllerHost;
  readonly #generative: Omit<GenerativeHost, 'ui'>;
  readonly #strings: () => KbChatStrings;

  constructor(
    host: ReactiveControllerHost,
    /** What generative mode may use of the chat UI (`ui` is the host). */
    generative: Omit<GenerativeHost, 'ui'>,
    strings: () => KbChatStrings,
  ) {
    this.#host = host;
    this.#generative = generative;
    this.#strings = strings;
    host.addController(this);
  }

  hostConnected(): void {}

  /** Generative mode's writing model (undefined in extractive mode and until its chunk has loaded). */
  get generator(): GeneratorController | undefined {
    return this.#mode?.generator;
  }

  /** The writing model's first download, 0–99, while it is under way (answers are quoted until it is ready). */
  get loadingPercent(): number | undefined {
    return this.#mode?.loadingPercent;
  }

  /**
   * Generative mode only: its chunk is imported the first time the config says so, then the writing model
   * starts loading. If the chunk fails to load, answers stay quoted.
   */
  start(config: ClientConfig): void {
    if (config.answer_mode !== 'generative' || !config.generation_model) return;
    this.#loading ??= import(/* @vite-ignore */ GENERATIVE_URL.href).then(
      ({ GenerativeMode }: typeof import('./generative.ts')) =>
        (this.#mode = new GenerativeMode({ ui: this.#host, ...this.#generative })),
      (error: unknown) => void console.warn('[kb-chat] generative mode failed to load; answers stay quoted:', error),
    );
    void this.#loading.then((mode) => mode?.start(config));
  }

  /** A quoted answer is complete: generative mode writes its fuller version (nothing in extractive mode). */
  write(turn: AnswerTurn): void {
    void this.#loading?.then((mode) => mode?.write(turn));
  }

  /** Stop the answer being written (a new chat, a restored session). */
  abort(): void {
    this.#mode?.abort();
  }

  /** The answer on screen: the written one in generative mode (unless the visitor chose Quoted), else the quoted one. */
  shown(turn: AnswerTurn): string {
    const written = turn.written;
    return written && written.status !== 'failed' && turn.view !== 'quoted' && written.markdown
      ? written.markdown
      : turn.markdown;
  }

  /** The shown answer rendered, with its citation badges; cached per answer. */
  body(turn: AnswerTurn): Node {
    const markdown = this.shown(turn);
    const key = `${markdown}\u0000${turn.citations.length}`;
    const cached = this.#bodies.get(turn.id);
    if (cached?.key === key) return cached.node;
    const node = answerElement(markdown, turn.citations, `kb-cite-${turn.id}`, this.#strings());
    this.#bodies.set(turn.id, { key, node });
    return node;
  }
}
