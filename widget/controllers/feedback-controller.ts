/**
 * Visitor feedback: 👍 / 👎 per answer or refusal, with an optional comment on 👎, sent as
 * `POST /api/feedback`. One state per rated message. A change of mind re-posts (the server replaces the
 * rating); the requests of one message go out one after another, so the last choice is the one stored, and a
 * superseded request's result is ignored. A failure is shown next to the buttons with a Retry, nothing more.
 */
import type { ReactiveControllerHost } from 'lit';
import type { FeedbackRating, FeedbackRequest } from '../../protocol/feedback.ts';
import type { ApiClient } from '../api/api-client.ts';

export interface FeedbackState {
  rating?: FeedbackRating;
  comment?: string;
  /** `sent`: the server stored the current rating; `error`: it could not be sent (Retry re-sends it). */
  status: 'idle' | 'sending' | 'sent' | 'error';
  /** The comment form is open (after 👎). */
  commenting: boolean;
}

interface Entry extends FeedbackState {
  /** Bumped per request: only the newest one's result counts. */
  run: number;
  /** The previous request of this message, which the next one waits for. */
  queue: Promise<unknown>;
}

/** No lifecycle of its own (nothing to stop on disconnect: a rating in flight may as well land). */
export class FeedbackController {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => ApiClient,
    /** The server stored this rating (the `kb-feedback` event). */
    private readonly stored: (detail: FeedbackRequest) => void,
  ) {}

  /** The state of one message; `initial` is its earlier rating (from history). */
  state(answerId: string, initial?: FeedbackRating): FeedbackState {
    let entry = this.entries.get(answerId);
    if (!entry)
      this.entries.set(
        answerId,
        (entry = { rating: initial, status: 'idle', commenting: false, run: 0, queue: Promise.resolve() }),
      );
    return entry;
  }

  /** 👍 or 👎. 👎 opens the comment form; choosing 👎 again reopens it. */
  rate(answerId: string, rating: FeedbackRating): void {
    const entry = this.entry(answerId);
    entry.commenting = rating === -1;
    if (entry.rating === rating && entry.status !== 'error') return this.host.requestUpdate();
    entry.rating = rating;
    entry.comment = undefined;
    this.send(answerId, entry);
  }

  /** The comment form's Send: the 👎 again, with the comment (a blank one just closes the form). */
  comment(answerId: string, text: string): void {
    const entry = this.entry(answerId);
    entry.commenting = false;
    const comment = text.trim().slice(0, 1000);
    if (!comment || entry.rating !== -1) return this.host.requestUpdate();
    entry.comment = comment;
    this.send(answerId, entry);
  }

  /** Skip (or Escape): close the form; the 👎 itself is already sent. */
  closeComment(answerId: string): void {
    this.entry(answerId).commenting = false;
    this.host.requestUpdate();
  }

  retry(answerId: string): void {
    const entry = this.entry(answerId);
    if (entry.rating !== undefined) this.send(answerId, entry);
  }

  private entry(answerId: string): Entry {
    return this.state(answerId) as Entry;
  }

  private send(answerId: string, entry: Entry): void {
    const run = ++entry.run;
    const body: FeedbackRequest = {
      message_id: answerId,
      rating: entry.rating!,
      ...(entry.comment ? { comment: entry.comment } : {}),
    };
    entry.status = 'sending';
    this.host.requestUpdate();
    entry.queue = entry.queue
      .then(() => this.api().feedback(body))
      .then(
        () => {
          if (run !== entry.run) return;
          entry.status = 'sent';
          this.stored(body);
        },
        (error: unknown) => {
          console.warn('[kb-chat] feedback not sent:', error);
          if (run === entry.run) entry.status = 'error';
        },
      )
      .finally(() => this.host.requestUpdate());
  }
}
