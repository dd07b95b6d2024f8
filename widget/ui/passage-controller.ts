/**
 * The sources under each answer (render/sources.ts): which answers show all their sources, which sources are
 * expanded, and the full passage of an expanded one (GET /api/chunks/:id, fetched once per chunk), rendered
 * through the same sanitizing Markdown pipeline as answers. A click on a `[n]` badge reveals that source.
 */
import { html } from 'lit/html.js';
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { Citation } from '../../protocol/chat.ts';
import type { ApiClient } from '../api/api-client.ts';
import type { KbChatStrings } from '../i18n.ts';
import { renderMarkdownFragment } from '../../markdown/render.ts';
import type { SourcesView } from '../render/sources.ts';

type Passage = { status: 'loading' | 'ready' | 'error'; content?: string };

export class PassageController implements ReactiveController {
  /** Answers (by turn id) whose sources are all shown. */
  readonly #showAll = new Set<string>();
  /** Expanded sources, by `turn id:n`. */
  readonly #expanded = new Set<string>();
  readonly #passages = new Map<string, Passage>();
  /** The rendered passages, rebuilt only when the text changes. */
  readonly #nodes = new Map<string, HTMLElement>();

  readonly #host: ReactiveControllerHost;
  readonly #api: () => ApiClient;
  readonly #strings: () => KbChatStrings;

  constructor(host: ReactiveControllerHost, api: () => ApiClient, strings: () => KbChatStrings) {
    this.#host = host;
    this.#api = api;
    this.#strings = strings;
    host.addController(this);
  }

  hostConnected(): void {}

  view(turnId: string): SourcesView {
    const key = (c: Citation) => `${turnId}:${c.n}`;
    return {
      strings: this.#strings(),
      showAll: this.#showAll.has(turnId),
      expanded: (c) => this.#expanded.has(key(c)),
      passage: (c) => this.#passage(key(c), c),
      togglePassage: (c) => {
        if (this.#expanded.delete(key(c))) return this.#host.requestUpdate();
        this.#expanded.add(key(c));
        void this.#load(c);
        this.#host.requestUpdate();
      },
      toggleAll: () => {
        if (!this.#showAll.delete(turnId)) this.#showAll.add(turnId);
        this.#host.requestUpdate();
      },
    };
  }

  /** A click on a `[n]` badge of a known turn (`isTurn`) reveals and focuses that source in the sources block. */
  onCitationClick(event: Event, isTurn: (id: string) => boolean): void {
    const badge = (event.target as Element).closest?.('.cite__badge') as HTMLElement | null;
    if (!badge) return;
    const message = badge.closest<HTMLElement>('.turn');
    const id = message?.dataset.turn;
    if (id === undefined || !isTurn(id)) return;
    const n = badge.dataset.n!;
    this.#showAll.add(id);
    this.#host.requestUpdate();
    void this.#host.updateComplete.then(() => {
      const source = message?.querySelector<HTMLElement>(`.source[data-n="${n}"]`);
      const target = source?.querySelector<HTMLElement>('a, button');
      source?.classList.add('source--highlight');
      setTimeout(() => source?.classList.remove('source--highlight'), 1500);
      target?.focus();
      source?.scrollIntoView?.({ block: 'nearest' });
    });
  }

  /** The full chunk text once loaded, the excerpt until then, a typing indicator when there is neither. */
  #passage(key: string, citation: Citation): unknown {
    const entry = this.#passages.get(citation.chunk_id);
    if (entry?.status === 'error' && !citation.excerpt) return this.#strings().passageError;
    const content = entry?.content ?? citation.excerpt;
    if (!content) return html`<span class="typing" aria-hidden="true"><span></span><span></span><span></span></span>`;
    const cacheKey = `${key}\u0000${content}`;
    let node = this.#nodes.get(cacheKey);
    if (!node) {
      node = document.createElement('div');
      node.append(renderMarkdownFragment(content));
      this.#nodes.set(cacheKey, node);
    }
    return node;
  }

  async #load(citation: Citation): Promise<void> {
    if (this.#passages.has(citation.chunk_id)) return;
    this.#passages.set(citation.chunk_id, { status: 'loading' });
    try {
      const chunk = await this.#api().chunk(citation.chunk_id);
      this.#passages.set(citation.chunk_id, { status: 'ready', content: chunk.content });
    } catch (error) {
      console.warn('[kb-chat] passage failed:', error);
      this.#passages.set(citation.chunk_id, { status: 'error' });
    }
    this.#host.requestUpdate();
  }
}
