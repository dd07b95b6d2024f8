/**
 * The in-page probe of `npm run bench -- first-visit`: an init script that watches the widget on every
 * animation frame and records, in the page's own clock, when each thing a visitor sees was first painted.
 * Frame-by-frame in the page rather than polled from Node, so a time is that of the frame that showed it
 * (± 16 ms), not that of a CDP round trip. It reads only the DOM (and `ui.embedder.status`, the one
 * internal field, present since the widget was split into loader and UI), so the same probe measures the
 * code before and after commit edb7407 (questions no longer wait for the model).
 */

/** Times in ms since navigation start (`performance.now()` in the page); absent = not seen yet. */
export interface ProbeMarks {
  /** The bubble has a size: painted. */
  bubble?: number;
  /** The visitor's click on the bubble (pointerdown, capture phase). */
  open?: number;
  /** The textarea exists and the Send button is enabled. */
  accepting?: number;
  /** Enter pressed in the question box. */
  send?: number;
  /** The first answer (or refusal) text painted. */
  answer?: number;
  /** The embedder reported ready: questions go out with an embedding (hybrid retrieval). */
  hybrid?: number;
  /** The embedder stopped for good (time-out or error), so hybrid will not come on this visit. */
  gaveUp?: number;
  /** `performance.timeOrigin` of the page, to line marks up with network timings (epoch ms). */
  origin?: number;
}

declare global {
  interface Window {
    __firstVisit: ProbeMarks;
  }
}

/**
 * Runs in the page. A string, not a function: tsx compiles functions with esbuild's name helpers
 * (`__name(…)`), which do not exist in the page, so a stringified function would die on its first line.
 */
export const PROBE_SCRIPT = `(() => {
  const marks = { origin: performance.timeOrigin };
  window.__firstVisit = marks;
  const mark = (name) => { if (marks[name] === undefined) marks[name] = performance.now(); };
  addEventListener('pointerdown', () => mark('open'), { capture: true });
  // Answers already on screen when the question is sent (a conversation restored from history on a
  // later visit) are not the answer to it.
  let before = null;
  const answerNodes = (root) => [...root.querySelectorAll('[part~="assistant-message"] .markdown, [part~="refusal"]')];
  addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey || marks.send !== undefined) return;
    mark('send');
    const root = document.querySelector('kb-chat')?.shadowRoot;
    before = new Set(root ? answerNodes(root) : []);
  }, { capture: true });
  const frame = () => {
    const el = document.querySelector('kb-chat');
    const root = el && el.shadowRoot;
    if (root) {
      const bubble = root.querySelector('[part~="bubble"]');
      if (bubble && bubble.getBoundingClientRect().width > 0) mark('bubble');
      const send = root.querySelector('[part~="send-button"]');
      if (root.querySelector('textarea') && send && !send.disabled) mark('accepting');
      if (before && answerNodes(root).some((node) => !before.has(node) && (node.textContent || '').trim().length > 0)) mark('answer');
      const status = el.ui && el.ui.embedder && el.ui.embedder.status;
      if (status === 'ready') mark('hybrid');
      // Gave up on the model (before commit edb7407 the 15 s time-out stopped the download for good).
      if (status === 'timeout' || status === 'error' || status === 'unsupported') mark('gaveUp');
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();`;
