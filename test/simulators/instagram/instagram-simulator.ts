import { z } from 'zod';
import {
  startFacebookSimulator, type FacebookSimulator, type SimulatedInstagramAccount,
} from '../facebook/facebook-simulator.ts';
import { graphOperations } from '../facebook/graph-operations.ts';
import { graphError, graphPath, graphToken, pickFields, requestedFields } from '../facebook/meta-graph-simulation.ts';
import {
  startSimulatorServer, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { InstagramContentSimulation } from './instagram-content-simulation.ts';

/**
 * Instagram through Facebook Login is Facebook's dialog, token endpoint and Graph API: an
 * Instagram professional account is reached through the Page it is linked to
 * (`/me/accounts?fields=instagram_business_account{...}`), and read and published to with that
 * Page's token. This server is the Facebook simulator for connecting, in front of which
 * Instagram's content publishing (instagram-content-simulation.ts) answers for the accounts
 * linked to Pages: it notes the Page tokens `/me/accounts` hands out, answers `GET /me` for them
 * (the Page and its `instagram_business_account`), and asks the Facebook simulator whether a
 * Page token still holds (the role kept, the token alive) before acting for its account.
 * Requests and answers are held to Instagram's Graph operations (operations.json beside this file).
 * Facts: ../shared/platforms/oauth-majors.md, sections 4.1-4.7.
 */
export interface InstagramSimulator extends FacebookSimulator {
  /** Links `account` to a Page `user` has a role on (all tasks unless given; publishing needs CREATE_CONTENT). */
  linkAccount(user: string, page: LinkedPage, account: SimulatedInstagramAccount & Counters): void;
  /** Containers, media, comments, injected failures. */
  content: InstagramContentSimulation;
}

interface Counters {
  followersCount?: number;
  followsCount?: number;
}

export interface LinkedPage {
  id: string;
  name: string;
  tasks?: string[];
}

const handedOutPages = z.object({
  data: z.array(z.object({ id: z.string(), access_token: z.string().optional() }).loose()),
});

/** The request as the Facebook simulator should receive it, and its answer as it gave it. */
async function forward(origin: string, request: SimulatedRequest): Promise<SimulatedAnswer> {
  const search = request.query.toString();
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'authorization']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const response = await fetch(`${origin}${request.path}${search === '' ? '' : `?${search}`}`, {
    method: request.method,
    headers,
    redirect: 'manual',
    ...(hasBody ? { body: request.text } : {}),
  });
  const answerHeaders: Record<string, string> = {};
  for (const name of ['content-type', 'location']) {
    const value = response.headers.get(name);
    if (value !== null) answerHeaders[name] = value;
  }
  const text = await response.text();
  return { status: response.status, headers: answerHeaders, ...(text === '' ? {} : { body: text }) };
}

export async function startInstagramSimulator(): Promise<InstagramSimulator> {
  const graph = await startFacebookSimulator();
  /** Page token → Page id, as `/me/accounts` handed them out. */
  const pageOfToken = new Map<string, string>();
  /** Page id → the Instagram account linked to it. */
  const accountOfPage = new Map<string, string>();

  /** The Facebook simulator's verdict on a Page token: null while it holds, its refusal otherwise. */
  async function pageRefusal(pageId: string, token: string): Promise<SimulatedAnswer | null> {
    const check = await fetch(`${graph.url}/v26.0/${pageId}?fields=id&access_token=${encodeURIComponent(token)}`);
    if (check.ok) return null;
    return { status: check.status, body: await check.json() };
  }

  const content = new InstagramContentSimulation({
    now: () => graph.authority.now(),
    actingAccount: async (request) => {
      const token = graphToken(request);
      const pageId = token === null ? undefined : pageOfToken.get(token);
      // User tokens read linked accounts through the Facebook simulator, as connecting does.
      if (token === null || pageId === undefined) return null;
      const refusal = await pageRefusal(pageId, token);
      if (refusal !== null) return refusal;
      return accountOfPage.get(pageId) ?? graphError('(#10) The Page has no Instagram account linked', 10);
    },
  });

  async function pageMe(request: SimulatedRequest, pageId: string, token: string): Promise<SimulatedAnswer> {
    const refusal = await pageRefusal(pageId, token);
    if (refusal !== null) return refusal;
    const fields = requestedFields(request);
    const node: Record<string, unknown> = { id: pageId };
    const accountId = accountOfPage.get(pageId);
    const account = accountId === undefined ? undefined : content.profiles.get(accountId);
    const accountFields = fields.get('instagram_business_account');
    if (account !== undefined && accountFields !== undefined) {
      const linked = { id: account.id, username: account.username, name: account.name };
      node.instagram_business_account = pickFields(linked, accountFields);
    }
    return { status: 200, body: pickFields(node, [...fields.keys()]) };
  }

  const server = await startSimulatorServer(async (request) => {
    const { rest } = graphPath(request.path);
    const token = graphToken(request);
    const pageId = token === null ? undefined : pageOfToken.get(token);
    if (request.method === 'GET' && rest === '/me' && token !== null && pageId !== undefined) {
      return pageMe(request, pageId, token);
    }
    const published = await content.route(request);
    if (published !== undefined) return published;
    const answer = await forward(graph.url, request);
    const listedPages = request.method === 'GET' && rest === '/me/accounts' && answer.status === 200;
    if (listedPages && typeof answer.body === 'string') {
      const pages = handedOutPages.safeParse(JSON.parse(answer.body));
      for (const page of pages.success ? pages.data.data : []) {
        if (page.access_token !== undefined) pageOfToken.set(page.access_token, page.id);
      }
    }
    return answer;
  }, graphError('Unknown path components', 2500), { operations: graphOperations('instagram') });

  return {
    ...graph,
    ...server,
    app: { ...graph.app, apiUrl: server.url, authUrl: server.url, tokenUrl: server.url },
    content,
    close: async () => {
      await server.close();
      await graph.close();
    },
    linkAccount: (user, page, account) => {
      const tasks = page.tasks ?? ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'];
      const pictureUrl = `https://scontent.example/${page.id}.jpg`;
      graph.addPages(user, [{ ...page, tasks, pictureUrl, instagram: account }]);
      accountOfPage.set(page.id, account.id);
      content.addProfile(account);
    },
  };
}
