import { z } from 'zod';

export const customerFilterQuery = z.object({ customer: z.string().min(1).max(100).optional().describe('Only channels of this customer (see GET /groups)') });

export const integrationSchema = z.object({
  id: z.string(),
  name: z.string(),
  identifier: z.string().describe('Platform identifier, e.g. mastodon'),
  picture: z.string().nullable(),
  disabled: z.boolean(),
  refreshNeeded: z.boolean().describe('The platform rejected the credentials: reconnect the channel'),
  profile: z.string().nullable(),
  customer: z.object({ id: z.string(), name: z.string() }).optional(),
});

export const integrationSettingsResponse = z.object({
  output: z.object({
    rules: z.string(),
    maxLength: z.number().int(),
    settings: z.union([z.record(z.string(), z.unknown()), z.literal('No additional settings required')]).describe('JSON Schema of the post settings'),
    tools: z.array(z.object({
      methodName: z.string(),
      description: z.string(),
      dataSchema: z.array(z.object({ key: z.string(), type: z.string(), description: z.string() })),
    })),
  }),
});

export const triggerBody = z.object({
  methodName: z.string().min(1).max(100).describe('One of the tools listed by integration-settings'),
  data: z.record(z.string(), z.unknown()).optional().describe('The tool\'s input fields'),
});

export const deletedResponse = z.object({ id: z.string(), deleted: z.literal(true) });

export const providerParams = z.object({ provider: z.string().min(1).max(50).describe('Platform identifier') });
