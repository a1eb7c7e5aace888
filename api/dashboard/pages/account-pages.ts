import type Router from '@koa/router';
import {
  checkCredentials, minimumPasswordLength, signUp, type StoredUser,
} from '../../../shared/domain/accounts/accounts.ts';
import { DomainError } from '../../../shared/errors.ts';
import { LogEvent } from '../../../shared/logging/events.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { formField } from '../form-body.ts';
import { html, type SafeHtml } from '../html.ts';
import { sentence } from '../html-errors.ts';
import { csrfField, renderPage } from '../layout.ts';
import type { LoginAdmission, LoginThrottle, ThrottledCheck } from '../login-throttle.ts';
import { PasswordWorkBusy, PasswordWorkLimiter } from '../password-work-limiter.ts';
import { defaultLandingPath, loginPath, safeReturnPath } from '../return-target.ts';
import { signIn, signOut } from '../session.ts';
import type { DashboardRouterContext, DashboardState } from '../state.ts';

interface AccountForm {
  email: string;
  organizationName?: string;
  returnPath: string | null;
  problem?: string;
}

function returnField(returnPath: string | null): SafeHtml {
  return returnPath === null ? html`` : html`<input type="hidden" name="return_to" value="${returnPath}">`;
}

function problemBox(problem: string | undefined): SafeHtml {
  return problem === undefined ? html`` : html`<p class="error" role="alert">${problem}</p>`;
}

function loginForm(ctx: DashboardRouterContext, form: AccountForm): SafeHtml {
  return html`${problemBox(form.problem)}
<form method="post" action="/login">
  ${csrfField(ctx)}${returnField(form.returnPath)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${form.email}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <p><button type="submit" class="primary">Log in</button></p>
</form>
<p>No account yet? <a href="${loginPath(form.returnPath, '/signup')}">Sign up</a></p>`;
}

function signUpForm(ctx: DashboardRouterContext, form: AccountForm): SafeHtml {
  return html`${problemBox(form.problem)}
<form method="post" action="/signup">
  ${csrfField(ctx)}${returnField(form.returnPath)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${form.email}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${minimumPasswordLength}" aria-describedby="password-hint">
  <p id="password-hint" class="muted">At least ${minimumPasswordLength} characters.</p>
  <label for="organization">Organization name</label>
  <input id="organization" name="organization" autocomplete="organization" required maxlength="200" value="${form.organizationName ?? ''}">
  <p><button type="submit" class="primary">Sign up</button></p>
</form>
<p>Already have an account? <a href="${loginPath(form.returnPath)}">Log in</a></p>`;
}

/** Seconds a visitor turned away because the server is busy hashing passwords is asked to wait. */
const busyRetrySeconds = 5;

type Refusal = Extract<LoginAdmission, { allowed: false }>;

/** The 429 sentence with the wait in minutes, and the Retry-After header, for a refused admission. */
function throttled(ctx: DashboardRouterContext, admission: Refusal, what: string): string {
  ctx.state.log.warn({ event: LogEvent.clientThrottled, what, address: ctx.ip }, `throttled: ${what}`);
  ctx.set('Retry-After', String(admission.retryAfterSeconds));
  const minutes = Math.ceil(admission.retryAfterSeconds / 60);
  return `Too many ${what}. Wait ${minutes} minute${minutes === 1 ? '' : 's'}, then try again.`;
}

function busy(ctx: DashboardRouterContext): string {
  ctx.state.log.warn({ event: LogEvent.serviceBusy }, 'password hashing at its bound: turned a visitor away');
  ctx.set('Retry-After', String(busyRetrySeconds));
  return `The service is busy. Try again in ${busyRetrySeconds} seconds.`;
}

function queryReturnPath(ctx: DashboardRouterContext): string | null {
  const value = ctx.query.return_to;
  return typeof value === 'string' ? safeReturnPath(value) : null;
}

