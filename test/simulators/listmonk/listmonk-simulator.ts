import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import {
  authenticate, forbidden, hasPermission, presentProfile, type SimulatedListmonkApiUser,
} from './listmonk-auth.ts';
import { createCampaign, findCampaign, presentCampaign, queryCampaigns, updateStatus } from './listmonk-campaigns.ts';
import { queryMedia, uploadMedia } from './listmonk-media.ts';
import { listmonkOperations } from './listmonk-operations.ts';
import {
  defaultLists, defaultTemplates, ListmonkState, type SimulatedList, type SimulatedTemplate,
} from './listmonk-state.ts';

export type { SimulatedListmonkApiUser } from './listmonk-auth.ts';

/**
 * A local stand-in for a listmonk instance (v5, or before v4 with `legacy`): the connect routes
 * (GET /api/profile, GET /api/settings), campaigns (listmonk-campaigns.ts), the media store
 * (listmonk-media.ts), lists and templates, behind listmonk's authentication and per-route
 * permissions (listmonk-auth.ts). Errors are `{message}`, answers `{data}`. listmonk has no rate
 * limiter; `failNext` plays a proxy in front of it (a 429 with Retry-After) or a connection that
 * breaks after listmonk acted (`lose`). Requests and answers are held to listmonk's description
 * (operations.json, listmonk-operations.ts); a request off it is refused 400 `{message}`.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 8.
 */
export interface ListmonkSimulatorOptions {
  users: SimulatedListmonkApiUser[];
  siteName: string;
  logoUrl?: string;
  /** Before v4: no API users (the admin's Basic auth, 401 when wrong), so no /api/profile. */
  legacy?: boolean;
  lists?: SimulatedList[];
  templates?: SimulatedTemplate[];
}

/** An injected answer, or `lose`: listmonk acts, then the connection breaks before its answer. */
export type ListmonkFault = SimulatedAnswer | 'lose';

export interface RunningListmonkSimulator extends RunningSimulator {
  /** The instance's root as a user types it. */
  rootUrl: string;
  state: ListmonkState;
  /** The next requests to `METHOD /path` (ids as `:id`) meet these faults, in order. */
  failNext(route: string, ...faults: ListmonkFault[]): void;
  requestsTo(route: string): SimulatedRequest[];
}

const notFound: SimulatedAnswer = { status: 404, body: { message: 'Not Found' } };

/** The route with numeric ids as `:id`, as faults and request filters name it. */
const routeOf = (request: SimulatedRequest): string =>
  `${request.method} ${request.path.replace(/\/\d+(?=\/|$)/g, '/:id')}`;

/** The permission each route needs (cmd/handlers.go); the connect routes need none but settings:get. */
const permissions: Record<string, string> = {
  'GET /api/settings': 'settings:get',
  'GET /api/campaigns': 'campaigns:get',
  'GET /api/campaigns/:id': 'campaigns:get',
  'POST /api/campaigns': 'campaigns:manage',
  'PUT /api/campaigns/:id/status': 'campaigns:send',
  'GET /api/media': 'media:get',
  'POST /api/media': 'media:manage',
  'GET /api/lists': 'lists:get_all',
  'GET /api/templates': 'templates:get',
};

export async function startListmonkSimulator(options: ListmonkSimulatorOptions): Promise<RunningListmonkSimulator> {
  let rootUrl = '';
  const legacy = options.legacy === true;
  const state = new ListmonkState(options.lists ?? defaultLists(), options.templates ?? defaultTemplates());
  const faults = new Map<string, ListmonkFault[]>();

  function settings(): SimulatedAnswer {
    return {
      status: 200,
      body: {
        data: {
          ...(legacy ? {} : { 'app.site_name': options.siteName }),
          'app.root_url': rootUrl,
          'app.logo_url': options.logoUrl ?? '',
          'app.favicon_url': '',
          'app.from_email': 'listmonk <noreply@listmonk.yoursite.com>',
        },
      },
    };
  }

  function lists(request: SimulatedRequest): SimulatedAnswer {
    const status = request.query.get('status');
    const shown = state.lists.filter((list) => status === null || list.status === status);
    const results = shown.map((list) => ({
      id: list.id, uuid: `list-${String(list.id)}`, name: list.name, type: list.type, optin: list.optin,
      status: list.status, tags: list.tags, subscriber_count: list.subscriberCount,
    }));
    return { status: 200, body: { data: { results, total: results.length, per_page: 0, page: 1 } } };
  }

  function templates(request: SimulatedRequest): SimulatedAnswer {
    const noBody = request.query.get('no_body') === 'true';
    const data = state.templates.map((template) => ({
      id: template.id, name: template.name, type: template.type, is_default: template.isDefault,
      subject: '', body: noBody ? '' : '<html>{{ template "content" . }}</html>',
    }));
    return { status: 200, body: { data } };
  }

  function route(request: SimulatedRequest, name: string): SimulatedAnswer {
    const id = /\/api\/campaigns\/(\d+)/.exec(request.path)?.[1] ?? '';
    switch (name) {
      case 'GET /api/settings': return settings();
      case 'GET /api/lists': return lists(request);
      case 'GET /api/templates': return templates(request);
      case 'GET /api/campaigns': return queryCampaigns(state, request);
      case 'POST /api/campaigns': return createCampaign(state, request);
      case 'GET /api/campaigns/:id': {
        const campaign = findCampaign(state, id);
        if (!('uuid' in campaign)) return campaign;
        const noBody = request.query.get('no_body') === 'true';
        return { status: 200, body: { data: presentCampaign(state, campaign, noBody) } };
      }
      case 'PUT /api/campaigns/:id/status': {
        const campaign = findCampaign(state, id);
        return 'uuid' in campaign ? updateStatus(state, campaign, request) : campaign;
      }
      case 'GET /api/media': return queryMedia(state, rootUrl, request);
      case 'POST /api/media': return uploadMedia(state, rootUrl, request);
      default: return notFound;
    }
  }

  const simulator = await startSimulatorServer((request) => {
    const name = routeOf(request);
    const fault = faults.get(name)?.shift();
    if (fault !== undefined && fault !== 'lose') return fault;
    if (legacy && name === 'GET /api/profile') return notFound;
    const authenticated = authenticate(request, options.users, legacy);
    if ('refusal' in authenticated) return authenticated.refusal;
    const { user } = authenticated;
    if (name === 'GET /api/profile') return { status: 200, body: { data: presentProfile(user) } };
    const permission = permissions[name];
    if (permission !== undefined && !hasPermission(user, permission, legacy)) {
      return forbidden(`permission denied: ${permission}`);
    }
    const answer = route(request, name);
    return fault === 'lose' && answer.status < 300 ? { ...answer, lose: true } : answer;
  }, notFound, {
    tooLarge: { status: 413, body: { message: 'Request Entity Too Large' } },
    operations: listmonkOperations(),
  });
  rootUrl = simulator.url;
  return {
    ...simulator,
    rootUrl,
    state,
    failNext(routeName, ...more) {
      faults.set(routeName, [...(faults.get(routeName) ?? []), ...more]);
    },
    requestsTo: (routeName) => simulator.received.filter((request) => routeOf(request) === routeName),
  };
}
