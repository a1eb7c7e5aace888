import type { Types } from 'mongoose';
import type { Database } from '../../db/database.ts';
import { LogEvent } from '../../logging/events.ts';
import type { Logger } from '../../logging/logger.ts';

/** The stages of a generation, in the order they run. */
export type GenerationStage = 'script' | 'images' | 'narration' | 'render' | 'inspect';

/** Writes closer together than this are skipped: GET /media/:id needs no finer view than ffmpeg's own. */
const minWriteIntervalMs = 250;

/**
 * Keeps the pending media's `progress` up to date as a generation runs. Each stage is given its
 * share of 100; `report(stage, fraction)` moves within it. Writes are throttled, go one at a time
 * and only forward, and only while the media is pending. A write that fails is logged and the
 * generation goes on: progress is a courtesy, the video is the work.
 */
export class GenerationProgress {
  readonly #db: Database;
  readonly #mediaId: Types.ObjectId;
  readonly #log: Logger;
  readonly #shares: Map<GenerationStage, { start: number; size: number }>;
  #last = { stage: '', percent: -1, at: 0 };
  #writing: Promise<void> = Promise.resolve();

  constructor(db: Database, mediaId: Types.ObjectId, log: Logger, stages: readonly [GenerationStage, number][]) {
    this.#db = db;
    this.#mediaId = mediaId;
    this.#log = log;
    const total = stages.reduce((sum, [, weight]) => sum + weight, 0);
    let start = 0;
    this.#shares = new Map(stages.map(([stage, weight]) => {
      const size = (weight / total) * 100;
      const share = { start, size };
      start += size;
      return [stage, share];
    }));
  }

  /** Notes that `stage` is `fraction` (0 to 1) done; a new stage and a finished one are always written. */
  report(stage: GenerationStage, fraction: number): void {
    const share = this.#shares.get(stage);
    if (share === undefined) return;
    const percent = Math.min(99, Math.floor(share.start + share.size * Math.min(1, Math.max(0, fraction))));
    const now = Date.now();
    const newStage = stage !== this.#last.stage;
    if (percent < this.#last.percent || (!newStage && percent === this.#last.percent)) return;
    if (!newStage && fraction < 1 && now - this.#last.at < minWriteIntervalMs) return;
    this.#last = { stage, percent, at: now };
    this.#writing = this.#writing.then(async () => {
      try {
        const update = { $set: { progress: { stage, percent } } };
        await this.#db.media.updateOne({ _id: this.#mediaId, status: 'pending' }, update);
      } catch (error) {
        this.#log.warn({ event: LogEvent.workerError, err: error, stage, percent }, 'generation progress not saved');
      }
    });
  }

  /** Waits for the writes already asked for, so none lands after the media is settled. */
  settled(): Promise<void> {
    return this.#writing;
  }
}
