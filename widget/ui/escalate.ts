/**
 * What a refusal's actions do (render/message.ts shows them): "Rephrase your question" and "Contact
 * support". Neither sends anything to the API.
 */
import type { RefusalTurn, Turn } from '../controllers/chat-controller.ts';
import type { KbEscalateDetail } from '../events.ts';
import { supportLink } from '../../protocol/support.ts';

/** The question a refusal answered: the visitor's turn before it. */
export function questionOf(turns: readonly Turn[], refusal: RefusalTurn): string {
  const asked = turns[turns.indexOf(refusal) - 1];
  return asked?.kind === 'user' ? asked.text : '';
}

/** The refused question back into the box, selected and focused, so the visitor can reword it. */
export function rephrase(textarea: HTMLTextAreaElement | null, question: string): void {
  if (!textarea) return;
  textarea.value = question;
  textarea.focus();
  textarea.select();
}

/**
 * `kb-escalate` first, cancelable, so a host can open its own help desk; unless it was cancelled, the
 * support address (`address`, already checked to be https: or mailto:): a new tab for https:, the mail
 * program for mailto: (which leaves the page as it is).
 */
export function escalate(
  host: HTMLElement,
  turns: readonly Turn[],
  refusal: RefusalTurn,
  address: string | undefined,
  sessionId?: string,
): void {
  const question = questionOf(turns, refusal);
  const href = address && supportLink(address, question, location.href);
  const detail: KbEscalateDetail = {
    question,
    turns: turns.map((t) =>
      t.kind === 'user'
        ? { role: 'user', text: t.text }
        : t.kind === 'answer'
          ? { role: 'assistant', text: t.markdown }
          : { role: 'assistant', text: t.message, refused: true },
    ),
    pageUrl: location.href,
    ...(sessionId ? { sessionId } : {}),
    ...(href ? { href } : {}),
  };
  const event = new CustomEvent('kb-escalate', { detail, bubbles: true, composed: true, cancelable: true });
  if (!host.dispatchEvent(event) || !href) return;
  if (href.startsWith('mailto:')) window.open(href, '_self');
  else window.open(href, '_blank', 'noopener,noreferrer');
}
