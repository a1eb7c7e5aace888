import { publicApiPrefix } from '../../api/public/openapi/openapi-document.ts';
import type { PublicApiDeps } from '../../api/public/public-api-deps.ts';
import { publicRoutes } from '../../api/public/public-routes.ts';
import type { FuzzFacts } from './fuzz-world.ts';
import { documentBreakingSize } from './hostile-json.ts';
import type { BodySpec, RequestTemplate } from './request-mutations.ts';
import type { Random } from './seeded-random.ts';

export interface FuzzTarget {
  name: string;
  server: 'api' | 'auth';
  /** A valid request; the fuzzer spoils parts of it. */
  template(random: Random): RequestTemplate;
  /** 5xx answers this route gives by design (501: a feature not built yet). */
  designedServerErrors?: readonly number[];
  /** Share of the cases, relative to 1: routes whose bodies reach deep into the domain get more. */
  weight?: number;
  /** The longest generated string: a little past the route's body cap (default 1.1 MB). */
  largestString?: number;
}

interface PublicExample {
  params?: Record<string, string>;
  query?: [string, string][];
  body?: BodySpec;
}

/** Routes of features not built yet: they answer 501 `not_implemented` by design. */
const notBuiltYet = new Set(['GET /analytics/post/:id', 'GET /analytics/:id']);
/** Routes that call a server the request names: one that cannot be reached is 502 `platform_error` by design. */
const namedServer = new Set(['POST /integrations/:id']);
const weights: Record<string, number> = {
  'POST /posts': 6, 'POST /posts/validate': 2, 'POST /integration-trigger/:id': 2, 'POST /upload': 2,
  'POST /upload-from-url': 2,
};

const day = 86_400_000;

