import { bodyLimits } from '../../api/middleware/json-body.ts';
import type { FuzzTarget } from '../fuzz/fuzz-targets.ts';
import type { BodySpec, RequestTemplate } from '../fuzz/request-mutations.ts';
import { mixSeed, SeededRandom } from '../fuzz/seeded-random.ts';
import { fieldBudget, formBudget, headBudget, type AnswerShape, type StallCase } from './stall-case.ts';
import {
  asHeaderValue, kindAt, nestedFormKey, nestedJson, slowText, slowTextKinds, type SlowTextKind,
} from './slow-inputs.ts';
import { renderTemplate, type RawJsonLeaf } from './stall-request.ts';

type JsonPath = (string | number)[];

/** Where a fuzz target's valid request is sent, and what answers it gives. */
export interface RouteTemplate {
  target: FuzzTarget;
  template: RequestTemplate;
  answer: AnswerShape;
}

/** Spliced in place of a leaf that becomes raw JSON; no real input contains it. */
const rawMarker = '\u0001stall-raw-json\u0001';

export function routeTemplate(target: FuzzTarget): RouteTemplate {
  const template = target.template(new SeededRandom(mixSeed('stall', target.name)));
  // The uploads and documents serve files and HTML; only their status is checked.
  const servesFiles = template.path.startsWith('/uploads/') || target.name.includes('health and documents');
  const answer: AnswerShape = servesFiles ? 'any' : template.path.startsWith('/api/') ? 'json' : 'page';
  return { target, template, answer };
}

function stringLeaves(value: unknown, path: JsonPath = []): JsonPath[] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringLeaves(item, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => stringLeaves(item, [...path, key]));
  }
  return [];
}

function withLeaf(value: unknown, path: JsonPath, leaf: string): unknown {
  const copy = structuredClone(value);
  let node: unknown = copy;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  (node as Record<string | number, unknown>)[path.at(-1) ?? ''] = leaf;
  return copy;
}

/** The largest body the route parses: the posts limit, 64 KiB for the OAuth token endpoint, else the default. */
function bodyLimit(template: RequestTemplate): number {
  if (template.path === '/api/oauth/token') return formBudget;
  return template.path === '/api/public/v1/posts' ? bodyLimits.posts : bodyLimits.default;
}

function headerBytes(template: RequestTemplate): number {
  return template.headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
}

/** The slack left by the rest of a request, with a margin for framing. */
const spare = (limit: number, used: number): number => Math.min(fieldBudget, limit - used - 512);

function caseOf(route: RouteTemplate, name: string, fullBytes: number, build: StallCase['build']): StallCase {
  return {
    group: route.target.name, name, answer: route.answer,
    designedServerErrors: route.target.designedServerErrors ?? [], fullBytes, build,
  };
}

/** A leaf sent alone is this large: enough for any regular expression to show, small enough to send them all. */
const aloneBytes = 4 * 1024;

/**
 * A JSON body's string leaves made slow: all of them at once, in every kind, filling the body
 * limit (every validator of the route then reads slow text, whichever refuses first); then
 * each alone at a few kilobytes in one kind (they take turns), the rest valid, so the text
 * also reaches the handler wherever the schema lets it through; and one leaf replaced by
 * arrays nested as deep as the limit allows.
 */
function jsonBodyCases(route: RouteTemplate, body: Extract<BodySpec, { kind: 'json' }>): StallCase[] {
  const { template } = route;
  const leaves = stringLeaves(body.value);
  const full = spare(bodyLimit(template), JSON.stringify(body.value).length);
  const withLeaves = (chosen: readonly JsonPath[], text: string): unknown => chosen.reduce<unknown>(
    (value, path) => withLeaf(value, path, text), body.value,
  );
  const send = (value: unknown, raw: RawJsonLeaf | null = null) => renderTemplate(
    { ...template, body: { kind: 'json', value } }, raw,
  );
  const together = slowTextKinds.map((kind) => caseOf(route, `body, every string: ${kind}`, full, (bytes) => (
    send(withLeaves(leaves, slowText(kind, Math.floor(bytes / leaves.length), 'json')))
  )));
  const alone = leaves.map((path, turn) => caseOf(
    route, `body ${path.join('.')}: ${kindAt(turn)}`, aloneBytes,
    (bytes) => send(withLeaves([path], slowText(kindAt(turn), bytes, 'json'))),
  ));
  const [first] = leaves;
  const nested = first === undefined ? [] : [caseOf(route, `body ${first.join('.')}: nested arrays`, full, (bytes) => (
    send(withLeaves([first], rawMarker), { marker: rawMarker, json: nestedJson(bytes) })
  ))];
  return [...together, ...alone, ...nested];
}

/**
 * A form's fields made slow: all at once in every kind, filling the form limit; each alone in
 * one kind (they take turns), the rest valid; and a field name nested as deep as the limit
 * allows. Every kind alone for every field would cost a password hash per login request.
 */
