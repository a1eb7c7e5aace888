/** Letters, digits, `-` and `_`: MongoDB and FerretDB both store such keys as plain field names. */
const checkpointKey = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Refuses a checkpoint key the database would refuse or read as a path (`media.0.id`, `$set`),
 * with a message naming it, before anything is sent to the platform after the save.
 */
export function assertCheckpointKeys(values: Record<string, string>): void {
  for (const key of Object.keys(values)) {
    if (!checkpointKey.test(key)) {
      throw new Error(`checkpoint key ${JSON.stringify(key)} is not allowed: use letters, digits, - and _ (1 to 64)`);
    }
  }
}
