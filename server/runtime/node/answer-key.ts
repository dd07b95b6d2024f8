/**
 * The embedded server's answer write key when KB_ANSWER_WRITE_KEY is unset: a random one kept beside the
 * data (like the JWT secret), whose hash `npm start` stores in the database it opens
 * (server/store/answer-key.ts says what the key is for).
 */
import { localSecret } from './local-secret.ts';

export function localAnswerWriteKey(dataDir: string): Promise<string> {
  return localSecret(dataDir, 'kb-chat-answer-write-key');
}
