/**
 * Every user-visible string of the widget. Override any of them with the `strings` property
 * (`el.strings = { send: 'Envoyer' }`); the rest keep these English defaults.
 */
export const DEFAULT_STRINGS = {
  openChat: 'Open chat',
  closeChat: 'Close chat',
  heading: 'Ask our docs',
  greeting: '',
  placeholder: 'Ask a question…',
  inputLabel: 'Your question',
  send: 'Send',
  retry: 'Retry',
  history: 'History',
  newChat: 'New chat',
  backToChat: 'Back to chat',
  sessionsHeading: 'Your conversations',
  noSessions: 'No conversations yet.',
  historyError: 'Your conversations could not be loaded.',
  loading: 'Initializing AI…',
  loadingProgress: 'Initializing AI… {percent}%',
  timeout: 'Connection timed out',
  unsupported: 'Browser not supported — please use a recent version of Chrome, Edge, Firefox or Safari.',
  modelError: 'The AI model could not be loaded.',
  keywordMode: 'Keyword search mode: answers come from a plain text search and may be less precise.',
  useKeywordSearch: 'Use keyword search',
  typing: 'The assistant is typing',
  sources: 'Sources',
  groundedIn: 'Grounded in {count} sources',
  groundedInOne: 'Grounded in 1 source',
  showMoreSources: 'Show more sources ({count})',
  showFewerSources: 'Show fewer sources',
  showPassage: 'Show passage',
  hidePassage: 'Hide passage',
  passageError: 'The passage could not be loaded.',
  openSource: 'Open source',
  page: 'Page {page}',
  section: 'Section {section}',
  source: 'Source {n}',
  copy: 'Copy',
  copied: 'Copied',
  copyCode: 'Copy code',
  codeCopied: 'Copied',
  table: 'Table',
  related: 'Related',
  answerAnnouncement: 'Answer: {text}',
  stopped: 'Stopped because you asked a new question.',
  lowConfidence: 'The sources only partly match your question.',
  rateLimited: 'You are sending questions too quickly. Please wait a moment and try again.',
  rateLimitedSeconds: 'You are sending questions too quickly. Please try again in {seconds} seconds.',
  unauthorized: 'Your session could not be verified. Please reload the page and try again.',
  forbidden: 'You are not allowed to ask questions here.',
  invalidRequest: 'That question could not be sent. Please rephrase it and try again.',
  tooLong: 'That question is too long. Please shorten it.',
  unavailable: 'The assistant is temporarily unavailable. Please try again in a moment.',
  interruptedPartial: 'The connection was lost before the answer was complete.',
  unreachable: 'Could not reach the server. Please check your connection and try again.',
  offline: 'You are offline. Your question is still here: send it when you are back online.',
  waitingRetry: 'Many people are asking right now. Trying again in {seconds} s…',
  incomplete: 'The answer could not be completed.',
  generic: 'Something went wrong. Please try again.',
};

export type KbChatStrings = typeof DEFAULT_STRINGS;

/** `format('Page {page}', { page: 3 })` → `Page 3`. */
export function format(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
