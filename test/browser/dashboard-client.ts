/** One answer of the dashboard, redirects not followed. */
export interface PageAnswer {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

/** The `_csrf` value of the first form on a page. */
export function csrfFrom(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (match?.[1] === undefined) throw new Error('the page has no CSRF field');
  return match[1];
}

/**
 * A browser stand-in for HTTP-level tests: keeps cookies, remembers the CSRF token of the last
 * page, never follows redirects (tests assert on them), and can pose as a client address.
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  readonly #baseUrl: string;
  readonly #address: string | null;
  #csrf: string | null = null;

  constructor(baseUrl: string, options: { address?: string } = {}) {
    this.#baseUrl = baseUrl;
    this.#address = options.address ?? null;
  }

  get csrf(): string {
    if (this.#csrf === null) throw new Error('no page with a form was loaded yet');
    return this.#csrf;
  }

  async get(path: string): Promise<PageAnswer> {
    return this.#send(path, { method: 'GET' });
  }

  /**
   * Posts a form; `_csrf` is the last page's token unless `csrf` says otherwise (null: none). A
   * list sends the field once per value, as checkboxes do.
   */
  async post(
    path: string,
    fields: Record<string, string | readonly string[]>,
    options: { csrf?: string | null } = {},
  ): Promise<PageAnswer> {
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) {
      for (const one of typeof value === 'string' ? [value] : value) form.append(name, one);
    }
    if (csrf !== null) form.set('_csrf', csrf);
    return this.#send(path, { method: 'POST', body: form.toString(), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  }

  async #send(path: string, init: { method: string; body?: string; headers?: Record<string, string> }): Promise<PageAnswer> {
    const headers: Record<string, string> = { Accept: 'text/html', ...init.headers };
    if (this.cookies.size > 0) headers.Cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (this.#address !== null) headers['X-Forwarded-For'] = this.#address;
    const response = await fetch(`${this.#baseUrl}${path}`, { method: init.method, headers, body: init.body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.#remember(line);
    const html = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token !== undefined) this.#csrf = token;
    return { status: response.status, location: response.headers.get('location'), html, headers: response.headers };
  }

  #remember(setCookie: string): void {
    const [pair = ''] = setCookie.split(';');
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator).trim();
    const value = pair.slice(separator + 1).trim();
    if (value === '' || /expires=Thu, 01 Jan 1970/i.test(setCookie)) this.cookies.delete(name);
    else this.cookies.set(name, value);
  }

  /** Signs up (taking the signup page's CSRF token) and returns the answer to the form. */
  async signUp(account: { email: string; password: string; organization: string; returnTo?: string }): Promise<PageAnswer> {
    await this.get('/signup');
    return this.post('/signup', { email: account.email, password: account.password, organization: account.organization, ...(account.returnTo === undefined ? {} : { return_to: account.returnTo }) });
  }

  async logIn(account: { email: string; password: string; returnTo?: string }): Promise<PageAnswer> {
    await this.get('/login');
    return this.post('/login', { email: account.email, password: account.password, ...(account.returnTo === undefined ? {} : { return_to: account.returnTo }) });
  }
}

let accountCounter = 0;

/** A fresh email and a valid password, unique within the run. */
export function newAccount(label: string): { email: string; password: string; organization: string } {
  accountCounter += 1;
  const id = `${label}-${accountCounter}-${Math.random().toString(36).slice(2, 8)}`;
  return { email: `${id}@example.test`, password: 'correct horse battery', organization: `Org ${id}` };
}
