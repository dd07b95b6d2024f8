/**
 * Entry of the npm package (`import 'kb-chat'`): registers `<kb-chat>` like the script tag's loader does, but
 * for a site's bundler. The chat UI is a literal `import()`, so the bundler emits it as a lazily loaded chunk
 * of the site; the workers come from the kb-chat server at `api-url` (KbChat.bundled).
 *
 * Safe to import where there is no DOM (a framework rendering on the server): nothing is defined or touched
 * then, and the element registers when the same module runs in the browser.
 */
import KbChat from '../kb-chat.component.ts';

KbChat.bundled = { importUi: () => import('../ui/chat-ui.ts') };

if (typeof customElements !== 'undefined' && !customElements.get('kb-chat')) customElements.define('kb-chat', KbChat);

export { KbChat };
export default KbChat;
export type {
  KbAnswerDetail,
  KbAnswerWrittenDetail,
  KbErrorDetail,
  KbEscalateDetail,
  KbFeedbackDetail,
  KbQuestionDetail,
  KbRefusalDetail,
  Preload,
} from '../kb-chat.component.ts';
export type { KbChatStrings } from '../i18n.ts';
