import type { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { AuthenticatedOrganization } from '../../shared/domain/organizations/organizations.ts';
import type { ErrorCode } from '../../shared/errors.ts';
import type { RouteScope } from '../../shared/domain/api-keys/scopes.ts';

/**
 * Hourly budgets of an organization's requests: `organization` is the spec's 30 an hour across the
 * public API (PUBLIC_API_RATE_LIMIT); `post-validation` is POST /posts/validate's own
 * (PUBLIC_API_VALIDATE_RATE_LIMIT), so checking a post never spends what creating it needs.
 */
export const routeBudgets = ['organization', 'post-validation'] as const;
export type RouteBudget = (typeof routeBudgets)[number];

/** The spec's API tags. */
export type ApiTag =
  | 'Integrations' | 'Posts' | 'Uploads' | 'Notifications' | 'Analytics' | 'Video Generation' | 'Webhooks'
  | 'API Keys';

/** A handler's answer when the status depends on the outcome (201 or 202, say). */
export class Reply {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    this.status = status;
    this.body = body;
  }
}

export interface RouteInput<Params, Query, Body> {
  params: Params;
  query: Query;
  body: Body;
  organization: AuthenticatedOrganization;
  ctx: AppContext;
}

interface RouteFacts {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Koa-style path under /api/public/v1, e.g. `/posts/:id`. */
  path: string;
  tag: ApiTag;
  /**
   * What a credential must hold to call the route (shared/domain/api-keys/scopes.ts): required, so
   * no route is left unguarded; `read` also grants every GET.
   */
  scope: RouteScope;
  summary: string;
  description?: string;
  /** JSON body size cap when the route takes a body; 1 MB unless said otherwise. */
  bodyLimit?: number;
  /** Set on multipart upload routes: the form field that carries the file (the handler streams it). */
  multipartFile?: string;
  /** Status of the usual success answer (a handler may still answer with a Reply). */
  status: 200 | 201 | 202;
  /** Documents the success body; requests are validated, responses are described. */
  response: z.ZodType;
  /** Error codes this route can answer with, beyond those every route has (auth, rate limit). */
  errors: ErrorCode[];
  /** Takes an `Idempotency-Key` header (api/middleware/idempotency.ts): set on routes that create. */
  idempotent?: true;
  /**
   * The hourly budget the route spends (RouteBudget): the organization's public API budget unless
   * the route says otherwise.
   */
  budget?: RouteBudget;
}

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> extends RouteFacts {
  params?: P;
  query?: Q;
  body?: B;
  handle(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<unknown>;
}

/** The uniform view the router and the OpenAPI generator walk: one definition serves both. */
export interface RouteDefinition extends RouteFacts {
  params: z.ZodType | undefined;
  query: z.ZodType | undefined;
  body: z.ZodType | undefined;
  handle(input: RouteInput<unknown, unknown, unknown>): Promise<unknown>;
}

export function defineRoute<P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
  spec: RouteSpec<P, Q, B>,
): RouteDefinition {
  return {
    ...spec,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    // mountRoutes parses params, query and body with the spec's own schemas first, so the casts hold.
    handle: (input) => spec.handle(input as RouteInput<z.output<P>, z.output<Q>, z.output<B>>),
  };
}
