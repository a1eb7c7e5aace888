import { apiKeyRoutes } from './api-keys/routes.ts';
import { groupRoutes } from './groups/routes.ts';
import { integrationRoutes } from './integrations/routes.ts';
import { analyticsRoutes } from './analytics/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { videoRoutes } from './video/routes.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { postRoutes } from './posts/routes.ts';
import type { PublicApiDeps } from './public-api-deps.ts';
import type { RouteDefinition } from './route-definition.ts';
import { uploadRoutes } from './uploads/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';

/** Every public API v1 route: the router serves exactly these and the OpenAPI document lists exactly these. */
export function publicRoutes(deps: PublicApiDeps): RouteDefinition[] {
  return [
    ...integrationRoutes(deps), ...groupRoutes(deps), ...postRoutes(deps), ...uploadRoutes(deps),
    ...notificationRoutes(deps), ...webhookRoutes(deps), ...analyticsRoutes(deps), ...videoRoutes(deps),
    ...apiKeyRoutes(deps), ...eventRoutes(deps),
  ];
}
