/**
 * Entry point of the loader (dist/kb-chat.js, ≤ 4 KB gz): registers `<kb-chat>`, which paints the bubble and
 * loads the chat UI (dist/kb-chat-ui.js) on intent. Guarded, so a page that loads the script twice (a CMS
 * snippet and a theme, say) gets one working element instead of a "name already defined" exception.
 */
import KbChat from './kb-chat.component.ts';

export { KbChat };
export default KbChat;

if (!customElements.get('kb-chat')) customElements.define('kb-chat', KbChat);
