import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppState } from '../context.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import { createLogger } from '../../shared/logging/logger.ts';
import { requestContext } from './request-context.ts';

type Line = Record<string, unknown>;

/** An app behind the request-context middleware whose one handler does what `handle` says. */
async function serve(handle: (state: AppState) => void): Promise<{ url: string; lines: Line[]; close: () => void }> {
  const lines: Line[] = [];
  const logger = createLogger({
    name: 'request-log-test', level: 'info',
    destination: { write: (line: string) => { lines.push(JSON.parse(line) as Line); } },
  });
  const app = new Koa<AppState>();
  app.use(requestContext(logger));
  app.use((ctx) => {
    handle(ctx.state);
    ctx.body = 'ok';
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}/`, lines, close: () => server.close() };
}

describe('the request log', () => {
  let close = (): void => undefined;
  afterEach(() => { close(); });

  it('closes a request that logged nothing else with one line carrying its id and bound fields', async () => {
    const app = await serve((state) => { state.requestLog.bind({ organizationId: 'org-1' }); });
    close = app.close;
    const response = await fetch(app.url, { headers: { 'X-Request-Id': 'request-0001' } });
    expect(response.status).toBe(200);
    await expect.poll(() => app.lines.length).toBe(1);
    expect(app.lines[0]).toMatchObject({
      reqId: 'request-0001', organizationId: 'org-1', event: LogEvent.requestCompleted, status: 200, path: '/',
      msg: 'request completed',
    });
  });

  it('gives every line of a request its id, and the organization from when it is bound', async () => {
    const app = await serve((state) => {
      state.log.info('before');
      state.requestLog.bind({ organizationId: 'org-2' });
      state.log.warn('after');
    });
    close = app.close;
    await fetch(app.url, { headers: { 'X-Request-Id': 'request-0002' } });
    await expect.poll(() => app.lines.length).toBe(3);
    const [before, after, completed] = app.lines;
    expect(before).toMatchObject({ reqId: 'request-0002', msg: 'before' });
    expect(before).not.toHaveProperty('organizationId');
    expect(after).toMatchObject({ reqId: 'request-0002', organizationId: 'org-2', msg: 'after' });
    expect(completed).toMatchObject({
      reqId: 'request-0002', organizationId: 'org-2', event: LogEvent.requestCompleted,
    });
  });

  it('keeps the lines of concurrent requests apart', async () => {
    const app = await serve((state) => { state.log.info(`handling ${state.requestId}`); });
    close = app.close;
    const ids = Array.from({ length: 5 }, (_, index) => `concurrent-${String(index).padStart(4, '0')}`);
    await Promise.all(ids.map((id) => fetch(app.url, { headers: { 'X-Request-Id': id } })));
    await expect.poll(() => app.lines.length).toBe(10);
    for (const line of app.lines) {
      expect(String(line.msg)).toMatch(/^(handling concurrent-\d{4}|request completed)$/);
      if (line.msg !== 'request completed') expect(line.msg).toBe(`handling ${String(line.reqId)}`);
    }
  });
});
