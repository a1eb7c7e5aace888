import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiScopes, missingScope, type RouteScope } from '../../../shared/domain/api-keys/scopes.ts';
import { createApiKey } from '../../../shared/domain/api-keys/api-keys.ts';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { publicRoutes } from '../public-routes.ts';

/** Defining routes must not touch deps: only their definitions are walked here. */
const untouchableDeps = new Proxy({}, {
  get(_target, key) {
    throw new Error(`publicRoutes read deps.${String(key)} while defining routes`);
  },
}) as PublicApiDeps;

const routeScopes: readonly RouteScope[] = [...apiScopes, 'any', 'full'];
const routes = publicRoutes(untouchableDeps);
const name = (route: { method: string; path: string }): string => `${route.method.toUpperCase()} ${route.path}`;

describe('every public route has a scope, and the api enforces it', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const keys = new Map<string, string>();

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    const { organizationId } = await createOrganization(ctx.db, ctx.secrets, { name: 'Walked' });
    for (const scope of apiScopes) {
      const { secret } = await createApiKey(ctx.db, ctx.secrets, organizationId, {
        name: scope, scopes: [scope], expiresAt: null,
      }, new Date());
      keys.set(scope, secret);
    }
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('names a known scope on every route; only the credential check takes any credential', () => {
    for (const route of routes) {
      expect(routeScopes, name(route)).toContain(route.scope);
    }
    expect(routes.filter((route) => route.scope === 'any').map(name)).toEqual(['GET /is-connected']);
    expect(routes.filter((route) => route.scope === 'full').map(name).sort())
      .toEqual(['DELETE /api-keys/:id', 'GET /api-keys', 'POST /api-keys']);
  });

  it('answers 403 insufficient_scope on every route a one-scope key does not cover', async () => {
    for (const [scope, key] of keys) {
      for (const route of routes) {
        const path = route.path.replace(/:(\w+)/g, (_match, param: string) =>
          param === 'provider' ? 'mastodon' : '0123456789abcdef01234567');
        const answer = await api(stack.baseUrl, key, `/api/public/v1${path}`, {
          method: route.method.toUpperCase(),
          ...(route.method === 'get' || route.method === 'delete' ? {} : { body: {} }),
        });
        const missing = missingScope([scope as (typeof apiScopes)[number]], route);
        const what = `${scope} key, ${name(route)}: ${JSON.stringify(answer.body)}`;
        if (missing === null) {
          expect(answer.status, what).not.toBe(403);
        } else {
          expect(answer, what).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
          expect((answer.body as { message: string }).message, what).toContain(missing);
        }
      }
    }
  });
});
