import type { Middleware } from 'koa';
import { currentOrganization, type AppContext, type AppState } from '../context.ts';
import { requireScope } from '../middleware/authorize.ts';
import { classifyError } from '../middleware/error-handler.ts';
import { requestFingerprint } from '../middleware/idempotency.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { publicApiPrefix } from '../public/openapi/openapi-document.ts';
import type { PublicApiDeps } from '../public/public-api-deps.ts';
import { Reply, type RouteBudget } from '../public/route-definition.ts';
import { DomainError } from '../../shared/errors.ts';
import { LogEvent } from '../../shared/logging/events.ts';
import { refuseNulCharacters } from '../../shared/validation/json-shape.ts';
import { argumentsKey, concretePath, routeArguments, type BoundTool, type RouteArguments } from './bound-tools.ts';
import type { ToolExecutor } from './mcp-server.ts';

type RouteDeps = Pick<PublicApiDeps, 'limiter' | 'postValidationLimiter' | 'idempotency' | 'now'>;

interface Guards {
  scope: Middleware<AppState>;
  limit: Middleware<AppState>;
}

/**
 * Runs tools in the api process, each exactly as its route runs behind /api/public/v1: the route's
 * scope check and rate limit (the same middleware, on the MCP request's context), its schemas, its
 * handler and so its domain functions, and the Idempotency-Key store for tools keyed by arguments.
 */
export class RouteToolRunner {
  readonly #deps: RouteDeps;
  readonly #guards: Map<BoundTool, Guards>;

  constructor(deps: RouteDeps, tools: readonly BoundTool[]) {
    this.#deps = deps;
    const limits = new Map<RouteBudget, Middleware<AppState>>([
      ['organization', rateLimit(deps.limiter, 'organization')],
      ['post-validation', rateLimit(deps.postValidationLimiter, 'post-validation')],
    ]);
    this.#guards = new Map(tools.map((tool) => {
      const limit = limits.get(tool.route.budget ?? 'organization');
      if (limit === undefined) throw new Error(`tool ${tool.spec.name}'s route names an unknown budget`);
      return [tool, { scope: requireScope(tool.route), limit }];
    }));
  }

  /** The executor of one MCP request: its credential's organization and scopes are on `ctx.state`. */
  executorFor(ctx: AppContext): ToolExecutor {
    return {
      run: async (tool, args) => {
        const guards = this.#guards.get(tool);
        if (guards === undefined) throw new Error(`tool ${tool.spec.name} was not given to this runner`);
        let answer: unknown;
        await guards.scope(ctx, async () => {
          await guards.limit(ctx, async () => {
            answer = await this.#handle(ctx, tool, routeArguments(tool, args));
          });
        });
        return answer;
      },
      describe: (tool, error) => {
        const failure = classifyError(error);
        if (failure.statusCode >= 500) {
          ctx.state.log.error({ event: LogEvent.requestFailed, err: error, tool: tool.spec.name }, 'MCP tool failed');
        }
        return failure;
      },
    };
  }

  async #handle(ctx: AppContext, tool: BoundTool, args: RouteArguments): Promise<unknown> {
    const { route } = tool;
    refuseNulCharacters(args.params, 'path');
    refuseNulCharacters(args.query, 'query');
    const params: unknown = route.params?.parse(args.params);
    const query: unknown = route.query?.parse(args.query);
    const body: unknown = route.body?.parse(args.body ?? {});
    const organization = currentOrganization(ctx);
    const handle = async () => {
      const result = await route.handle({ params, query, body, organization, ctx });
      return result instanceof Reply ? result : new Reply(route.status, result);
    };
    if (tool.spec.keyedByArguments !== true) return (await handle()).body;

    // As api/middleware/idempotency.ts keys the same request made over HTTP, so both are one request.
    const store = this.#deps.idempotency;
    const path = `${publicApiPrefix}${concretePath(route.path, args.params)}`;
    const fingerprint = requestFingerprint(route.method.toUpperCase(), path, args.body);
    const claim = await store.claim(organization.id, argumentsKey(tool, args), fingerprint, this.#deps.now().getTime());
    if (claim.kind === 'replay') return claim.answer.body;
    if (claim.kind === 'running') {
      throw new DomainError('idempotency_request_running', 'the same call is still running; ask again once it has '
        + 'answered');
    }
    if (claim.kind === 'reused') {
      throw new DomainError('idempotency_key_reused', 'this call\'s key was used with another request');
    }
    let reply: Reply;
    try {
      reply = await handle();
    } catch (error) {
      await store.release(claim.claim);
      throw error;
    }
    await store.remember(claim.claim, { status: reply.status, body: reply.body });
    return reply.body;
  }
}
