import { z } from 'zod';
import { maxKeyNameLength } from '../../../shared/domain/api-keys/api-keys.ts';
import { apiScopes, scopeDescriptions } from '../../../shared/domain/api-keys/scopes.ts';

const scopeList = apiScopes.map((scope) => `${scope} (${scopeDescriptions[scope]})`).join('; ');

export const createApiKeyBody = z.object({
  name: z.string().trim().min(1).max(maxKeyNameLength).describe('What the key is for, e.g. "scheduler on host A"'),
  scopes: z.array(z.enum(apiScopes)).min(1).max(apiScopes.length).describe(`What the key may do: ${scopeList}`),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional()
    .describe('When the key stops working (ISO 8601, in the future); absent or null: never'),
});

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(apiScopes)),
  start: z.string().describe('The key\'s first characters, to tell keys apart'),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime().nullable(),
  lastUsedAt: z.iso.datetime().nullable().describe('Precise to a minute; null until first used'),
});

export const apiKeyWithSecretSchema = apiKeySchema.extend({
  key: z.string().describe('spk_...: the key itself, shown only in this answer (stored as a digest)'),
});
