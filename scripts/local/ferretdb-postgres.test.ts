import { Types } from 'mongoose';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { waitFor } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/**
 * The embedded default's promise: the queries SPS sends through FerretDB are answered from
 * indexes by the PostgreSQL underneath, not by reading every document. Checked on the suite's own
 * FerretDB, through PostgreSQL's own statistics of index use.
 */
const postgresUrl = inject('ferretdbPostgresUrl');

describe.skipIf(postgresUrl === '')('FerretDB on PostgreSQL, as prepared by scripts/local/ferretdb-postgres.ts', () => {
  let ctx: TestContext;
  let client: pg.Client;
  let schema: string;
  const roots: Types.ObjectId[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    schema = ctx.db.connection.name;
    client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    const organizationId = new Types.ObjectId();
    const channelId = new Types.ObjectId();
    for (let batch = 0; batch < 3; batch += 1) {
      const parts = Array.from({ length: 1000 }, (_, index) => {
        const root = index % 2 === 0 ? null : roots.at(-1) ?? null;
        const _id = new Types.ObjectId();
        if (root === null) roots.push(_id);
        return {
          _id, organizationId, channelId, group: `g${batch}-${index}`,
          rootPostId: root, position: root === null ? 0 : 1,
          content: 'x'.repeat(100), publishDate: new Date(), state: 'PUBLISHED',
        };
      });
      await ctx.db.posts.insertMany(parts);
    }
  });

  afterAll(async () => {
    await client.end();
    await ctx.cleanup();
  });

  async function twinScans(): Promise<number> {
    const result = await client.query<{ scans: string }>(
      `SELECT coalesce(sum(idx_scan), 0) AS scans FROM pg_stat_user_indexes
       WHERE schemaname = $1 AND relname LIKE 'posts%' AND indexrelname LIKE '%_gin'`,
      [schema],
    );
    return Number(result.rows[0]?.scans ?? 0);
  }

  it('gives every index the models declare a GIN twin over the same fields', async () => {
    const result = await client.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename LIKE 'posts%' AND indexname LIKE '%_gin'`,
      [schema],
    );
    const definitions = result.rows.map((row) => row.indexdef);
    expect(definitions.some((definition) => definition.includes(`(_jsonb -> '_id'::text)) jsonb_path_ops`))).toBe(true);
    expect(definitions.some((definition) => definition.includes(`(_jsonb -> 'rootPostId'::text)) jsonb_path_ops`)))
      .toBe(true);
    expect(definitions.every((definition) => definition.includes('USING gin'))).toBe(true);
  });

  it('answers lookups by _id and by rootPostId from those indexes, every time (not only the first plans)', async () => {
    const before = await twinScans();
    // PostgreSQL may switch a prepared statement to a generic plan after five runs, and a generic
    // plan cannot match the index expressions: twenty runs show the custom plans are kept.
    for (const root of roots.slice(0, 10)) {
      expect(await ctx.db.posts.findOne({ _id: root }).lean()).toMatchObject({ _id: root, position: 0 });
      expect(await ctx.db.posts.find({ rootPostId: root }).lean()).toHaveLength(1);
    }
    // PostgreSQL publishes a backend's statistics when it goes idle, within about a second.
    const scans = await waitFor(async () => {
      const now = await twinScans();
      return now - before >= 20 ? now : undefined;
    }, { timeoutMs: 20_000, what: 'twenty index scans in pg_stat_user_indexes' });
    expect(scans - before).toBeGreaterThanOrEqual(20);
  });
});
