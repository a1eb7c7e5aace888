import Router from '@koa/router';
import type { AppState } from '../context.ts';
import { pkceMethods } from '../../shared/domain/oauth/pkce.ts';
import { supportedScopes } from '../../shared/domain/oauth/scope.ts';
import { trailingSlashes } from '../../shared/net/trailing-slashes.ts';

interface ServerUrls {
  /** Where the consent page is served: the issuer. */
  frontendUrl: string;
  /** Ends in /api. */
  backendUrl: string;
}

/** RFC 8414's document: what a client library needs to find our endpoints and how to talk to them. */
export function authorizationServerMetadata(urls: ServerUrls): Record<string, unknown> {
  return {
    // The consent page's site is the issuer: the authorization endpoint lives there.
    issuer: urls.frontendUrl,
    authorization_endpoint: `${urls.frontendUrl}/oauth/authorize`,
    token_endpoint: `${urls.backendUrl}/oauth/token`,
    // RFC 7591: MCP clients register themselves here (registration-route.ts).
    registration_endpoint: `${urls.backendUrl}/oauth/register`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code'],
    // "none": public clients (dynamically registered), who prove themselves with PKCE.
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: [...pkceMethods],
    scopes_supported: supportedScopes,
  };
}

/**
 * GET /.well-known/oauth-authorization-server. RFC 8414 §3 puts it at the issuer's host root,
 * with the issuer's path (if it has one) after the well-known name; both places are served.
 */
export function metadataRouter(urls: ServerUrls): Router<AppState> {
  const router = new Router<AppState>();
  const document = authorizationServerMetadata(urls);
  const issuerPath = new URL(urls.frontendUrl).pathname.replace(trailingSlashes, '');
  const paths = ['/.well-known/oauth-authorization-server'];
  if (issuerPath !== '') paths.push(`/.well-known/oauth-authorization-server${issuerPath}`);
  for (const path of paths) {
    router.get(path, (ctx) => {
      // Public and the same for everyone: browser-based clients may read it, caches may keep it a while.
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = document;
    });
  }
  return router;
}
