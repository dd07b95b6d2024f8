/** The status line under the messages: the embedding model loading, failed or unsupported; the writing model loading. */
import { html, nothing, type TemplateResult } from 'lit/html.js';
import type { EmbedderStatus } from '../controllers/embedder-controller.ts';
import { format, type KbChatStrings } from '../i18n.ts';

export interface StatusView {
  strings: KbChatStrings;
  status: EmbedderStatus;
  /** 0–100 while the model downloads. */
  progress?: number;
  /** Still loading after `embedderTimeout`. */
  slow: boolean;
  /** Generative mode: the writing model's first download, while it is under way. */
  writerPercent?: number;
  retry: () => void;
}

export function renderStatus(view: StatusView): TemplateResult | typeof nothing {
  const { strings: s, status, progress } = view;
  const retry = html`<button type="button" class="pill-button" part="retry-button" @click=${() => view.retry()}>${s.retry}</button>`;
  switch (status) {
    case 'idle':
    case 'ready': {
      // Generative mode: the writing model's first download (answers are quoted until it is ready).
      const percent = view.writerPercent;
      return percent === undefined ? nothing : html`<span>${format(s.writerLoading, { percent })}</span>`;
    }
    case 'loading': {
      // The bytes can all be in while the model still compiles (and a later file may not have started):
      // "100 %" then would claim a readiness the keyword-search note contradicts, so it says "starting".
      const fetched = progress !== undefined && progress >= 100;
      const text = view.slow
        ? s.slowLoading
        : progress === undefined
          ? s.loading
          : fetched
            ? s.loadingStarting
            : format(s.loadingProgress, { percent: progress });
      return html`<span>${text}</span>${
        progress === undefined
          ? nothing
          : fetched
            ? html`<progress aria-label=${s.loading}></progress>`
            : html`<progress max="100" value=${progress} aria-label=${s.loading}></progress>`
      }
          <span class="status__note" part="loading-note">${s.askWhileLoading}</span>`;
    }
    case 'unsupported':
    case 'error': {
      const problem = status === 'unsupported' ? s.unsupported : s.modelError;
      return html`<span class="status--problem">${problem}</span>${status === 'unsupported' ? nothing : retry}
          <span class="status__note" part="keyword-note">${s.keywordMode}</span>`;
    }
  }
}
