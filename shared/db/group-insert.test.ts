import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';
import { openDatabase, type Database } from './database.ts';
import { isDuplicateKey } from './duplicate-key.ts';
import { GroupInsert, RefusedDocument } from './group-insert.ts';

const note = (text: string, _id = new Types.ObjectId()) => ({ _id, text });

describe('GroupInsert', () => {
  let ctx: TestContext;
  let monitored: Database;
  const inserts: number[] = [];

  beforeAll(async () => {
    ctx = await createTestContext();
    monitored = await openDatabase(ctx.config.MONGO_URL, { monitorCommands: true });
    monitored.connection.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'insert') inserts.push((event.command.documents as unknown[]).length);
    });
  });
  afterAll(async () => {
    await monitored.close();
    await ctx.cleanup();
  });

  const collection = (name: string) => monitored.connection.db?.collection(name) ?? expect.unreachable('no database');

  it('writes a lone caller at once, in one insert', async () => {
    inserts.length = 0;
    const group = new GroupInsert(collection('lone'));
    await group.insert([note('alone')]);
    expect(inserts).toEqual([1]);
    expect(await collection('lone').countDocuments()).toBe(1);
  });

  it('writes what concurrent callers hand over while an insert is on its way in the next insert', async () => {
    inserts.length = 0;
    const group = new GroupInsert(collection('concurrent'));
    await Promise.all(Array.from({ length: 12 }, (_, index) => group.insert([note(`caller ${String(index)}`)])));
    // The first goes alone; the eleven that came meanwhile go together.
    expect(inserts).toEqual([1, 11]);
    expect(await collection('concurrent').countDocuments()).toBe(12);
  });

  it('fails only the caller whose document was refused, and counts a told-once duplicate as written', async () => {
    const group = new GroupInsert(collection('refusals'));
    const existing = new Types.ObjectId();
    await group.insert([note('first', existing)]);
    const [again, clash, fresh] = await Promise.allSettled([
      group.insert([note('told again', existing)], { duplicatesWritten: true }),
      group.insert([note('clash', existing), note('beside the clash')]),
      group.insert([note('fresh')]),
    ]);
    expect(again.status).toBe('fulfilled');
    expect(fresh.status).toBe('fulfilled');
    expect(clash.status).toBe('rejected');
    const reason: unknown = clash.status === 'rejected' ? clash.reason : undefined;
    expect(reason).toBeInstanceOf(RefusedDocument);
    expect(isDuplicateKey(reason)).toBe(true);
    // Unordered: the refused document kept nothing else out, its caller's other one included.
    const texts = (await collection('refusals').find().toArray()).map((document) => document.text as string);
    expect(texts.sort()).toEqual(['beside the clash', 'first', 'fresh']);
  });

  it('does not fail a caller for a document of another that cannot be stored at all', async () => {
    const group = new GroupInsert(collection('oversized'));
    const [first, oversized, fine] = await Promise.allSettled([
      group.insert([note('first')]),
      // Over the 16 MB a stored document may hold.
      group.insert([note('x'.repeat(17 * 1024 * 1024))]),
      group.insert([note('fine')]),
    ]);
    expect([first.status, oversized.status, fine.status]).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const texts = (await collection('oversized').find({}, { projection: { text: 1 } }).toArray())
      .map((document) => document.text as string);
    expect(texts.sort()).toEqual(['fine', 'first']);
  });

  it('fails every caller when the write itself fails', async () => {
    const closing = await openDatabase(ctx.config.MONGO_URL);
    const group = new GroupInsert(closing.connection.db?.collection('closed') ?? expect.unreachable('no database'));
    await closing.close();
    const outcomes = await Promise.allSettled([group.insert([note('a')]), group.insert([note('b')])]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    // The group is not stuck: a later write is tried again (and fails again, the connection being closed).
    await expect(group.insert([note('c')])).rejects.toThrow();
  });

  it('tells no caller its documents are written when the connection drops during the write', async () => {
    // A TCP relay to the database that, once cut, drops every connection as soon as it speaks.
    const target = new URL(ctx.config.MONGO_URL);
    const sockets = new Set<Socket>();
    let cut = false;
    const relay = createServer((client) => {
      const server = connect(Number(target.port), target.hostname);
      for (const socket of [client, server]) {
        sockets.add(socket);
        socket.on('error', () => { client.destroy(); server.destroy(); });
        socket.on('close', () => { client.destroy(); server.destroy(); sockets.delete(socket); });
      }
      client.on('data', (chunk: Buffer) => {
        if (cut) client.destroy();
        else server.write(chunk);
      });
      server.pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayUrl = new URL(ctx.config.MONGO_URL);
    relayUrl.host = `127.0.0.1:${String((relay.address() as AddressInfo).port)}`;
    relayUrl.searchParams.set('retryWrites', 'false');
    const relayed = await openDatabase(relayUrl.toString());
    try {
      const group = new GroupInsert(relayed.connection.db?.collection('cut') ?? expect.unreachable('no database'));
      await group.insert([note('before the cut')]);
      cut = true;
      const outcomes = await Promise.allSettled([
        group.insert([note('a')]), group.insert([note('b')]), group.insert([note('c')]),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    } finally {
      for (const socket of sockets) socket.destroy();
      relay.close();
      await relayed.close();
    }
  });

  it('splits a write over 500 documents', async () => {
    inserts.length = 0;
    const group = new GroupInsert(collection('large'));
    const many = Array.from({ length: 450 }, (_, index) => note(`many ${String(index)}`));
    await Promise.all([
      group.insert([note('first')]),
      group.insert(many),
      group.insert(many.map((document) => ({ ...document, _id: new Types.ObjectId() }))),
    ]);
    expect(inserts).toEqual([1, 450, 450]);
    expect(await collection('large').countDocuments()).toBe(901);
  });
});
