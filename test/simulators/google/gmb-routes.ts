import { z } from 'zod';
import type { OAuthAuthority } from '../kit/oauth-authority.ts';
import { bearerToken, jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import {
  invalidArgument, notFound, permissionDenied, resourceExhausted, scopeInsufficient, serviceDisabled,
  type FieldRefusal,
} from './gmb-answers.ts';
import { performanceSeries } from './gmb-performance-route.ts';
import { fetchMedia } from './gmb-photo.ts';
import { localPostResource, type GmbStep, type GmbStore, type SimulatedLocalPost } from './gmb-store.ts';
import { unauthenticated, type SimulatedGoogleUser } from './google-simulator.ts';

/**
 * The Google Business Profile routes SPS publishes with, on the Google simulator's origin:
 * - `POST /v4/accounts/{a}/locations/{l}/localPosts` checks the LocalPost as Google does
 *   (topicType required and creatable, summary of at most 1,500 characters, event title and
 *   dates for EVENT and OFFER, offer and alertType on their types only, a call-to-action url
 *   except for CALL), fetches each media's `sourceUrl` (gmb-photo.ts), and creates the post;
 * - `GET /v4/accounts/{a}/locations/{l}/localPosts` lists them newest first, paged (pageSize at
 *   most 100, 20 by default);
 * - `DELETE /v4/accounts/{a}/locations/{l}/localPosts/{id}` deletes one (`{}`);
 * - `GET /v1/locations/{l}:fetchMultiDailyMetricsTimeSeries` (gmb-performance-route.ts).
 * Every call needs a bearer with business.manage (else ACCESS_TOKEN_SCOPE_INSUFFICIENT) whose
 * user manages the location (else PERMISSION_DENIED). Facts: design-blogging-business.md 7.
 */

const scope = 'https://www.googleapis.com/auth/business.manage';
const maxSummary = 1500;

export interface GmbRouteContext {
  store: GmbStore;
  authority: () => OAuthAuthority;
}

export interface GmbCaller {
  request: SimulatedRequest;
  /** `accounts/{a}/locations/{l}`. */
  parent: string;
}

/** What a test injected for this step, the work included when the answer is to be lost. */
async function fault(
  context: GmbRouteContext,
  step: GmbStep,
  work: () => SimulatedAnswer | Promise<SimulatedAnswer>,
): Promise<SimulatedAnswer> {
  const injected = context.store.takeFault(step);
  if (injected === undefined) return work();
  if (!('status' in injected)) return { ...(await work()), lose: true };
  return injected;
}

const googleDate = z.object({ year: z.number().int(), month: z.number().int().min(1).max(12), day: z.number().int() });
const timeOfDay = z.object({
  hours: z.number().int().min(0).max(23), minutes: z.number().int().min(0).max(59),
}).loose();

const localPostBody = z.object({
  languageCode: z.string().optional(),
  summary: z.string().refine((text) => Array.from(text).length <= maxSummary).optional(),
  topicType: z.enum(['STANDARD', 'EVENT', 'OFFER', 'ALERT']),
  callToAction: z.object({
    actionType: z.enum(['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL']),
    url: z.url().optional(),
  }).optional(),
  event: z.object({
    title: z.string().min(1),
    schedule: z.object({
      startDate: googleDate, startTime: timeOfDay.optional(), endDate: googleDate, endTime: timeOfDay.optional(),
    }),
  }).optional(),
  offer: z.object({
    couponCode: z.string().optional(), redeemOnlineUrl: z.url().optional(), termsConditions: z.string().optional(),
  }).optional(),
  alertType: z.enum(['COVID_19']).optional(),
  media: z.array(z.object({ mediaFormat: z.enum(['PHOTO', 'VIDEO']), sourceUrl: z.url() })).optional(),
});
type LocalPostBody = z.infer<typeof localPostBody>;

/** The protobuf name of a JSON path: `event.schedule.startDate` → `event.schedule.start_date`. */
const fieldName = (path: readonly PropertyKey[]): string => path
  .map((part) => (typeof part === 'number' ? `[${String(part)}]` : `.${String(part)}`)).join('').slice(1)
  .replace(/\.\[/g, '[').replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const stamp = (date: z.infer<typeof googleDate>, time: z.infer<typeof timeOfDay> | undefined): number =>
  Date.UTC(date.year, date.month - 1, date.day, time?.hours ?? 0, time?.minutes ?? 0);

/** The rules across fields, each refusal naming its field as Google does. */
function crossFieldRefusals(post: LocalPostBody): FieldRefusal[] {
  const refusals: FieldRefusal[] = [];
  const { topicType, event, callToAction } = post;
  if ((topicType === 'EVENT' || topicType === 'OFFER') && event === undefined) {
    refusals.push({ field: 'event', message: `Event is required for ${topicType} posts.` });
  }
  if (event !== undefined) {
    const { startDate, startTime, endDate, endTime } = event.schedule;
    if (stamp(endDate, endTime ?? { hours: 23, minutes: 59 }) < stamp(startDate, startTime)) {
      refusals.push({ field: 'event.schedule.end_date', message: 'The end time must be after the start time.' });
    }
  }
  if (post.offer !== undefined && topicType !== 'OFFER') {
    refusals.push({ field: 'offer', message: 'Offer is only allowed for OFFER posts.' });
  }
  if (topicType === 'ALERT' && post.alertType === undefined) {
    refusals.push({ field: 'alert_type', message: 'Alert type is required for ALERT posts.' });
  }
  if (callToAction !== undefined && (callToAction.actionType === 'CALL') !== (callToAction.url === undefined)) {
    const message = callToAction.actionType === 'CALL' ? 'A CALL action takes no URL.' : 'A URL is required.';
    refusals.push({ field: 'call_to_action.url', message });
  }
  if ((post.media?.length ?? 0) > 1) {
    refusals.push({ field: 'media', message: 'Only one media item is allowed per post.' });
  }
  return refusals;
}

function readBody(request: SimulatedRequest): { post: LocalPostBody } | { refusal: SimulatedAnswer } {
  const raw = jsonBody(request);
  if (!(request.headers['content-type'] ?? '').startsWith('application/json') || typeof raw !== 'object') {
    return { refusal: invalidArgument({ field: '', message: 'Invalid JSON payload received.' }) };
  }
  if (raw !== null && 'topicType' in raw && raw.topicType === 'PRODUCT') {
    return { refusal: invalidArgument({ field: 'topic_type', message: 'PRODUCT posts cannot be created.' }) };
  }
  const parsed = localPostBody.safeParse(raw);
  if (!parsed.success) {
    return {
      refusal: invalidArgument(...parsed.error.issues.map((issue) => {
        const field = fieldName(issue.path);
        return { field, message: field === '' ? 'Invalid value.' : `Invalid ${field}.` };
      })),
    };
  }
  const refusals = crossFieldRefusals(parsed.data);
  return refusals.length === 0 ? { post: parsed.data } : { refusal: invalidArgument(...refusals) };
}

async function createPost(context: GmbRouteContext, caller: GmbCaller): Promise<SimulatedAnswer> {
  const read = readBody(caller.request);
  if ('refusal' in read) return read.refusal;
  const { post } = read;
  const media: SimulatedLocalPost['media'] = [];
  for (const [index, item] of (post.media ?? []).entries()) {
    const fetched = await fetchMedia(index, item.mediaFormat, item.sourceUrl);
    if ('refusal' in fetched) return invalidArgument(fetched.refusal);
    const googleUrl = `https://lh3.googleusercontent.com/p/AF1Q${String(index)}`;
    media.push({ ...item, bytes: fetched.bytes, googleUrl });
  }
  return fault(context, 'localPosts.create', () => {
    const words = (post.summary ?? '').toLowerCase();
    const rejected = [...context.store.rejectedWords].some((word) => words.includes(word.toLowerCase()));
    const { media: _sent, event, ...fields } = post;
    const made = context.store.addPost({
      ...fields,
      ...(event === undefined ? {} : { event }),
      parent: caller.parent,
      media,
      state: rejected ? 'REJECTED' : 'LIVE',
    });
    return { status: 200, body: localPostResource(made) };
  });
}

function listPosts(context: GmbRouteContext, caller: GmbCaller): Promise<SimulatedAnswer> {
  const { query } = caller.request;
  const size = Number(query.get('pageSize') ?? '20');
  if (!Number.isInteger(size) || size < 1 || size > 100) {
    return Promise.resolve(invalidArgument({ field: 'page_size', message: 'Page size must be between 1 and 100.' }));
  }
  return fault(context, 'localPosts.list', () => {
    const all = context.store.postsOf(caller.parent);
    const start = Number(query.get('pageToken') ?? '0');
    const localPosts = all.slice(start, start + size).map(localPostResource);
    const next = start + size < all.length ? { nextPageToken: String(start + size) } : {};
    return { status: 200, body: localPosts.length === 0 ? next : { localPosts, ...next } };
  });
}

/** localPosts.delete: the location's post leaves the store, `{}`; one it does not have is NOT_FOUND. */
function deletePost(context: GmbRouteContext, request: SimulatedRequest): Promise<SimulatedAnswer> {
  const name = request.path.slice('/v4/'.length);
  const index = context.store.posts.findIndex((post) => post.name === name);
  if (index < 0) return Promise.resolve(notFound);
  return fault(context, 'localPosts.delete', () => {
    context.store.posts.splice(index, 1);
    return { status: 200, body: {} };
  });
}

/** The account and location a path names, if the user manages them; or Google's refusal. */
function managed(user: SimulatedGoogleUser, store: GmbStore, location: string, account?: string):
string | SimulatedAnswer {
  if (store.removedLocations.has(location)) return notFound;
  const holder = user.businessAccounts.find((candidate) => (account === undefined || candidate.name === account)
    && candidate.locations.some((item) => item.name === location));
  return holder === undefined ? permissionDenied : `${holder.name}/${location}`;
}

const postsPath = /^\/v4\/(accounts\/[^/]+)\/(locations\/[^/]+)\/localPosts$/;
const postPath = /^\/v4\/(accounts\/[^/]+)\/(locations\/[^/]+)\/localPosts\/[^/]+$/;
const performancePath = /^\/v1\/(locations\/[^/:]+):fetchMultiDailyMetricsTimeSeries$/;

/** The routes for the Google simulator's `routes` extension; other paths pass on (undefined). */
export function gmbRoutes(context: GmbRouteContext) {
  return (request: SimulatedRequest, user: SimulatedGoogleUser | undefined):
  Promise<SimulatedAnswer> | SimulatedAnswer | undefined => {
    const posts = postsPath.exec(request.path) ?? (request.method === 'DELETE' ? postPath.exec(request.path) : null);
    const performance = performancePath.exec(request.path);
    if (posts === null && performance === null) return undefined;
    const grant = context.authority().grantOf(bearerToken(request));
    if (user === undefined || grant === null) return unauthenticated;
    if (!grant.scopes.includes(scope)) return scopeInsufficient;
    if (context.store.serviceDisabled) return serviceDisabled;
    if (context.store.quotaZero) return resourceExhausted('0');
    const location = posts?.[2] ?? performance?.[1] ?? '';
    const parent = managed(user, context.store, location, posts?.[1]);
    if (typeof parent !== 'string') return parent;
    if (performance !== null && request.method === 'GET') {
      return fault(context, 'performance', () => performanceSeries(context.store, location, request.query));
    }
    if (request.method === 'DELETE') return deletePost(context, request);
    if (request.method === 'POST') return createPost(context, { request, parent });
    if (request.method === 'GET') return listPosts(context, { request, parent });
    return undefined;
  };
}
