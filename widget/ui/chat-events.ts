/**
 * What the conversation tells the page: the `kb-question`, `kb-answer`, `kb-refusal` and `kb-error` events
 * (their details are in events.ts), and an answer's or refusal's text for the screen reader's live region.
 */
import type { ChatElement } from '../chat-host.ts';
import type { AnswerTurn, ChatEvents } from '../controllers/chat-controller.ts';
import { errorCode, userMessageFor } from '../controllers/chat-errors.ts';
import { format, type KbChatStrings } from '../i18n.ts';
import { plainAnswer } from '../render/citations.ts';

/** A `kb-*` event from the element: bubbles out of the shadow root to the page. */
export function emit(host: ChatElement, type: string, detail: unknown): void {
  host.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}

export function chatEvents(
  host: ChatElement,
  strings: () => KbChatStrings,
  announce: (text: string) => void,
  /** An answer is complete (after its event): generative mode may write its fuller version. */
  answered: (turn: AnswerTurn) => void,
  session: (id: string | undefined) => void,
): ChatEvents {
  return {
    question: (detail) => emit(host, 'kb-question', detail),
    answer: (turn, sessionId) => {
      const text = plainAnswer(turn.markdown);
      announce(format(strings().answerAnnouncement, { text }));
      emit(host, 'kb-answer', {
        messageId: turn.request?.message_id ?? turn.id,
        answerId: turn.answerId,
        sessionId,
        text,
        citations: turn.citations,
      });
      answered(turn);
    },
    refusal: (turn) => {
      announce(turn.message);
      const { message, suggestions, actions, closest, answerId } = turn;
      emit(host, 'kb-refusal', { message, suggestions, actions, closest, answerId });
    },
    error: (turn) =>
      emit(host, 'kb-error', {
        code: errorCode(turn.error),
        message: userMessageFor(turn.error, turn.markdown !== '', strings()),
      }),
    session,
  };
}
