import Router from '@koa/router';
import {
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AppContext, AppState } from '../context.ts';
import { KeyUsage } from '../caches/key-usage.ts';
import { authenticate } from '../middleware/authenticate.ts';
import { bodyLimits, jsonBody } from '../middleware/json-body.ts';
import type { PublicApiDeps } from '../public/public-api-deps.ts';
import type { RouteDefinition } from '../public/route-definition.ts';
import { bindTools } from './bound-tools.ts';
import { createMcpServer } from './mcp-server.ts';
import { audienceCheck, bearerChallenge, protectedResourceRouter } from './protected-resource.ts';
import { RouteToolRunner } from './route-executor.ts';

/** Where MCP clients connect: the host root, beside /api, as the issue names it. */
export const mcpPath = '/mcp';

/** The SDK's transport reads a web Request: the same method, address and headers, the body already parsed. */
function webRequest(ctx: AppContext): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return new Request(ctx.href, { method: ctx.method, headers });
}

/**
 * The Streamable HTTP MCP endpoint. Stateless: every POST carries its credential, checked by the
 * public API's own authenticate middleware, and gets a server and transport of its own, so any
 * api process can answer any request and nothing outlives it. Without sessions there is no stream
 * to open with GET nor session to end with DELETE: both answer 405, as the transport spec allows.
 */
export function mcpRouter(deps: PublicApiDeps, routes: readonly RouteDefinition[]): Router<AppState> {
  const tools = bindTools(routes);
  const runner = new RouteToolRunner(deps, tools);
  const router = new Router<AppState>();
  const checkCredential = authenticate(deps.credentials, new KeyUsage(deps.db), deps.now);
  const challenge = bearerChallenge(deps);
  // The challenge wraps the check, so its 401 names the Protected Resource Metadata.
  const authenticated = [challenge, checkCredential, audienceCheck(deps.credentials, deps)] as const;
  // Discovery (RFC 9728) lives with the resource it describes.
  router.use(protectedResourceRouter(deps).routes());

  // A tool call's body is a post's body plus the JSON-RPC envelope: the posts route's limit holds.
  router.post(mcpPath, ...authenticated, jsonBody(bodyLimits.posts), async (ctx) => {
    const server = createMcpServer(tools, runner.executorFor(ctx));
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(webRequest(ctx), { parsedBody: ctx.request.body });
      ctx.status = response.status;
      response.headers.forEach((value, name) => {
        ctx.set(name, value);
      });
      ctx.body = await response.text();
    } finally {
      await server.close();
    }
  });
  const noStream = (ctx: AppContext): void => {
    // The error handler writes the JSON body of a 405 (method_not_allowed).
    ctx.status = 405;
    ctx.set('Allow', 'POST');
  };
  router.get(mcpPath, ...authenticated, noStream);
  router.delete(mcpPath, ...authenticated, noStream);
  return router;
}
