import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { dateOrderedPages } from './date-ordered-pages.ts';

interface Dated {
  _id: Types.ObjectId;
  at: Date;
}

/** A reader over documents held in memory, answering as the range query with its sort and limit does. */
function memoryReader(documents: readonly Dated[], reads: { limit: number }[]) {
  const sorted = [...documents].sort((a, b) => a.at.getTime() - b.at.getTime()
    || a._id.toHexString().localeCompare(b._id.toHexString()));
  return (from: Date | null, limit: number): Promise<Dated[]> => {
    reads.push({ limit });
    const fromMs = from?.getTime() ?? Number.NEGATIVE_INFINITY;
    return Promise.resolve(sorted.filter((document) => document.at.getTime() >= fromMs).slice(0, limit));
  };
}

async function everyPage(documents: readonly Dated[], pageSize: number, reads: { limit: number }[] = []) {
  const pages: Dated[][] = [];
  for await (const page of dateOrderedPages(memoryReader(documents, reads), (document) => document.at, pageSize)) {
    pages.push(page);
  }
  return pages;
}

describe('dateOrderedPages', () => {
  it('hands out each document once, in order, when many share a date across page boundaries', async () => {
    const base = Date.UTC(2030, 0, 1);
    const documents = Array.from({ length: 23 }, (_, index) => ({
      _id: new Types.ObjectId(),
      // Runs of equal dates longer than a page: 0-9 at one time, 10-19 at the next, then three apart.
      at: new Date(base + (index < 10 ? 0 : index < 20 ? 1_000 : index * 1_000)),
    }));
    const pages = await everyPage(documents, 4);
    const handed = pages.flat().map((document) => document._id.toHexString());
    expect(handed).toHaveLength(documents.length);
    expect(new Set(handed).size).toBe(documents.length);
    expect(pages.every((page) => page.length > 0)).toBe(true);
  });

  it('reads once when the first page is not full, and not at all beyond an empty range', async () => {
    const reads: { limit: number }[] = [];
    const pages = await everyPage([{ _id: new Types.ObjectId(), at: new Date() }], 10, reads);
    expect(pages).toHaveLength(1);
    expect(reads).toEqual([{ limit: 10 }]);
    const none: { limit: number }[] = [];
    expect(await everyPage([], 10, none)).toEqual([]);
    expect(none).toHaveLength(1);
  });
});
