import { z } from 'zod';
import { maxEndpointUrlLength } from '../../../shared/domain/webhooks/endpoint-url.ts';
import { deliveryLogLimits } from '../../../shared/domain/webhooks/webhook-deliveries.ts';
import { webhookDeliveryStatuses } from '../../../shared/db/models/webhook-delivery.ts';
import { webhookEventDescriptions, webhookEventTypes } from '../../../shared/domain/webhooks/webhook-events.ts';

const eventList = webhookEventTypes.map((type) => `${type} (${webhookEventDescriptions[type]})`).join('; ');

export const createWebhookBody = z.object({
  url: z.string().min(1).max(maxEndpointUrlLength)
    .describe('Where deliveries are POSTed: https, without credentials or fragment'),
  events: z.array(z.enum(webhookEventTypes)).min(1).max(50).describe(`Events to receive: ${eventList}`),
});

export const webhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(webhookEventTypes)),
  createdAt: z.iso.datetime(),
});

export const webhookWithSecretSchema = webhookEndpointSchema.extend({
  secret: z.string().describe('whsec_...: shown only in this answer; deliveries are signed with it'),
});

export const deliveriesQuery = z.object({
  limit: z
    .string({ error: 'limit must be given once, as a whole number' })
    .regex(/^\d{1,3}$/, `limit must be a whole number from 1 to ${deliveryLogLimits.max}`)
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= deliveryLogLimits.max, `limit must be 1 to ${deliveryLogLimits.max}`)
    .optional()
    .transform((limit) => limit ?? deliveryLogLimits.default),
});

export const deliverySchema = z.object({
  id: z.string().describe('Sent as SPS-Delivery; the same on every retry of this delivery'),
  endpointId: z.string(),
  event: z.enum(webhookEventTypes),
  eventId: z.string().describe('The body\'s id: the same for every endpoint and every resend of the event'),
  status: z.enum(webhookDeliveryStatuses),
  nextAttemptAt: z.iso.datetime().nullable(),
  attempts: z.array(z.object({
    at: z.iso.datetime(),
    statusCode: z.number().int().nullable().describe('null when the endpoint gave no answer'),
    durationMs: z.number().int().nullable(),
    error: z.string().nullable(),
    response: z.string().nullable().describe('The first 500 characters of the answer'),
  })),
  resentFrom: z.string().nullable(),
  createdAt: z.iso.datetime(),
});
