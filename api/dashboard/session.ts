import type { Context, Middleware } from 'koa';
import type { StoredUser } from '../../shared/domain/accounts/accounts.ts';
import { userOrganizations } from '../../shared/domain/accounts/accounts.ts';
import { isOperator } from '../../shared/domain/accounts/operators.ts';
import { endSession, findSession, sessionLifetimeMs, startSession } from '../../shared/domain/accounts/sessions.ts';
import { readDashboardCookie, sessionCookieName, setDashboardCookie } from './cookies.ts';
import { issueCsrfSeed } from './csrf.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { loginPath, safeReturnPath } from './return-target.ts';
import type { DashboardState } from './state.ts';

type DashboardKoaContext = Context & { state: DashboardState };

/** Loads the logged-in user, if the signed session cookie names a live session record. */
export function loadSession(deps: DashboardDeps): Middleware<DashboardState> {
  return async (ctx, next) => {
    const token = readDashboardCookie(ctx, sessionCookieName);
    const active = token === null ? null : await findSession(deps.db, deps.secrets, token, deps.now());
    if (active !== null) {
      const organizations = await userOrganizations(deps.db, active.user);
      // A session whose organization the user has left falls back to one they still belong to.
      const organization = organizations.find((candidate) => candidate.id === active.session.organizationId.toString()) ?? organizations[0];
      if (organization !== undefined) {
        const operator = isOperator(active.user);
        const { user, session } = active;
        ctx.state.signedIn = { sessionId: session._id, user, organizations, organization, operator };
      }
    }
    await next();
  };
}

/** Pages behind a login: a logged-out visitor is sent to log in and brought back afterwards. */
export function requireSignIn(): Middleware<DashboardState> {
  return async (ctx, next) => {
    if (ctx.state.signedIn !== undefined) {
      await next();
      return;
    }
    ctx.redirect(loginPath(ctx.method === 'GET' ? safeReturnPath(ctx.originalUrl) : null));
  };
}

/** Starts a session: a new random token in the cookie, a fresh CSRF seed for the new login. */
export async function signIn(ctx: DashboardKoaContext, deps: DashboardDeps, user: StoredUser, organizationId: string): Promise<void> {
  const token = await startSession(deps.db, deps.secrets, user, organizationId, deps.now());
  setDashboardCookie(ctx, sessionCookieName, token, sessionLifetimeMs);
  issueCsrfSeed(ctx, deps.secrets);
}

/** Deletes the session record, so the cookie is dead even if a copy of it survives somewhere. */
export async function signOut(ctx: DashboardKoaContext, deps: DashboardDeps): Promise<void> {
  const token = readDashboardCookie(ctx, sessionCookieName);
  if (token !== null) await endSession(deps.db, deps.secrets, token);
  setDashboardCookie(ctx, sessionCookieName, null);
  issueCsrfSeed(ctx, deps.secrets);
}
