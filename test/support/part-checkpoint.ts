import { assertCheckpointKeys } from '../../shared/platforms/kit/checkpoint-keys.ts';
import type { PartCheckpoint } from '../../shared/platforms/kit/platform-adapter.ts';

/** A part checkpoint kept in memory, for adapter tests that call an adapter without the publish engine. */
export interface MemoryCheckpoint extends PartCheckpoint {
  /** Every save, in order: a test can see what an adapter stored before its irreversible step. */
  readonly saves: Record<string, string>[];
}

export function memoryCheckpoint(initial: Record<string, string> = {}): MemoryCheckpoint {
  const values: Record<string, string> = { ...initial };
  const saves: Record<string, string>[] = [];
  return {
    values,
    saves,
    save: (added) => {
      // The same refusal as the engine's, so a key the database would refuse fails here too.
      assertCheckpointKeys(added);
      saves.push({ ...added });
      Object.assign(values, added);
      return Promise.resolve();
    },
  };
}
