import type { RouterContext } from '@koa/router';
import type { AuthenticatedOrganization } from '../shared/domain/organizations/organizations.ts';
import type { ApiScope } from '../shared/domain/api-keys/scopes.ts';
import type { Logger } from '../shared/logging/logger.ts';
import type { RequestLog } from './middleware/request-log.ts';

/** What middleware puts on `ctx.state` for the handlers after it. */
export interface AppState {
  requestId: string;
  /** The request's logger (request id, organization once known), made when first used. */
  readonly log: Logger;
  /** What `log` is made from; `bind` adds fields to every later line. */
  requestLog: RequestLog;
  organization?: AuthenticatedOrganization;
  /** What the credential may do (api/middleware/authorize.ts); set with `organization`. */
  scopes?: readonly ApiScope[];
}

export type AppContext = RouterContext<AppState>;

/** The organization set by the auth middleware; a route mounted without it is a programming error. */
export function currentOrganization(ctx: { state: AppState }): AuthenticatedOrganization {
  const organization = ctx.state.organization;
  if (organization === undefined) throw new Error('route needs the auth middleware in front of it');
  return organization;
}
