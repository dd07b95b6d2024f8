/**
 * `kb-chat/react`: `<KbChat>` for React, made by @lit/react's `createComponent` (React 18 sets only
 * attributes on custom elements and cannot listen to their events; React 19 can, but with lowercase,
 * untyped `onkb-answer` props). Properties (`token`, `getToken`, `strings`) are set as properties and each
 * `kb-*` event is a typed `onKb…` prop.
 *
 * @example
 * import { KbChat } from 'kb-chat/react';
 * <KbChat api-url="https://kb.example.com" shortcut="mod+k" onKbAnswer={(e) => console.log(e.detail.text)} />
 */
import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
import KbChatElement, {
  type KbAnswerDetail,
  type KbAnswerWrittenDetail,
  type KbErrorDetail,
  type KbFeedbackDetail,
  type KbQuestionDetail,
  type KbRefusalDetail,
} from './index.ts';

/**
 * createComponent sets a prop as a property when its name is on `elementClass.prototype`, otherwise it leaves it
 * to React, which in React 18 makes it an attribute (`strings="[object Object]"`). These are the element's
 * plain fields, which live on each instance rather than the prototype; checked against the class by `satisfies`.
 */
const FIELDS = [
  'token',
  'getToken',
  'strings',
  'uiUrl',
  'embedderUrl',
  'generatorUrl',
  'generatorTimeout',
  'embedderTimeout',
] satisfies (keyof KbChatElement)[];
/** Never instantiated: createComponent reads its prototype (for the names) and its type (for the props). */
class KbChatProperties extends KbChatElement {
  // Attributes without a property: typed as props here, and (not on the prototype) rendered by React as attributes.
  declare mode?: 'floating' | 'inline';
  declare theme?: 'auto' | 'light' | 'dark';
  declare position?: 'right' | 'left';
}
for (const name of FIELDS)
  Object.defineProperty(KbChatProperties.prototype, name, { value: undefined, writable: true });

export const KbChat = createComponent({
  react: React,
  tagName: 'kb-chat',
  elementClass: KbChatProperties,
  // One line per `@fires` of KbChat (widget/kb-chat.component.ts): the React prop and the event it listens to.
  events: {
    onKbOpen: 'kb-open' as EventName<CustomEvent<void>>,
    onKbClose: 'kb-close' as EventName<CustomEvent<void>>,
    onKbQuestion: 'kb-question' as EventName<CustomEvent<KbQuestionDetail>>,
    onKbAnswer: 'kb-answer' as EventName<CustomEvent<KbAnswerDetail>>,
    onKbAnswerWritten: 'kb-answer-written' as EventName<CustomEvent<KbAnswerWrittenDetail>>,
    onKbRefusal: 'kb-refusal' as EventName<CustomEvent<KbRefusalDetail>>,
    onKbError: 'kb-error' as EventName<CustomEvent<KbErrorDetail>>,
    onKbFeedback: 'kb-feedback' as EventName<CustomEvent<KbFeedbackDetail>>,
  },
  displayName: 'KbChat',
});

export default KbChat;
export type {
  KbAnswerDetail,
  KbAnswerWrittenDetail,
  KbErrorDetail,
  KbFeedbackDetail,
  KbQuestionDetail,
  KbRefusalDetail,
};
