import { z } from 'zod';
import { idParams } from '../common-schemas.ts';
import { defineRoute, type RouteDefinition } from '../route-definition.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import {
  createApiKey, listApiKeys, maxKeysPerOrganization, revokeApiKey,
} from '../../../shared/domain/api-keys/api-keys.ts';
import { apiKeySchema, apiKeyWithSecretSchema, createApiKeyBody } from './schema.ts';

const fullOnly = 'Only a full-scope credential (the organization\'s original key, or a key holding every scope) '
  + 'may manage keys; others are answered 403 insufficient_scope.';

/** The organization's named API keys: several programs, each with its own scopes, expiry and revoke. */
export function apiKeyRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get', path: '/api-keys', tag: 'API Keys', scope: 'full', status: 200, errors: [],
      summary: 'List the organization\'s named API keys (without their secrets), with scopes, expiry and last use',
      description: `${fullOnly} Revoked keys are not listed; expired ones are, with their expiresAt.`,
      response: z.object({ keys: z.array(apiKeySchema) }),
      handle: async ({ organization }) => ({ keys: await listApiKeys(deps.db, organization.id) }),
    }),
    defineRoute({
      method: 'post', path: '/api-keys', tag: 'API Keys', scope: 'full', status: 201,
      errors: ['validation_failed', 'conflict'],
      summary: 'Create a named key with scopes and an optional expiry; the answer shows the key, once',
      description: `${fullOnly} At most ${maxKeysPerOrganization} live keys per organization (409 beyond).`,
      body: createApiKeyBody,
      response: apiKeyWithSecretSchema,
      handle: async ({ organization, body }) => {
        const expiresAt = body.expiresAt === undefined || body.expiresAt === null ? null : new Date(body.expiresAt);
        const { key, secret } = await createApiKey(deps.db, deps.secrets, organization.id, {
          name: body.name, scopes: body.scopes, expiresAt,
        }, deps.now());
        return { ...key, key: secret };
      },
    }),
    defineRoute({
      method: 'delete', path: '/api-keys/:id', tag: 'API Keys', scope: 'full', status: 200, errors: ['not_found'],
      summary: 'Revoke one named key at once; the other keys and the original key keep working',
      description: fullOnly,
      params: idParams,
      response: z.object({ id: z.string(), revoked: z.literal(true) }),
      handle: async ({ organization, params }) => {
        await revokeApiKey(deps.db, deps.caches, organization.id, params.id, deps.now());
        return { id: params.id, revoked: true as const };
      },
    }),
  ];
}
