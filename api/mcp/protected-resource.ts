import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { AppState } from '../context.ts';
import type { CredentialLookup } from '../caches/credential-lookup.ts';
import { credentialFrom } from '../middleware/authenticate.ts';
import { DomainError } from '../../shared/errors.ts';
import { supportedScopes } from '../../shared/domain/oauth/scope.ts';

interface ServerUrls {
  /** The issuer of SPS's authorization server (api/oauth/metadata-route.ts). */
  frontendUrl: string;
  /** Ends in /api; /mcp sits beside it at the host root (mcp-router.ts). */
  backendUrl: string;
}

const wellKnownPath = '/.well-known/oauth-protected-resource';

/** The MCP endpoint's own address, from the configured backend (not the Host a request came in on). */
export function mcpResourceUrl(urls: ServerUrls): string {
  return `${urls.backendUrl.replace(/\/api\/?$/, '')}/mcp`;
}

/** Where the Protected Resource Metadata is served, at the resource's origin (RFC 9728 §3). */
export function resourceMetadataUrl(urls: ServerUrls): string {
  return `${new URL(mcpResourceUrl(urls)).origin}${wellKnownPath}`;
}

/** RFC 9728 §2: what an MCP client needs to find the authorization server that issues tokens for /mcp. */
export function protectedResourceMetadata(urls: ServerUrls): Record<string, unknown> {
  return {
    resource: mcpResourceUrl(urls),
    authorization_servers: [urls.frontendUrl],
    scopes_supported: supportedScopes,
    // Only the Authorization header: a token in a body or query string ends up in logs.
    bearer_methods_supported: ['header'],
    resource_name: 'SPS MCP server',
  };
}

/**
 * GET /.well-known/oauth-protected-resource, and the RFC 9728 §3.1 form with the resource's path
 * (/mcp) appended, which is where a client that knows only the /mcp URL looks first.
 */
export function protectedResourceRouter(urls: ServerUrls): Router<AppState> {
  const router = new Router<AppState>();
  const document = protectedResourceMetadata(urls);
  const resourcePath = new URL(mcpResourceUrl(urls)).pathname;
  for (const path of [wellKnownPath, `${wellKnownPath}${resourcePath}`]) {
    router.get(path, (ctx) => {
      // Public and the same for everyone, like the authorization server's metadata.
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = document;
    });
  }
  return router;
}

/**
 * RFC 9728 §5.1 and RFC 6750 §3: a 401 from /mcp names the metadata, so an MCP client given only
 * the server URL can discover where to get a token. A bad token adds `error="invalid_token"`; a
 * missing one carries no error code (RFC 6750 §3.1). The body stays the public API's error shape.
 */
export function bearerChallenge(urls: ServerUrls): Middleware<AppState> {
  const metadata = resourceMetadataUrl(urls);
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof DomainError && error.code === 'missing_credentials') {
        ctx.set('WWW-Authenticate', `Bearer resource_metadata="${metadata}"`);
      } else if (error instanceof DomainError && error.code === 'invalid_credentials') {
        const description = 'the access token is not valid, was revoked, or was issued for another resource';
        ctx.set('WWW-Authenticate',
          `Bearer error="invalid_token", error_description="${description}", resource_metadata="${metadata}"`);
      }
      throw error;
    }
  };
}

/**
 * RFC 8707 audience binding, after authenticate: an access token issued for another resource
 * (its authorization request named a `resource` that is not /mcp) is refused here, so a token
 * meant for some other server cannot be replayed at this one. Tokens that named no resource (apps
 * of the public API) and API keys act as they do on the public API. The look-up is the one
 * authenticate just made, answered from the credential cache.
 */
export function audienceCheck(credentials: CredentialLookup, urls: ServerUrls): Middleware<AppState> {
  const resource = mcpResourceUrl(urls);
  return async (ctx, next) => {
    const found = await credentials.credentialFor(credentialFrom(ctx.get('Authorization')));
    const audience = found?.resource ?? null;
    if (audience !== null && audience !== resource) {
      ctx.state.log.info({ audience }, 'refused an access token issued for another resource');
      throw new DomainError('invalid_credentials', `the access token was issued for another resource, not ${resource}`);
    }
    await next();
  };
}
