import { z } from 'zod';
import { startWordpress, type RunningWordpress, type WordpressSiteOptions } from './wordpress-server.ts';

/** A user of the test site with an application password made for SPS, as a user makes one in wp-admin. */
export interface WordpressUser {
  id: number;
  login: string;
  name: string;
  /** Shown the way WordPress shows it once: four-character groups separated by spaces. */
  applicationPassword: string;
}

const createdUser = z.object({ id: z.number().int(), applicationPassword: z.string() });

/** A post as the REST API shows it to an administrator (context=edit). */
export const sitePost = z.looseObject({
  id: z.number().int(),
  type: z.string(),
  status: z.string(),
  slug: z.string(),
  link: z.string(),
  author: z.number().int(),
  title: z.object({ raw: z.string() }),
  content: z.object({ raw: z.string() }),
  excerpt: z.object({ raw: z.string() }),
  featured_media: z.number().int(),
  categories: z.array(z.number().int()).optional(),
  tags: z.array(z.number().int()).optional(),
  meta: z.unknown(),
});

export type SitePost = z.infer<typeof sitePost>;

export interface TestWordpress {
  url: string;
  startedInMs: number;
  /** The site's wp-content folder (uploads are under uploads/). */
  contentDir: string;
  createUser(role: 'administrator' | 'editor' | 'author' | 'contributor', login: string): Promise<WordpressUser>;
  /** A REST GET as the administrator, through ?rest_route= (which answers whatever the permalinks). */
  get(route: string, query?: Record<string, string>): Promise<unknown>;
  /** A REST POST as the administrator. */
  post(route: string, body: unknown): Promise<unknown>;
  /** Users → Profile → Application Passwords → Revoke all, done by the administrator. */
  revokeApplicationPasswords(user: WordpressUser): Promise<void>;
  /** Every entry of the post type (REST base) in any status, newest first. */
  entries(restBase?: string): Promise<SitePost[]>;
  setPrettyPermalinks(pretty: boolean): Promise<void>;
  close(): Promise<void>;
}

const log = (line: string): void => { process.stderr.write(`[wordpress] ${line}\n`); };

/** A real WordPress site of one test file (test/support/wordpress-server.ts). */
export async function startTestWordpress(options: WordpressSiteOptions = {}): Promise<TestWordpress> {
  const site: RunningWordpress = await startWordpress(options, log);
  const admin = `Basic ${Buffer.from(`admin:${site.adminPassword}`).toString('base64')}`;

  async function call(
    method: 'GET' | 'POST' | 'DELETE',
    route: string,
    query: Record<string, string>,
    body?: unknown,
  ): Promise<unknown> {
    const search = new URLSearchParams({ rest_route: route, ...query });
    const response = await fetch(`${site.url}/?${search.toString()}`, {
      method,
      headers: { authorization: admin, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${route} answered ${String(response.status)}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as unknown;
  }

  return {
    url: site.url,
    startedInMs: site.startedInMs,
    contentDir: site.contentDir,
    async createUser(role, login) {
      const name = `${login[0]?.toUpperCase() ?? ''}${login.slice(1)} Tester`;
      const made = createdUser.parse(await site.chore('user', { login, role, name, email: `${login}@example.com` }));
      return { id: made.id, login, name, applicationPassword: made.applicationPassword };
    },
    get: (route, query = {}) => call('GET', route, query),
    post: (route, body) => call('POST', route, {}, body),
    async revokeApplicationPasswords(user) {
      await call('DELETE', `/wp/v2/users/${String(user.id)}/application-passwords`, {});
    },
    async entries(restBase = 'posts') {
      const query = { context: 'edit', status: 'publish,future,draft,pending,private', per_page: '100' };
      return z.array(sitePost).parse(await call('GET', `/wp/v2/${restBase}`, query));
    },
    async setPrettyPermalinks(pretty) {
      await site.chore('permalinks', { pretty });
    },
    close: () => site.stop(),
  };
}
