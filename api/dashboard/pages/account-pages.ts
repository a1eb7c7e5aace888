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
import { words, type PlainKey } from '../i18n/translate.ts';
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
  const t = words(ctx);
  const signUpLink = html`<a href="${loginPath(form.returnPath, '/signup')}">${t('account.signUp')}</a>`;
  return html`${problemBox(form.problem)}
<form method="post" action="/login">
  ${csrfField(ctx)}${returnField(form.returnPath)}
  <label for="email">${t('account.email')}</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${form.email}">
  <label for="password">${t('account.password')}</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <p><button type="submit" class="primary">${t('account.logIn')}</button></p>
</form>
<p>${t.markup('account.noAccountYet', { signUp: signUpLink })}</p>`;
}

function signUpForm(ctx: DashboardRouterContext, form: AccountForm): SafeHtml {
  const t = words(ctx);
  const logInLink = html`<a href="${loginPath(form.returnPath)}">${t('account.logIn')}</a>`;
  return html`${problemBox(form.problem)}
<form method="post" action="/signup">
  ${csrfField(ctx)}${returnField(form.returnPath)}
  <label for="email">${t('account.email')}</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${form.email}">
  <label for="password">${t('account.password')}</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${minimumPasswordLength}" aria-describedby="password-hint">
  <p id="password-hint" class="muted">${t('account.passwordHint', { minimum: minimumPasswordLength })}</p>
  <label for="organization">${t('account.organizationName')}</label>
  <input id="organization" name="organization" autocomplete="organization" required maxlength="200" value="${form.organizationName ?? ''}">
  <p><button type="submit" class="primary">${t('account.signUp')}</button></p>
</form>
<p>${t.markup('account.haveAccount', { logIn: logInLink })}</p>`;
}

/** Seconds a visitor turned away because the server is busy hashing passwords is asked to wait. */
const busyRetrySeconds = 5;

type Refusal = Extract<LoginAdmission, { allowed: false }>;

/** What a throttle refused: the page says it in the reader's language, the log in English. */
type Refused = 'logins' | 'signUps';

const refusalMessages: Record<Refused, 'account.tooManyLogins' | 'account.tooManySignUps'> = {
  logins: 'account.tooManyLogins',
  signUps: 'account.tooManySignUps',
};

function logThrottled(ctx: DashboardRouterContext, refused: Refused): void {
  const { log } = ctx.state;
  const event = LogEvent.clientThrottled;
  if (refused === 'logins') log.warn({ event, what: 'login attempts', address: ctx.ip }, 'throttled: login attempts');
  else {
    log.warn({ event, what: 'sign-ups from your address', address: ctx.ip }, 'throttled: sign-ups from your address');
  }
}

/** The 429 sentence with the wait in minutes, and the Retry-After header, for a refused admission. */
function throttled(ctx: DashboardRouterContext, admission: Refusal, refused: Refused): string {
  logThrottled(ctx, refused);
  ctx.set('Retry-After', String(admission.retryAfterSeconds));
  return words(ctx).count(refusalMessages[refused], Math.ceil(admission.retryAfterSeconds / 60));
}

function busy(ctx: DashboardRouterContext): string {
  ctx.state.log.warn({ event: LogEvent.serviceBusy }, 'password hashing at its bound: turned a visitor away');
  ctx.set('Retry-After', String(busyRetrySeconds));
  return words(ctx)('account.busy', { seconds: busyRetrySeconds });
}

function queryReturnPath(ctx: DashboardRouterContext): string | null {
  const value = ctx.query.return_to;
  return typeof value === 'string' ? safeReturnPath(value) : null;
}

export function registerAccountPages(router: Router<DashboardState>, deps: DashboardDeps, throttle: LoginThrottle): void {
  // Two scrypt runs at once (64 MiB) and a short queue; a flood beyond that is turned away with 503.
  const passwordWork = new PasswordWorkLimiter({ running: 2, waiting: 16 });
  const passwordCost = { passwordHashLogN: deps.passwordHashLogN };

  router.get('/', (ctx) => {
    ctx.redirect(ctx.state.signedIn === undefined ? '/login' : defaultLandingPath);
  });

  // A signed-in visitor of the login or sign-up page goes straight on to where they were heading.
  const guestPage = (path: string, title: PlainKey, form: typeof loginForm) => {
    router.get(path, (ctx) => {
      const returnPath = queryReturnPath(ctx);
      if (ctx.state.signedIn !== undefined) {
        ctx.redirect(returnPath ?? defaultLandingPath);
        return;
      }
      renderPage(ctx, { title: words(ctx)(title), body: form(ctx, { email: '', returnPath }) });
    });
  };
  guestPage('/login', 'account.logIn', loginForm);
  guestPage('/signup', 'account.signUp', signUpForm);

  router.post('/login', async (ctx) => {
    const email = formField(ctx, 'email');
    const password = formField(ctx, 'password', { trim: false });
    const returnPath = safeReturnPath(formField(ctx, 'return_to'));
    const t = words(ctx);
    const again = (status: number, problem: string): void => {
      renderPage(ctx, { status, title: t('account.logIn'), body: loginForm(ctx, { email, returnPath, problem }) });
    };
    if (email === '' || password === '') {
      again(400, t('account.enterCredentials'));
      return;
    }
    // The throttle counts the try before the password is checked and gives it back if it was right.
    let checked: ThrottledCheck<StoredUser>;
    try {
      const check = () => passwordWork.run(() => checkCredentials(deps.db, { email, password }, passwordCost));
      checked = await throttle.checkPassword(email, ctx.ip, check);
    } catch (error) {
      if (!(error instanceof PasswordWorkBusy)) throw error;
      again(503, busy(ctx));
      return;
    }
    if (!checked.allowed) {
      again(429, throttled(ctx, checked, 'logins'));
      return;
    }
    const { user } = checked;
    const organizationId = user?.organizationIds[0]?.toString();
    if (user === null || organizationId === undefined) {
      again(400, t('account.wrongCredentials'));
      return;
    }
    await signIn(ctx, deps, user, organizationId);
    ctx.redirect(returnPath ?? defaultLandingPath);
  });


  router.post('/signup', async (ctx) => {
    const form = { email: formField(ctx, 'email'), organizationName: formField(ctx, 'organization'), returnPath: safeReturnPath(formField(ctx, 'return_to')) };
    const again = (status: number, problem: string): void => {
      renderPage(ctx, { status, title: words(ctx)('account.signUp'), body: signUpForm(ctx, { ...form, problem }) });
    };
    // Counted before anything is hashed: every sign-up, good or bad, costs the address one.
    const admission = await throttle.admitSignUp(ctx.ip);
    if (!admission.allowed) {
      again(429, throttled(ctx, admission, 'signUps'));
      return;
    }
    const password = formField(ctx, 'password', { trim: false });
    try {
      const account = { email: form.email, password, organizationName: form.organizationName };
      const signingUp = () => signUp(deps.db, deps.secrets, account, passwordCost);
      const { user, organizationId } = await passwordWork.run(signingUp);
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
    const t = words(ctx);
    const button = html`<button type="submit" class="primary">${t('account.logOutOfSps')}</button>`;
    const body = html`<form method="post" action="/logout">${csrfField(ctx)}${button}</form>`;
    renderPage(ctx, { title: t('layout.logOut'), body });
  });

  router.post('/logout', async (ctx) => {
    await signOut(ctx, deps);
    ctx.redirect('/login');
  });
}