/** A valid request per public route, keyed `METHOD /path` as in the route table. */
function publicExamples(facts: FuzzFacts, random: Random): Record<string, PublicExample> {
  const json = (value: unknown): BodySpec => ({ kind: 'json', value });
  // Drafts skip the platform's settings schema, so more of what they carry reaches storage.
  const postType = random.pick(['draft', 'draft', 'draft', 'schedule', 'now', 'queue']);
  return {
    'GET /integrations': { query: [[random.pick(['customer', 'group']), facts.customerId]] },
    'DELETE /integrations/:id': { params: { id: facts.spareChannelId } },
    'GET /integration-settings/:id': { params: { id: facts.channelId } },
    'POST /integration-trigger/:id': {
      params: { id: facts.channelId }, body: json({ methodName: 'instanceLimits', data: {} }),
    },
    'GET /find-slot/:id': { params: { id: facts.channelId } },
    'GET /integrations/:id/schedule': { params: { id: facts.channelId } },
    'GET /integrations/:id/health': { params: { id: facts.channelId } },
    'PUT /integrations/:id/schedule': {
      params: { id: facts.channelId },
      body: json({
        timeZone: 'Europe/Berlin', postingSlots: [{ weekday: 1, time: '09:00' }, { weekday: 5, time: '17:30' }],
      }),
    },
    'GET /is-connected': {},
    'GET /social/:provider': { params: { provider: 'mastodon' } },
    // The site is this api, which answers but not like WordPress: refused (422) without leaving the machine.
    'POST /integrations/:id': {
      params: { id: 'wordpress' },
      body: json({
        siteUrl: `http://127.0.0.1:${String(facts.apiPort)}`, username: 'fuzz', applicationPassword: 'fuzz pass',
      }),
    },
    'GET /groups': {},
    'POST /posts': {
      body: json({
        type: postType, date: new Date(Date.now() + day).toISOString(), shortLink: random.pick([false, true]),
        tags: [{ value: 'fuzz', label: 'Fuzz' }],
        posts: [{
          integration: { id: facts.channelId }, group: 'fuzz-created',
          settings: { visibility: 'unlisted', nested: { list: [1, 'two'] } },
          value: [
            { content: 'fuzzed post', image: [{ id: facts.mediaId, path: facts.mediaPath, alt: 'an image' }] },
            { content: 'a reply', delay: 5, image: [] },
          ],
        }],
      }),
    },
    'POST /posts/validate': {
      body: json({
        type: random.pick(['schedule', 'now', 'queue', 'update']), date: new Date(Date.now() + day).toISOString(),
        posts: [{
          integration: { id: facts.channelId }, settings: { visibility: 'public' },
          value: [{ content: 'checked, not stored', image: [{ id: facts.mediaId, path: facts.mediaPath }] }],
        }],
      }),
    },
    'GET /posts': {
      query: [
        ['startDate', new Date(Date.now() - 30 * day).toISOString()],
        ['endDate', new Date(Date.now() + 30 * day).toISOString()],
        ['customer', facts.customerId],
        ['limit', random.pick(['1', '50', '500'])],
      ],
    },
    'GET /posts/:id': { params: { id: facts.postId } },
    'DELETE /posts/group/:group': {
      params: { group: facts.group }, query: [['onPlatform', random.pick(['true', 'false'])]],
    },
    'DELETE /posts/:id': {
      params: { id: facts.sparePostId },
      query: [[random.pick(['onPlatform', 'series']), random.pick(['true', 'false'])]],
    },
    'PUT /posts/:id/status': { params: { id: facts.postId }, body: json({ status: 'draft' }) },
    'GET /posts/:id/missing': { params: { id: facts.postId } },
    'PUT /posts/:id/release-id': { params: { id: facts.postId }, body: json({ releaseId: 'fuzz-release' }) },
    // Usually nothing to retry (409): what matters is that no input makes it fail otherwise.
    'POST /posts/:id/retry': { params: { id: facts.postId } },
    'POST /upload': {
      body: { kind: 'multipart', field: 'file', fileName: 'fuzz.png', contentType: 'image/png', bytes: facts.png },
    },
    'POST /upload-from-url': { body: json({ url: 'https://media.example.invalid/picture.png' }) },
    'GET /media/:id': { params: { id: facts.mediaId } },
    'GET /media': { query: [['limit', random.pick(['1', '50', '100'])]] },
    // An id no media has: the route's refusal is what is fuzzed, and the media other targets use stays.
    'DELETE /media/:id': { params: { id: facts.sparePostId } },
    'GET /notifications': { query: [['page', '0']] },
    'GET /events': { query: [['after', '000000000000000000000000'], ['limit', '10']] },
    'GET /webhooks': {},
    'POST /webhooks': {
      body: json({ url: 'https://hooks.example.invalid/fuzz', events: ['post.published', 'media.ready'] }),
    },
    'DELETE /webhooks/:id': { params: { id: '000000000000000000000000' } },
    'POST /webhooks/:id/secret': { params: { id: facts.webhookId } },
    'GET /webhooks/:id/deliveries': { params: { id: facts.webhookId }, query: [['limit', '20']] },
    'POST /webhooks/deliveries/:id/resend': { params: { id: facts.webhookDeliveryId } },
    'GET /api-keys': {},
    'POST /api-keys': {
      body: json({ name: 'fuzz key', scopes: ['read', 'posts'], expiresAt: new Date(Date.now() + day).toISOString() }),
    },
    'DELETE /api-keys/:id': { params: { id: '000000000000000000000000' } },
    'GET /analytics/post/:id': { params: { id: facts.postId }, query: [['date', '7']] },
    'GET /analytics/:id': { params: { id: facts.channelId }, query: [['date', '7']] },
    // No text: refused before anything is queued (the fuzz world runs no video worker).
    'POST /generate-video': { body: json({ type: 'slides', output: 'vertical', customParams: {} }) },
    'POST /video/function': { body: json({ functionName: 'voices', identifier: 'slides', params: {} }) },
  };
}

/** Route keys of the public route table, so a route added without an example fails the fuzz test. */
export function publicRouteKeys(): string[] {
  // Handlers are never called while listing routes, so no real dependencies are needed.
  return publicRoutes({} as PublicApiDeps).map((route) => `${route.method.toUpperCase()} ${route.path}`);
}

function publicTargets(facts: FuzzFacts): FuzzTarget[] {
  return publicRouteKeys().map((key) => {
    const [method = 'GET', path = '/'] = key.split(' ');
    return {
      name: `${method} ${publicApiPrefix}${path}`,
      server: 'api' as const,
      designedServerErrors: notBuiltYet.has(key) ? [501] : namedServer.has(key) ? [502] : [],
      weight: weights[key] ?? 1,
      // Only post creation takes bodies large enough to break a MongoDB document.
      largestString: key === 'POST /posts' ? documentBreakingSize : undefined,
      template: (random: Random): RequestTemplate => {
        const example = publicExamples(facts, random)[key];
        if (example === undefined) throw new Error(`no fuzz example for ${key}: add one to test/fuzz/fuzz-targets.ts`);
        return {
          method, path: `${publicApiPrefix}${path}`, params: example.params ?? {}, query: example.query ?? [],
          headers: [['Authorization', facts.apiKey]], body: example.body ?? { kind: 'none' },
        };
      },
    };
  });
}

