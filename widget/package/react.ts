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
import { createComponent } from '@lit/react';
import KbChatElement from './index.ts';
import { EVENTS, FIELDS } from './react-element.ts';

/**
 * createComponent sets a prop as a property when its name is on `elementClass.prototype`, otherwise it leaves it
 * to React, which in React 18 makes it an attribute (`strings="[object Object]"`). FIELDS (generated from
 * custom-elements.json, like EVENTS) are the element's plain fields, which live on each instance rather than
 * the prototype. This class is never instantiated: createComponent reads its prototype (for the names) and
 * its type (for the props).
 */
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
  // One prop per event of custom-elements.json (widget/package/react-element.ts, made by `npm run docs:widget`).
  events: EVENTS,
  displayName: 'KbChat',
});

export default KbChat;
export type {
  KbAnswerDetail,
  KbAnswerWrittenDetail,
  KbErrorDetail,
  KbEscalateDetail,
  KbFeedbackDetail,
  KbQuestionDetail,
  KbRefusalDetail,
} from './react-element.ts';
