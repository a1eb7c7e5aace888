import { api } from '../support/fixtures.ts';

/** One POST /posts of the load, and what its caller was told. */
export interface LoadAttempt {
  label: string;
  parts: string[];
  status: number;
  /** The error code of a refusal; null when accepted. */
  error: string | null;
  message: string | null;
  postId: string | null;
  answeredAt: number;
}

/**
 * Creates two-part threads one after the other, at a steady pace, until stopped: the load that
 * runs before, during and after a server goes away. Every answer is recorded. Each caller posts
 * to its own channel of `channelIds` (in turn when there are fewer): a worker calls a platform
 * account once at a time, so one account would measure the platform's pace, not the recovery.
 */
export class PostLoad {
  readonly attempts: LoadAttempt[] = [];
  readonly #target: { baseUrl: string; apiKey: string; channelIds: string[]; label: string; paceMs: number };
  #running = false;
  #loop: Promise<void> = Promise.resolve();

  constructor(target: { baseUrl: string; apiKey: string; channelIds: string[]; label: string; paceMs: number }) {
    this.#target = target;
  }

  /** `callers` loops send requests side by side, so a server that makes requests wait still sees a steady arrival. */
  start(callers = 1): void {
    this.#running = true;
    const loops = Array.from({ length: callers }, (_, caller) => {
      const channelIds = this.#target.channelIds;
      return this.#run(`${this.#target.label} c${caller}`, channelIds[caller % channelIds.length] ?? '');
    });
    this.#loop = Promise.all(loops).then(() => undefined);
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  accepted(): (LoadAttempt & { postId: string })[] {
    return this.attempts.filter((attempt): attempt is LoadAttempt & { postId: string } => attempt.postId !== null);
  }

  refused(): LoadAttempt[] {
    return this.attempts.filter((attempt) => attempt.postId === null);
  }

  async #run(caller: string, channelId: string): Promise<void> {
    let index = 0;
    while (this.#running) {
      index += 1;
      const label = `${caller}-${index}`;
      const parts = [`${label} 1/2`, `${label} 2/2`];
      const response = await api(this.#target.baseUrl, this.#target.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: {
          type: 'now',
          posts: [{ integration: { id: channelId }, value: parts.map((content) => ({ content })) }],
        },
      }).catch((error: unknown) => ({ status: 0, body: { error: `no answer: ${String(error)}` } }));
      const accepted = response.status === 201 ? ((response.body as { postId: string }[])[0]?.postId ?? null) : null;
      const answer = (response.body ?? {}) as { error?: unknown; message?: unknown };
      const error = accepted !== null ? null : typeof answer.error === 'string' ? answer.error : 'none';
      const message = accepted !== null ? null : typeof answer.message === 'string' ? answer.message : '';
      const answeredAt = Date.now();
      this.attempts.push({ label, parts, status: response.status, error, message, postId: accepted, answeredAt });
      // The pace of the load (a request rate), not a wait for something to happen.
      await new Promise((resolve) => setTimeout(resolve, this.#target.paceMs));
    }
  }
}