function formBodyCases(route: RouteTemplate, body: Extract<BodySpec, { kind: 'form' }>): StallCase[] {
  const { template } = route;
  const full = spare(formBudget, new URLSearchParams(body.fields).toString().length);
  const slowFields = body.fields.flatMap(([name], index) => (name === '_csrf' ? [] : [index]));
  const send = (fields: [string, string][]) => renderTemplate({ ...template, body: { kind: 'form', fields } });
  const slowAt = (chosen: readonly number[], text: string): [string, string][] => body.fields.map(
    ([name, value], index): [string, string] => [name, chosen.includes(index) ? text : value],
  );
  const together = slowFields.length === 0 ? [] : slowTextKinds.map((kind) => caseOf(
    route, `form, every field: ${kind}`, full,
    (bytes) => send(slowAt(slowFields, slowText(kind, Math.floor(bytes / slowFields.length), 'form'))),
  ));
  const alone = slowFields.map((index, turn) => {
    const kind = kindAt(turn);
    const name = body.fields[index]?.[0] ?? '';
    const text = (bytes: number) => slowText(kind, bytes, 'form');
    return caseOf(route, `form ${name}: ${kind}`, full, (bytes) => send(slowAt([index], text(bytes))));
  });
  const nested = caseOf(route, 'form key nested brackets', full, (bytes) => send([
    ...body.fields, [nestedFormKey(bytes), '1'],
  ]));
  return [...together, ...alone, nested];
}

function multipartCases(route: RouteTemplate, body: Extract<BodySpec, { kind: 'multipart' }>): StallCase[] {
  const full = headBudget - headerBytes(route.template);
  return slowTextKinds.flatMap((kind) => [
    caseOf(route, `multipart file name: ${kind}`, full, (bytes) => renderTemplate({
      ...route.template, body: { ...body, fileName: slowText(kind, bytes, 'header') },
    })),
    caseOf(route, `multipart part type: ${kind}`, full, (bytes) => renderTemplate({
      ...route.template, body: { ...body, contentType: `image/png; x=${slowText(kind, bytes, 'url')}` },
    })),
  ]);
}

/** The query's values, and apart from them the path's parameters, slow all at once in every kind. */
function addressCases(route: RouteTemplate): StallCase[] {
  const { template } = route;
  const full = headBudget - headerBytes(template) - template.path.length;
  const params = Object.keys(template.params);
  const queryCases = template.query.length === 0 ? [] : slowTextKinds.map((kind) => caseOf(
    route, `query, every value: ${kind}`, full, (bytes) => {
      const text = slowText(kind, Math.floor(bytes / template.query.length), 'url');
      return renderTemplate({ ...template, query: template.query.map(([name]): [string, string] => [name, text]) });
    },
  ));
  const paramCases = params.length === 0 ? [] : slowTextKinds.map((kind) => caseOf(
    route, `path, every parameter: ${kind}`, full, (bytes) => {
      const text = slowText(kind, Math.floor(bytes / params.length), 'url');
      return renderTemplate({ ...template, params: Object.fromEntries(params.map((name) => [name, text])) });
    },
  ));
  return [...queryCases, ...paramCases];
}

/** A header every request passes through (the request context reads it), with a rotating kind per route. */
function requestIdCase(route: RouteTemplate, kind: SlowTextKind): StallCase {
  const full = headBudget - headerBytes(route.template);
  return caseOf(route, `header X-Request-Id: ${kind}`, full, (bytes) => {
    const requestId = asHeaderValue(slowText(kind, bytes, 'header'));
    return renderTemplate({ ...route.template, headers: [...route.template.headers, ['X-Request-Id', requestId]] });
  });
}

/**
 * Every input of one route made slow, the rest of its valid request kept: its JSON body or
 * form, query values, path parameters and multipart headers, in every kind, and a long
 * request-id header.
 */
export function routeCases(route: RouteTemplate, routeIndex: number): StallCase[] {
  const { body } = route.template;
  const bodyCases = body.kind === 'json' ? jsonBodyCases(route, body)
    : body.kind === 'form' ? formBodyCases(route, body)
      : body.kind === 'multipart' ? multipartCases(route, body) : [];
  return [...bodyCases, ...addressCases(route), requestIdCase(route, kindAt(routeIndex))];
}

/**
 * Headers that some routes parse, each made slow (in every kind) on a route that reads it:
 * credentials, the session cookie, content negotiation, content types (JSON, form and
 * multipart boundaries), idempotency keys, byte ranges and a forwarded client address.
 */
export function headerCases(routes: ReadonlyMap<string, RouteTemplate>): StallCase[] {
  const readers: [string, string][] = [
    ['Authorization', 'GET /api/public/v1/integrations'], ['Authorization', 'POST /api/oauth/token (form)'],
    ['Cookie', 'GET /settings'], ['Accept', 'GET /settings'], ['Accept', 'GET /api/public/v1/integrations'],
    ['Content-Type', 'POST /api/public/v1/webhooks'], ['Content-Type', 'POST /webhooks'],
    ['Content-Type', 'POST /api/public/v1/upload'], ['Idempotency-Key', 'POST /api/public/v1/upload-from-url'],
    ['Range', 'GET /uploads/:year/:month/:day/:file'], ['X-Forwarded-For', 'POST /signup'],
  ];
  return readers.flatMap(([header, targetName]) => {
    const route = routes.get(targetName);
    if (route === undefined) throw new Error(`no fuzz target ${targetName} to send ${header} to`);
    const kept = route.template.headers.filter(([name]) => name.toLowerCase() !== header.toLowerCase());
    const full = headBudget - headerBytes(route.template);
    return slowTextKinds.map((kind) => caseOf(route, `header ${header}: ${kind}`, full, async (bytes) => {
      const request = await renderTemplate({ ...route.template, headers: kept });
      const value = asHeaderValue(slowText(kind, bytes, 'header'));
      // A content type keeps its own value first, so the route still recognises what it is sent.
      const given = header === 'Content-Type' ? `${request.headers['Content-Type'] ?? ''}; x=${value}` : value;
      return { ...request, headers: { ...request.headers, [header]: given } };
    }));
  });
}
