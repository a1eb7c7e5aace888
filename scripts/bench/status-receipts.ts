import { setTimeout as sleep } from 'node:timers/promises';
import type { MastodonSimulator } from '../../test/simulators/mastodon/mastodon-simulator.ts';

/** The text of the `index`th status a measure sends; the tag tells one measure's statuses from another's. */
export const statusText = (tag: string, index: number): string => `bench ${tag} ${index}`;

/** When the simulator received each status of one measure (wall-clock ms, comparable with due times). */
export class StatusReceipts {
  readonly receivedAt = new Map<number, number>();
  /** Statuses that arrived a second time or more: a post published twice. */
  repeats = 0;
  readonly #simulator: MastodonSimulator;

  constructor(simulator: MastodonSimulator, tag: string) {
    this.#simulator = simulator;
    const pattern = new RegExp(`^bench ${tag} (\\d+)$`);
    simulator.onStatus = (status) => {
      const match = pattern.exec(status.text);
      if (match?.[1] === undefined) return;
      const index = Number(match[1]);
      // A repeat (a retried job) keeps its first arrival: that is when the post went out.
      if (this.receivedAt.has(index)) this.repeats += 1;
      else this.receivedAt.set(index, Date.now());
    };
  }

  /** Resolves when `expected` statuses have arrived or at `deadline` (epoch ms), whichever is first. */
  async waitFor(expected: number, deadline: number): Promise<void> {
    while (this.receivedAt.size < expected && Date.now() < deadline) await sleep(100);
  }

  /** Resolves when the `index`th status has arrived or at `deadline` (epoch ms), whichever is first. */
  async waitForStatus(index: number, deadline: number): Promise<void> {
    while (!this.receivedAt.has(index) && Date.now() < deadline) await sleep(20);
  }

  stop(): void {
    this.#simulator.onStatus = null;
  }
}
