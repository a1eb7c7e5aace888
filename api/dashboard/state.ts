import type { ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { Types } from 'mongoose';
import type { AppState } from '../context.ts';
import type { StoredUser } from '../../shared/domain/accounts/accounts.ts';

export interface OrganizationChoice {
  id: string;
  name: string;
}

/** A logged-in user, loaded from the session cookie by api/dashboard/session.ts. */
export interface SignedIn {
  sessionId: Types.ObjectId;
  user: StoredUser;
  organizations: OrganizationChoice[];
  /** The organization the user is working in (one of `organizations`). */
  organization: OrganizationChoice;
  /** Runs the deployment: sees the queue board (api/operators/queue-board.ts). */
  operator: boolean;
}

/**
 * The dashboard's additions to ctx.state. Optional, so the dashboard's middleware fits the app's
 * state type; the accessors below fail loudly when a route lacks the middleware that sets them.
 */
export interface DashboardState extends AppState {
  csrfToken?: string;
  signedIn?: SignedIn;
}

export type DashboardContext = ParameterizedContext<DashboardState>;
export type DashboardRouterContext = RouterContext<DashboardState>;

export function csrfToken(ctx: { state: DashboardState }): string {
  const token = ctx.state.csrfToken;
  if (token === undefined) throw new Error('page needs the CSRF middleware in front of it');
  return token;
}

export function signedIn(ctx: { state: DashboardState }): SignedIn {
  const session = ctx.state.signedIn;
  if (session === undefined) throw new Error('page needs requireSignIn in front of it');
  return session;
}
