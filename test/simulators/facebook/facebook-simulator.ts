import type { PlatformApp } from '../../../shared/platforms/kit/platform-connect.ts';
import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import type { RunningSimulator, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { startGraphServer } from './graph-http-server.ts';
import {
  expiredToken, graphError, graphPath, graphToken, MetaTokenBook, pickFields, requestedFields, unknownPath,
  unparsableToken,
} from './meta-graph-simulation.ts';
import { createPagePublishing, type PagePublishing } from './page-publishing-simulation.ts';

/**
 * A local stand-in for Facebook Login and the Graph API as far as connecting Pages (and the
 * Instagram accounts linked to them) goes: the dialog (`/v{N}/dialog/oauth`, comma-separated
 * scopes, no PKCE), the token endpoint (`/v{N}/oauth/access_token`: the code with the app
 * secret in the form, and `fb_exchange_token` for a 60-day user token), `/me/accounts` with a
 * Page token per Page, and the Page and Instagram user nodes. Page tokens read with a
 * long-lived user token never expire; with a short-lived one they die with it. Refusals in
 * Graph's envelope `{error: {message, type, code, error_subcode, fbtrace_id}}`, HTTP 400.
 * With a Page token, the Page publishes (page-publishing-simulation.ts).
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.1 to 3.5 and 4.1.
 */
export interface SimulatedInstagramAccount {
  id: string;
  username: string;
  name: string;
  profilePictureUrl: string;
}

export interface SimulatedPage {
  id: string;
  name: string;
  username?: string;
  pictureUrl: string;
  /** What the user may do on the Page; Graph lists these on each /me/accounts entry. */
  tasks: string[];
  instagram?: SimulatedInstagramAccount;
}

export interface FacebookSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  /** The simulator's origin as every URL of the app (dialog, token endpoint, Graph API). */
  app: PlatformApp;
  /** Gives `user` a role on these Pages; `authority.consentingUser = user` makes them consent next. */
  addPages(user: string, pages: SimulatedPage[]): void;
  /** Takes a Page away from the user, as removing their role does: its Page tokens stop working. */
  removePage(user: string, pageId: string): void;
  /** What Pages published, and the failures the next publishing requests meet. */
  publishing: PagePublishing;
}

const clientId = 'facebook-app-id';
const clientSecret = 'facebook-app-secret';

/** Permissions Facebook Login knows (a subset, enough to refuse typos). */
const knownScopes = [
  'public_profile', 'email', 'pages_show_list', 'pages_manage_posts', 'pages_read_engagement',
  'pages_read_user_content', 'pages_manage_engagement', 'pages_manage_metadata', 'read_insights', 'publish_video',
  'business_management', 'instagram_basic', 'instagram_content_publish', 'instagram_manage_comments',
  'instagram_manage_insights', 'ads_read', 'ads_management',
];

/** A short-lived user token from the code lives about an hour. */
const shortLivedSeconds = 3600;
/** What Graph answers as `expires_in` for a long-lived user token: a little under 60 days. */
const longLivedSeconds = 5183944;

/** Graph's words for the token endpoint's refusals. */
function tokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return graphError('Error validating client secret.', 1);
  if (error === 'invalid_grant' && /redirect_uri/.test(description)) {
    const message = 'Error validating verification code. Please make sure your redirect_uri is identical '
      + 'to the one you used in the OAuth dialog request';
    return graphError(message, 100);
  }
  if (error === 'invalid_grant') return graphError('This authorization code has been used.', 100, { subcode: 36009 });
  return graphError(description, 100);
}

/** Graph sends no refresh token and no scope, only the token, its type and its lifetime. */
function tokenAnswer(tokens: IssuedTokens): unknown {
  return { access_token: tokens.accessToken, token_type: 'bearer', expires_in: tokens.expiresIn };
}

