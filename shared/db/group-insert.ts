import { MongoBulkWriteError, type Collection, type Document, type WriteError } from 'mongodb';
import { unavailableBackingService } from '../backing-service-errors.ts';
import { isDuplicateKey } from './duplicate-key.ts';

/** One caller's documents, waiting for the write that takes them. */
interface Waiting {
  documents: readonly Document[];
  /** A document refused as a duplicate of one already written counts as written (told once). */
  duplicatesWritten: boolean;
  settle: (error: Error | undefined) => void;
}

/** One document the database refused, as the write error of a bulk insert tells it (code kept). */
export class RefusedDocument extends Error {
  readonly code: number;

  constructor(writeError: WriteError) {
    super(`the database refused a document: ${writeError.errmsg ?? 'no reason given'}`, { cause: writeError });
    this.name = 'RefusedDocument';
    this.code = writeError.code;
  }
}

/**
 * How many documents one write takes at most (the driver splits a write by size itself): bounds
 * how many callers share one write's wait and fate.
 */
const maxDocumentsPerWrite = 500;

/**
 * Inserts into one collection from concurrent callers, written together: while one insert is on
 * its way, the documents handed over meanwhile wait and go in the next, as a database's group
 * commit does. Nothing waits when nothing is being written, so a lone caller is not slowed.
 * Measured on FerretDB 1.24 over PostgreSQL: five documents in one insert cost the server about
 * a quarter of the CPU of five inserts; every publish writes a notification and its events.
 *
 * Each caller's promise settles when its own documents are written, or fails with the reason
 * one of them was refused, or the reason its write failed as a whole. The insert is unordered: a
 * refused document does not keep the others, its caller's or anyone's, from being written; a
 * caller whose documents must go all or none hands over one.
 */
export class GroupInsert {
  readonly #collection: Collection;
  #waiting: Waiting[] = [];
  #writing = false;

  constructor(collection: Collection) {
    this.#collection = collection;
  }

  insert(documents: readonly Document[], options: { duplicatesWritten?: boolean } = {}): Promise<void> {
    if (documents.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const settle = (error: Error | undefined): void => {
        if (error === undefined) resolve();
        else reject(error);
      };
      this.#waiting.push({ documents, duplicatesWritten: options.duplicatesWritten === true, settle });
      if (!this.#writing) void this.#writeAll();
    });
  }

  async #writeAll(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) await this.#write(this.#takeBatch());
    this.#writing = false;
  }

  /** The callers whose documents go in the next write: at least one, then as many as fit. */
  #takeBatch(): Waiting[] {
    let taken = 0;
    let size = 0;
    for (const waiting of this.#waiting) {
      if (taken > 0 && size + waiting.documents.length > maxDocumentsPerWrite) break;
      taken += 1;
      size += waiting.documents.length;
    }
    return this.#waiting.splice(0, taken);
  }

  async #write(batch: readonly Waiting[]): Promise<void> {
    const owners = batch.flatMap((waiting) => waiting.documents.map(() => waiting));
    try {
      await this.#collection.insertMany(batch.flatMap((waiting) => [...waiting.documents]), { ordered: false });
      for (const waiting of batch) waiting.settle(undefined);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      const refused = refusalsByCaller(failure, owners);
      if (refused !== null) {
        for (const waiting of batch) {
          waiting.settle(firstRealRefusal(refused.get(waiting) ?? [], waiting.duplicatesWritten));
        }
      } else if (batch.length > 1 && unavailableBackingService(failure) === null) {
        // A failure of the whole write that is not the database being away may be one caller's
        // (a document the driver will not send): each is tried alone, so no caller fails for
        // another's documents. A caller's own document found written by then is written.
        for (const waiting of batch) await this.#write([{ ...waiting, duplicatesWritten: true }]);
      } else {
        // The database away: every caller hears it at once (trying each again would make the
        // last wait a server selection timeout per caller), as the error the driver gave.
        for (const waiting of batch) waiting.settle(failure);
      }
    }
  }
}

/**
 * Each caller's refused documents, from an unordered bulk insert's write errors; null for any
 * other failure, a bulk error without write errors included (the connection cut short: nothing
 * is known written).
 */
function refusalsByCaller(error: Error, owners: readonly Waiting[]): Map<Waiting, WriteError[]> | null {
  if (!(error instanceof MongoBulkWriteError) || error.writeConcernError !== undefined) return null;
  const writeErrors: readonly WriteError[] = [error.writeErrors].flat();
  if (writeErrors.length === 0 || unavailableBackingService(error) !== null) return null;
  const refused = new Map<Waiting, WriteError[]>();
  for (const writeError of writeErrors) {
    const owner = owners[writeError.index];
    if (owner === undefined) return null;
    refused.set(owner, [...(refused.get(owner) ?? []), writeError]);
  }
  return refused;
}

function firstRealRefusal(refusals: readonly WriteError[], duplicatesWritten: boolean): RefusedDocument | undefined {
  const real = refusals.find((refusal) => !(duplicatesWritten && isDuplicateKey(refusal)));
  return real === undefined ? undefined : new RefusedDocument(real);
}

const groups = new WeakMap<Collection, GroupInsert>();

/** The process's one GroupInsert for this collection, so every writer to it shares the writes. */
export function groupInsertInto(collection: Collection): GroupInsert {
  let group = groups.get(collection);
  if (group === undefined) {
    group = new GroupInsert(collection);
    groups.set(collection, group);
  }
  return group;
}