function oauthTargets(facts: FuzzFacts): FuzzTarget[] {
  const fields: [string, string][] = [
    ['grant_type', 'authorization_code'], ['code', 'not-a-code'], ['client_id', facts.clientId],
    ['client_secret', 'pcs_wrong'],
  ];
  const base = { method: 'POST', path: '/api/oauth/token', params: {}, query: [], headers: [] };
  return [
    {
      name: 'POST /api/oauth/token (JSON)', server: 'api',
      template: () => ({ ...base, body: { kind: 'json', value: Object.fromEntries(fields) } }),
    },
    {
      name: 'POST /api/oauth/token (form)', server: 'api',
      template: () => ({ ...base, body: { kind: 'form', fields } }),
    },
    {
      // RFC 7591 registration; past its per-address budget the fuzzer's cases meet the 429.
      name: 'POST /api/oauth/register', server: 'api',
      template: () => ({
        ...base, path: '/api/oauth/register',
        body: { kind: 'json', value: {
          client_name: 'Fuzz agent', redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'], response_types: ['code'],
        } },
      }),
    },
  ];
}

/** The dashboard's pages and forms, signed in, each form with its valid CSRF token. */
function dashboardTargets(facts: FuzzFacts): FuzzTarget[] {
  const session = (client = facts.dashboard): [string, string][] => [
    ['Cookie', [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ')],
    ['Accept', 'text/html'],
  ];
  const page = (path: string, query: [string, string][] = [], params: Record<string, string> = {}): FuzzTarget => ({
    name: `GET ${path}`, server: 'api',
    template: () => ({ method: 'GET', path, params, query, headers: session(), body: { kind: 'none' } }),
  });
  const form = (
    path: string,
    fields: [string, string][],
    params: Record<string, string> = {},
    client = facts.dashboard,
  ): FuzzTarget => ({
    name: `POST ${path}`, server: 'api',
    template: () => ({
      method: 'POST', path, params, query: [], headers: session(client),
      body: { kind: 'form', fields: [...fields, ['_csrf', client.csrf]] },
    }),
  });
  const authorize: [string, string][] = [
    ['client_id', facts.clientId], ['response_type', 'code'], ['state', 'fuzz-state'],
  ];
  // The composer (api/dashboard/pages/compose-pages.ts): every kind of field it reads.
  const composerFields: [string, string][] = [
    ['part', 'Hello'], ['part', 'a reply'], ['channel', facts.dashboardChannelId], ['when', 'at'],
    ['at', '2031-01-01T10:00'], [`settings[${facts.dashboardChannelId}][visibility]`, 'public'],
    [`settings[${facts.dashboardChannelId}][spoiler_text]`, 'careful'],
    ['media[000000000000000000000000][part]', '0'], ['media[000000000000000000000000][alt]', 'alt'],
  ];
  const appFields: [string, string][] = [
    ['name', 'Fuzz app'], ['description', 'fuzzed'], ['picture_url', 'https://example.com/p.png'],
    ['redirect_url', 'https://example.com/cb'],
  ];
  return [
    page('/'), page('/login', [['return_to', '/settings']]), page('/signup'), page('/settings'), page('/channels'),
    page('/channels/connect/:provider', [], { provider: 'mastodon' }), page('/notifications', [['page', '1']]),
    page('/posts', [['from', '2025-01-01'], ['to', '2025-01-31']]), page('/oauth-app', [['saved', '1']]),
    page('/oauth-app/delete'),
    page('/approved-apps', [['revoked', '1']]), page('/oauth/authorize', authorize),
    page('/webhooks', [['deleted', '1']]), page('/webhooks/:id', [['resent', '1']], { id: facts.dashboardWebhookId }),
    form('/webhooks', [
      ['url', 'https://hooks.example.invalid/form'], ['events', 'post.failed'], ['events', 'media.ready'],
    ]),
    form('/webhooks/:id/rotate', [], { id: facts.dashboardWebhookId }),
    form('/webhooks/:id/delete', [], { id: '000000000000000000000000' }),
    form('/webhooks/deliveries/:id/resend', [], { id: '000000000000000000000000' }),
    form('/login', [['email', 'fuzz@example.com'], ['password', 'not the password'], ['return_to', '/settings']]),
    form('/signup', [
      ['email', 'someone@example.com'], ['password', 'short'], ['organization', 'Org'], ['return_to', '/settings'],
    ]),
    form('/oauth-app', appFields), form('/oauth-app/edit', [['app_id', facts.appId], ...appFields]),
    form('/oauth-app/rotate-secret', [['app_id', facts.appId]]),
    form('/oauth-app/delete', [['app_id', '000000000000000000000000']]),
    form('/approved-apps/:appId/revoke', [], { appId: facts.appId }),
    form('/channels/:id/disconnect', [], { id: '000000000000000000000000' }),
    page('/channels/:id/schedule', [['saved', '1']], { id: '000000000000000000000000' }),
    form('/channels/:id/schedule', [['timeZone', 'Europe/Berlin'], ['slots-1', '09:00, 17:30']], {
      id: '000000000000000000000000',
    }),
    page('/compose'),
    form('/compose', composerFields), form('/compose', [...composerFields, ['intent', 'add-part']]),
    form('/compose/check', composerFields),
    form('/settings/api-key/reveal', []), form('/settings/api-key/rotate', []),
    form('/organizations', [['name', 'Another org']]),
    form('/organizations/switch', [['organization_id', facts.dashboardOrganizationId], ['return_to', '/settings']]),
    form('/oauth/authorize', [...authorize, ['decision', 'deny'], ['organization_id', facts.dashboardOrganizationId]]),
    form('/logout', [], {}, facts.leavingDashboard),
  ];
}

function uploadTargets(facts: FuzzFacts): FuzzTarget[] {
  return [{
    name: 'GET /uploads/:year/:month/:day/:file', server: 'api',
    template: (random) => {
      const [, , year = '', month = '', dayOfMonth = '', file = ''] = facts.uploadPath.split('/');
      const range = random.pick(['bytes=0-3', 'bytes=-2', 'bytes=4-']);
      return {
        method: 'GET', path: '/uploads/:year/:month/:day/:file', params: { year, month, day: dayOfMonth, file },
        query: [], headers: [['Range', range]], body: { kind: 'none' },
      };
    },
  }, {
    name: 'GET /api/health and documents', server: 'api',
    template: (random) => ({
      method: 'GET',
      path: random.pick(['/api/health', `${publicApiPrefix}/openapi.json`, `${publicApiPrefix}/docs`]),
      params: {}, query: [], headers: [], body: { kind: 'none' },
    }),
  }];
}

/** The short links of posts (api/short-links/): no credentials, a code in the path. */
function shortLinkTargets(): FuzzTarget[] {
  return [{
    name: 'GET /l/:code', server: 'api',
    template: (random) => ({
      method: 'GET', path: '/l/:code', params: { code: random.pick(['AAAAAAAAAAAA', 'abcDEF123_-x']) },
      query: [], headers: [['Accept', 'text/html']], body: { kind: 'none' },
    }),
  }];
}

function authServerTargets(): FuzzTarget[] {
  const none: BodySpec = { kind: 'none' };
  // Its bodies are capped at 16 KB: strings far beyond that only measure how fast it refuses them.
  const target = (name: string, template: Omit<RequestTemplate, 'params' | 'headers'>): FuzzTarget => ({
    name, server: 'auth', largestString: 120_000, template: () => ({ ...template, params: {}, headers: [] }),
  });
  return [
    target('auth POST /device/code', {
      method: 'POST', path: '/device/code', query: [], body: { kind: 'json', value: {} },
    }),
    target('auth POST /device/token', {
      method: 'POST', path: '/device/token', query: [],
      body: { kind: 'json', value: { device_code: 'not-a-device-code' } },
    }),
    target('auth POST /device/token (form)', {
      method: 'POST', path: '/device/token', query: [], body: { kind: 'form', fields: [['device_code', 'x']] },
    }),
    target('auth GET /device/verify', {
      method: 'GET', path: '/device/verify', query: [['code', 'ABCD-EFGH']], body: none,
    }),
    target('auth POST /device/verify', {
      method: 'POST', path: '/device/verify', query: [],
      body: { kind: 'form', fields: [['user_code', 'ABCD-EFGH'], ['csrf', 'x']] },
    }),
    target('auth GET /device/callback', {
      method: 'GET', path: '/device/callback', query: [['state', 'unknown'], ['code', 'x']], body: none,
    }),
    target('auth GET /health', { method: 'GET', path: '/health', query: [], body: none }),
  ];
}

/** Every route the fuzzer sends to: public v1 (from the route table), OAuth, dashboard, uploads, auth server. */
export function fuzzTargets(facts: FuzzFacts): FuzzTarget[] {
  return [
    ...publicTargets(facts), ...oauthTargets(facts), ...dashboardTargets(facts), ...uploadTargets(facts),
    ...shortLinkTargets(), ...authServerTargets(),
  ];
}