export async function startFacebookSimulator(): Promise<FacebookSimulator> {
  const authority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'body',
    requirePkce: false,
    knownScopes,
    scopeSeparator: ',',
    accessTokenSeconds: shortLivedSeconds,
    refreshTokens: 'none',
    tokenError,
    tokenAnswer,
  });
  const book = new MetaTokenBook(() => authority.now());
  const pagesOf = new Map<string, SimulatedPage[]>();

  /** Who a user token (short- or long-lived) acts for, and until when Page tokens read with it live. */
  const userToken = (token: string | null): { user: string; pageTokenSeconds: number | null } | SimulatedAnswer => {
    const shortLived = authority.userOf(token);
    // A Page token read with a short-lived user token dies with it (about an hour).
    if (shortLived !== null) return { user: shortLived, pageTokenSeconds: shortLivedSeconds };
    const booked = book.lookup(token);
    if (booked === 'expired') return expiredToken(book.expiryOf(token ?? '') ?? 0);
    if (booked === null || booked.kind !== 'long') return unparsableToken();
    // Read with a long-lived user token, it does not expire.
    return { user: booked.user, pageTokenSeconds: null };
  };

  function exchange(request: SimulatedRequest): SimulatedAnswer {
    const query = request.query;
    if (query.get('client_id') !== clientId) {
      return graphError('Error validating application. Invalid application ID.', 101);
    }
    if (query.get('client_secret') !== clientSecret) return graphError('Error validating client secret.', 1);
    const shortLived = authority.userOf(query.get('fb_exchange_token'));
    if (shortLived === null) return unparsableToken();
    const token = book.issue(shortLived, 'long', longLivedSeconds);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: longLivedSeconds } };
  }

  function presentPage(
    page: SimulatedPage,
    user: string,
    pageTokenSeconds: number | null,
    fields: Map<string, string[]>,
  ): Record<string, unknown> {
    const node: Record<string, unknown> = { id: page.id, name: page.name, username: page.username, tasks: page.tasks };
    if (fields.has('access_token')) node.access_token = book.issue(`${user}:${page.id}`, 'page', pageTokenSeconds);
    if (fields.has('picture')) node.picture = { data: { url: page.pictureUrl, is_silhouette: false } };
    const instagramFields = fields.get('instagram_business_account');
    if (instagramFields !== undefined && page.instagram !== undefined) {
      node.instagram_business_account = pickFields(instagramNode(page.instagram), instagramFields);
    }
    return pickFields(node, [...fields.keys()]);
  }

  function accounts(request: SimulatedRequest): SimulatedAnswer {
    const caller = userToken(graphToken(request));
    if ('status' in caller) return caller;
    const pages = pagesOf.get(caller.user) ?? [];
    const limit = Math.min(Number(request.query.get('limit') ?? '25') || 25, 100);
    const start = Number(request.query.get('after') ?? '0') || 0;
    const slice = pages.slice(start, start + limit);
    const fields = requestedFields(request);
    if (fields.size === 0) fields.set('name', []).set('access_token', []).set('tasks', []);
    const data = slice.map((page) => presentPage(page, caller.user, caller.pageTokenSeconds, fields));
    const cursors = { before: String(start), after: String(start + slice.length) };
    const more = start + slice.length < pages.length;
    const next = more ? { next: `${request.path}?after=${cursors.after}` } : {};
    return { status: 200, body: { data, paging: { cursors, ...next } } };
  }

  /** The Pages a Page token reaches (its own), or Graph's refusal once the user lost the Page role. */
  function pageTokenPages(booked: { user: string }): SimulatedPage[] | SimulatedAnswer {
    const [user = '', pageId = ''] = booked.user.split(':');
    const pages = (pagesOf.get(user) ?? []).filter((page) => page.id === pageId);
    // Losing the Page role voids the Page's tokens.
    if (pages.length === 0) {
      const message = 'Error validating access token: The user is not an administrator of the page.';
      return graphError(message, 190, { subcode: 460 });
    }
    return pages;
  }

  /** The Page a token publishes for: only a live Page token publishes. */
  function pageOfToken(token: string | null): string | SimulatedAnswer {
    const booked = book.lookup(token);
    if (booked === 'expired') return expiredToken(book.expiryOf(token ?? '') ?? 0);
    if (booked === null) return unparsableToken();
    if (booked.kind !== 'page') {
      return graphError('(#200) The Page must be published to with a Page access token', 200);
    }
    const pages = pageTokenPages(booked);
    return 'status' in pages ? pages : pages[0]?.id ?? '';
  }

  /** GET /{page-id} or /{ig-user-id}: with that Page's token, or a user token of someone with a role on it. */
  function node(request: SimulatedRequest, named: string): SimulatedAnswer {
    let id = named;
    const token = graphToken(request);
    const booked = book.lookup(token);
    if (booked === 'expired') return expiredToken(book.expiryOf(token ?? '') ?? 0);
    let pages: SimulatedPage[];
    if (booked !== null && booked.kind === 'page') {
      const reached = pageTokenPages(booked);
      if ('status' in reached) return reached;
      pages = reached;
      // With a Page token, `me` is the Page.
      if (id === 'me') id = pages[0]?.id ?? id;
    } else {
      const caller = userToken(token);
      if ('status' in caller) return caller;
      pages = pagesOf.get(caller.user) ?? [];
    }
    const fields = [...requestedFields(request).keys()];
    const page = pages.find((candidate) => candidate.id === id);
    if (page !== undefined) {
      const node = { id: page.id, name: page.name, username: page.username, ...publishing.pageCounters(page.id) };
      return { status: 200, body: pickFields(node, fields) };
    }
    const linked = pages.find((candidate) => candidate.instagram?.id === id)?.instagram;
    if (linked !== undefined) return { status: 200, body: pickFields(instagramNode(linked), fields) };
    const message = `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to `
      + 'missing permissions, or does not support this operation.';
    return graphError(message, 100, { subcode: 33 });
  }

  const publishing = createPagePublishing({ pageOfToken, now: () => authority.now() });

  const server = await startGraphServer((request) => {
    const published = publishing.route(request);
    if (published !== undefined) return published;
    const { rest } = graphPath(request.path);
    if (request.method === 'GET' && rest === '/dialog/oauth') return authority.authorize(request);
    if (rest === '/oauth/access_token') {
      if (request.method === 'GET' && request.query.get('grant_type') === 'fb_exchange_token') return exchange(request);
      return authority.token(request);
    }
    if (request.method === 'GET' && rest === '/me/accounts') return accounts(request);
    const nodeId = /^\/(\d+|me)$/.exec(rest)?.[1];
    if (request.method === 'GET' && nodeId !== undefined) return node(request, nodeId);
    return unknownPath(request);
  }, graphError('Unknown path components', 2500));

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    app: { clientId, clientSecret, apiUrl: server.url, authUrl: server.url, tokenUrl: server.url, botToken: null },
    addPages: (user, pages) => { pagesOf.set(user, [...(pagesOf.get(user) ?? []), ...pages]); },
    removePage: (user, pageId) => {
      pagesOf.set(user, (pagesOf.get(user) ?? []).filter((page) => page.id !== pageId));
    },
    publishing,
  };
}

function instagramNode(account: SimulatedInstagramAccount): Record<string, unknown> {
  const { id, username, name, profilePictureUrl } = account;
  return { id, username, name, profile_picture_url: profilePictureUrl };
}
