import type { Database } from '../../shared/db/database.ts';
import type { BenchKnobs } from './bench-knobs.ts';
import type { BenchServers } from './bench-servers.ts';
import type { BenchStack } from './bench-stack.ts';
import type { BenchRow } from './results-table.ts';

/** One benchmark run: where the measures run, their knobs, and the table they add rows to. */
export interface BenchRun {
  stack: BenchStack;
  servers: BenchServers;
  knobs: BenchKnobs;
  rows: BenchRow[];
  log: (line: string) => void;
}

export const sizeLabel = (posts: number): string => `${posts.toLocaleString('en')} posts`;

/** Posts in the database right now (what the table's "database size" column says). */
export const postCount = (db: Database): Promise<number> => db.posts.estimatedDocumentCount();
