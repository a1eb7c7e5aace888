import { z } from 'zod';
import { postLimits } from '../../api/public/posts/schema.ts';
import type { PlatformDefinition } from '../../shared/platforms/kit/platform-definition.ts';
import { fieldBudget, type StallCase } from './stall-case.ts';
import { kindAt, slowText, slowTextKinds, type SlowTextKind } from './slow-inputs.ts';
import { renderTemplate } from './stall-request.ts';
import type { RouteTemplate } from './route-cases.ts';

/** The least each platform's settings need to be valid: the rules after the schema then run too. */
const validSettings: Record<string, Record<string, unknown>> = {
  youtube: { title: 'A video' },
  tiktok: { privacy_level: 'SELF_ONLY' },
  reddit: { subreddit: 'typescript', title: 'A post', type: 'self' },
  lemmy: { community_id: 1, name: 'A post' },
  discord: { channel: '123456789012345678' },
  slack: { channel: 'C0123456789' },
  dribbble: { title: 'A shot' },
  medium: { title: 'A story' },
  devto: { title: 'An article' },
  hashnode: { title: 'A post', publicationId: '0123456789abcdef01234567', tags: [{ slug: 'a' }] },
  wordpress: { title: 'A post', post_type: 'posts' },
  gmb: { topicType: 'STANDARD' },
  listmonk: { lists: [1] },
};

interface JsonSchemaNode {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
}

/** The settings with every free-text field (strings that are no enum, in objects and lists too) set to `text`. */
function textInEveryField(schema: JsonSchemaNode, text: string): unknown {
  if (schema.type === 'string' && schema.enum === undefined && schema.const === undefined) return text;
  if (schema.type === 'array' && schema.items !== undefined) {
    const item = textInEveryField(schema.items, text);
    return item === undefined ? undefined : [item];
  }
  if (schema.type === 'object' && schema.properties !== undefined) {
    const entries = Object.entries(schema.properties)
      .map(([key, property]) => [key, textInEveryField(property, text)] as const)
      .filter(([, value]) => value !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  for (const branch of schema.anyOf ?? []) {
    const value = textInEveryField(branch, text);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Settings with every free-text field slow, together `bytes` at most. */
function slowSettings(platform: PlatformDefinition, kind: SlowTextKind, bytes: number): Record<string, unknown> {
  const base = validSettings[platform.identifier] ?? {};
  if (platform.settings === null) return base;
  const schema = z.toJSONSchema(platform.settings, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
  const fields = JSON.stringify(textInEveryField(schema, '\u0001') ?? {}).split('\u0001').length - 1;
  const each = Math.floor(bytes / Math.max(1, fields));
  const filled = textInEveryField(schema, slowText(kind, each, 'json'));
  return { ...base, ...(filled as Record<string, unknown> | undefined) };
}

const inADay = (): string => new Date(Date.now() + 86_400_000).toISOString();

function postsBody(channelId: string, settings: Record<string, unknown>, contents: string[]): unknown {
  return {
    type: 'schedule', date: inADay(),
    posts: [{ integration: { id: channelId }, settings, value: contents.map((content) => ({ content })) }],
  };
}

/** Settings fill their own cap (256 KB), less room for the keys. */
const settingsBytes = postLimits.settings.maxBytes - 8 * 1024;
/** The text beside slow settings: over most limits, small beside the settings. */
const besideSettingsBytes = 16 * 1024;
/** Text within a limit is stored: a large one costs the database, not the rules, more. */
const withinBytes = 256 * 1024;

/** For each way of counting, the platform with the largest limit: its count runs longest. */
function countingLeaders(platforms: readonly PlatformDefinition[]): Set<string> {
  const leaders = new Map<string, PlatformDefinition>();
  for (const platform of platforms) {
    const leader = leaders.get(platform.textCounting);
    if (leader === undefined || platform.textLimit > leader.textLimit) leaders.set(platform.textCounting, platform);
  }
  return new Set([...leaders.values()].map((platform) => platform.identifier));
}

/**
 * Every platform's text rules, with each kind of slow text: every free-text setting (titles,
 * tags, names) slow, filling the settings' cap, beside a text over most limits; the field budget of
 * text where it is counted longest (per way of counting, the platform with the largest limit),
 * refused for its missing settings once counted, so nothing that large is stored; and the text
 * within the platform's limit with valid settings, so its own rules after the schema run and
 * the post is stored. Within limits too short for any rule to take long (under 16 KB of text)
 * one kind stands for all, the platforms taking turns.
 */
export function platformCases(
  posts: RouteTemplate,
  platforms: readonly PlatformDefinition[],
  channels: ReadonlyMap<string, string>,
): StallCase[] {
  const leaders = countingLeaders(platforms);
  return platforms.flatMap((platform, index) => {
    const channelId = channels.get(platform.identifier);
    if (channelId === undefined) throw new Error(`no channel of ${platform.identifier} to post to`);
    const group = `POST /posts to ${platform.identifier}`;
    const stallCase = (name: string, fullBytes: number, build: StallCase['build']): StallCase => ({
      group, name, answer: 'json', designedServerErrors: [], fullBytes, build,
    });
    const send = (body: unknown) => renderTemplate({ ...posts.template, body: { kind: 'json', value: body } });
    const settings = slowTextKinds.map((kind) => stallCase(`every setting slow: ${kind}`, settingsBytes, (bytes) => (
      send(postsBody(channelId, slowSettings(platform, kind, bytes), [slowText(kind, besideSettingsBytes, 'json')]))
    )));
    const counted = !leaders.has(platform.identifier) ? [] : slowTextKinds.map((kind) => stallCase(
      `text of the field budget, counted ${platform.textCounting}: ${kind}`, fieldBudget,
      (bytes) => send(postsBody(channelId, {}, [slowText(kind, bytes, 'json')])),
    ));
    // Sized in UTF-16 units under a quarter of the limit: within it however the platform counts.
    const within = Math.min(withinBytes, Math.floor(platform.textLimit / 4));
    const withinKinds = within >= 16 * 1024 ? slowTextKinds : [kindAt(index)];
    const inside = withinKinds.map((kind) => stallCase(`text within the limit: ${kind}`, within, (bytes) => send(
      postsBody(channelId, validSettings[platform.identifier] ?? {}, [slowText(kind, Math.min(bytes, within), 'json')]),
    )));
    return [...settings, ...counted, ...inside];
  });
}