export function registerAccountPages(router: Router<DashboardState>, deps: DashboardDeps, throttle: LoginThrottle): void {
  // Two scrypt runs at once (64 MiB) and a short queue; a flood beyond that is turned away with 503.
  const passwordWork = new PasswordWorkLimiter({ running: 2, waiting: 16 });

  router.get('/', (ctx) => {
    ctx.redirect(ctx.state.signedIn === undefined ? '/login' : defaultLandingPath);
  });

  // A signed-in visitor of the login or sign-up page goes straight on to where they were heading.
  const guestPage = (path: string, title: string, form: typeof loginForm) => {
    router.get(path, (ctx) => {
      const returnPath = queryReturnPath(ctx);
      if (ctx.state.signedIn !== undefined) {
        ctx.redirect(returnPath ?? defaultLandingPath);
        return;
      }
      renderPage(ctx, { title, body: form(ctx, { email: '', returnPath }) });
    });
  };
  guestPage('/login', 'Log in', loginForm);
  guestPage('/signup', 'Sign up', signUpForm);

  router.post('/login', async (ctx) => {
    const email = formField(ctx, 'email');
    const password = formField(ctx, 'password', { trim: false });
    const returnPath = safeReturnPath(formField(ctx, 'return_to'));
    const again = (status: number, problem: string): void => {
      renderPage(ctx, { status, title: 'Log in', body: loginForm(ctx, { email, returnPath, problem }) });
    };
    if (email === '' || password === '') {
      again(400, 'Enter your email and your password.');
      return;
    }
    // The throttle counts the try before the password is checked and gives it back if it was right.
    let checked: ThrottledCheck<StoredUser>;
    try {
      const check = () => passwordWork.run(() => checkCredentials(deps.db, { email, password }));
      checked = await throttle.checkPassword(email, ctx.ip, check);
    } catch (error) {
      if (!(error instanceof PasswordWorkBusy)) throw error;
      again(503, busy(ctx));
      return;
    }
    if (!checked.allowed) {
      again(429, throttled(ctx, checked, 'login attempts'));
      return;
    }
    const { user } = checked;
    const organizationId = user?.organizationIds[0]?.toString();
    if (user === null || organizationId === undefined) {
      again(400, 'The email or the password is wrong.');
      return;
    }
    await signIn(ctx, deps, user, organizationId);
    ctx.redirect(returnPath ?? defaultLandingPath);
  });


  router.post('/signup', async (ctx) => {
    const form = { email: formField(ctx, 'email'), organizationName: formField(ctx, 'organization'), returnPath: safeReturnPath(formField(ctx, 'return_to')) };
    const again = (status: number, problem: string): void => {
      renderPage(ctx, { status, title: 'Sign up', body: signUpForm(ctx, { ...form, problem }) });
    };
    // Counted before anything is hashed: every sign-up, good or bad, costs the address one.
    const admission = await throttle.admitSignUp(ctx.ip);
    if (!admission.allowed) {
      again(429, throttled(ctx, admission, 'sign-ups from your address'));
      return;
    }
    const password = formField(ctx, 'password', { trim: false });
    try {
      const account = { email: form.email, password, organizationName: form.organizationName };
      const { user, organizationId } = await passwordWork.run(() => signUp(deps.db, deps.secrets, account));
      await signIn(ctx, deps, user, organizationId);
      ctx.redirect(form.returnPath ?? defaultLandingPath);
    } catch (error) {
      if (error instanceof PasswordWorkBusy) {
        again(503, busy(ctx));
        return;
      }
      if (!(error instanceof DomainError) || error.status >= 500) throw error;
      again(error.status, sentence(error.message));
    }
  });

  router.get('/logout', (ctx) => {
    if (ctx.state.signedIn === undefined) {
      ctx.redirect('/login');
      return;
    }
    renderPage(ctx, { title: 'Log out', body: html`<form method="post" action="/logout">${csrfField(ctx)}<button type="submit" class="primary">Log out of SPS</button></form>` });
  });

  router.post('/logout', async (ctx) => {
    await signOut(ctx, deps);
    ctx.redirect('/login');
  });
}
