import { Types } from 'mongoose';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { platformEnvPrefix } from '../../shared/platforms/kit/platform-app.ts';
import { allPlatformModules, allPlatforms } from '../../shared/platforms/platforms.ts';
import { fuzzTargets, publicRouteKeys } from '../fuzz/fuzz-targets.ts';
import { FuzzWorld } from '../fuzz/fuzz-world.ts';
import { connectFormCases } from './connect-form-cases.ts';
import { platformCases } from './platform-cases.ts';
import { headerCases, routeCases, routeTemplate, type RouteTemplate } from './route-cases.ts';
import type { StallCase } from './stall-case.ts';
import { failuresOf, maxBlockedMs, runGroup, type CaseResult } from './stall-runner.ts';

/**
 * Input built to be slow, sent to every public route, every dashboard form and page, the
 * OAuth token endpoint, the Connect forms and every platform's text rules, with the api
 * running in this process: while each request is handled, the event loop may not be blocked
 * longer than 100 ms (monitorEventLoopDelay, test/support/event-loop-watch.ts), and each
 * answer must be a clear one (a 4xx with the API's error code, or a dashboard page saying what
 * is wrong, or a normal answer), never a 5xx, a hang or a dropped connection.
 *
 * The routes and their valid requests are the fuzzer's (test/fuzz/fuzz-targets.ts); the inputs
 * of a valid request are made slow (slow-inputs.ts) all at once in every kind, then each alone
 * (route-cases.ts). The summary printed at the end names the longest blocks and the groups that
 * took longest. `STALL_ONLY=<text>` runs only the groups whose name contains the text.
 */
const world = new FuzzWorld();
const only = process.env.STALL_ONLY;
/**
 * Stands for every platform's fixed hosts and for the servers users name in Connect forms: it
 * refuses every sign-in, so a form is answered with the platform's refusal and nothing leaves
 * the machine.
 */
const refusingPlatform = createServer((_request, response) => {
  response.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"unauthorized"}');
});
let refusingOrigin = '';
const routes = new Map<string, RouteTemplate>();
/** Routes of the table without a valid example request to start from: reported by their own test. */
const routesWithoutExample: string[] = [];
const channels = new Map<string, string>();
const everyResult: CaseResult[] = [];
const startedAt = performance.now();

/** How long each group took, for the summary: where the suite's time goes. */
const groupSeconds: [string, number][] = [];

async function run(cases: readonly StallCase[]): Promise<string[]> {
  const groups = new Map<string, StallCase[]>();
  for (const stallCase of cases) {
    if (only !== undefined && !stallCase.group.includes(only)) continue;
    groups.set(stallCase.group, [...(groups.get(stallCase.group) ?? []), stallCase]);
  }
  const results: CaseResult[] = [];
  for (const [name, group] of groups) {
    const started = performance.now();
    results.push(...await runGroup(world.facts.apiPort, group));
    groupSeconds.push([name, (performance.now() - started) / 1000]);
  }
  everyResult.push(...results);
  return failuresOf(results);
}

function route(name: string): RouteTemplate {
  const found = routes.get(name);
  if (found === undefined) throw new Error(`no fuzz target ${name}`);
  return found;
}

const routeList = (filter: (template: RouteTemplate) => boolean): RouteTemplate[] => (
  [...routes.values()].filter(filter)
);

describe('slow input never blocks the api\'s event loop, and is always answered clearly', () => {
  beforeAll(async () => {
    await new Promise<void>((resolve) => { refusingPlatform.listen(0, '127.0.0.1', resolve); });
    refusingOrigin = `http://127.0.0.1:${String((refusingPlatform.address() as AddressInfo).port)}`;
    for (const module of allPlatformModules()) {
      if (module.urls === undefined) continue;
      const prefix = platformEnvPrefix(module.definition.identifier);
      for (const name of ['API_URL', 'AUTH_URL', 'TOKEN_URL']) vi.stubEnv(`${prefix}_${name}`, refusingOrigin);
    }
    // X-Forwarded-For is then read (and parsed) for the client address, as behind a proxy.
    vi.stubEnv('TRUST_PROXY_HOPS', '1');
    await world.start();
    for (const target of fuzzTargets(world.facts)) {
      if (target.server !== 'api') continue;
      try {
        routes.set(target.name, routeTemplate(target));
      } catch (error) {
        // The fuzzer's own test names the route too; here the other routes still run.
        routesWithoutExample.push(`${target.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const { db, secrets } = world.ctx;
    const owner = await db.channels.findById(world.facts.channelId).lean();
    if (owner === null) throw new Error('the fuzz world has no channel');
    for (const platform of allPlatforms()) {
      const channel = await db.channels.create({
        organizationId: new Types.ObjectId(owner.organizationId), provider: platform.identifier,
        name: `Stalled ${platform.displayName}`, accountId: `${platform.identifier}-stall`,
        tokenSealed: secrets.seal('token'),
      });
      channels.set(platform.identifier, channel._id.toString());
    }
  }, 120_000);

  afterAll(async () => {
    await world.stop();
    refusingPlatform.closeAllConnections();
    refusingPlatform.close();
    vi.unstubAllEnvs();
    const slowest = [...everyResult].sort((a, b) => b.blockedMs - a.blockedMs).slice(0, 5)
      .map((result) => `${String(result.blockedMs)} ms ${result.stallCase.group} | ${result.stallCase.name}`);
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
    const longest = [...groupSeconds].sort((a, b) => b[1] - a[1]).slice(0, 5)
      .map(([name, groupTime]) => `${groupTime.toFixed(1)} s ${name}`);
    process.stderr.write(`stall suite: ${String(everyResult.length)} cases in ${seconds} s; `
      + `the longest blocks (limit ${String(maxBlockedMs)} ms):\n  ${slowest.join('\n  ')}\n`
      + `the longest groups:\n  ${longest.join('\n  ')}\n`);
  }, 60_000);

  it('starts from a valid request for every route of the public route table', () => {
    expect(routesWithoutExample).toEqual([]);
    for (const key of publicRouteKeys()) {
      const [method = '', path = ''] = key.split(' ');
      expect([...routes.keys()], key).toContain(`${method} /api/public/v1${path}`);
    }
  });

  it('public API routes, the OAuth token endpoint, uploads and documents', async () => {
    const api = routeList((template) => template.answer !== 'page');
    expect(await run(api.flatMap((template, index) => routeCases(template, index)))).toEqual([]);
  }, 600_000);

  it('dashboard pages and forms', async () => {
    const pages = routeList((template) => template.answer === 'page');
    expect(await run(pages.flatMap((template, index) => routeCases(template, index)))).toEqual([]);
  }, 600_000);

  it('headers the routes parse, up to Node\'s header limit', async () => {
    expect(await run(headerCases(routes))).toEqual([]);
  }, 600_000);

  it('the dashboard\'s Connect forms of platforms connected with credentials', async () => {
    const cases = connectFormCases(route('POST /webhooks'), allPlatformModules(), refusingOrigin);
    expect(await run(cases)).toEqual([]);
  }, 600_000);

  it('every platform\'s text rules: post text and settings', async () => {
    const posts = route('POST /api/public/v1/posts');
    expect(await run(platformCases(posts, allPlatforms(), channels))).toEqual([]);
  }, 600_000);
});
