import { validatePosts, type PostProblem } from '../../../shared/domain/posts/validate-posts.ts';
import type { CheckPostsDeps } from '../../../shared/domain/posts/check-posts.ts';
import { partLengths, type PartLength } from '../../../shared/platforms/part-lengths.ts';
import { sentence } from '../html-errors.ts';
import type { Translate } from '../i18n/translate.ts';
import type { ComposerChannel } from './composer-channels.ts';
import type { ComposerForm } from './composer-form.ts';
import type { ComposerMedia } from './composer-media.ts';
import { previewParts } from './preview-parts.ts';
import type { MediaFacts } from '../../../shared/platforms/kit/platform-definition.ts';
import { channelTiming } from './channel-timing.ts';
import type { ComposerRequests } from './composer-request.ts';

/** What one chosen channel makes of the post: each part counted as its platform counts, its problems. */
export interface ChannelReport {
  channel: ComposerChannel;
  lengths: PartLength[];
  /** When it would be published, in the channel's time zone. */
  timing: string;
  /** Problems of the channel's post as a whole (settings, media, the platform's own rules). */
  problems: string[];
}

/** Everything the composer shows before sending, in the words POST /posts would refuse with. */
export interface ComposerReport {
  channels: ChannelReport[];
  /** Per part index, the problems POST /posts would name at that part, on any channel. */
  parts: Map<number, string[]>;
  /** Per channel id and setting key, the problems of that setting (shown beside its field). */
  settings: Map<string, Map<string, string[]>>;
  picker: string[];
  schedule: string[];
  media: string[];
  /** True when sending would be accepted as it stands. */
  valid: boolean;
}

/** `posts.2.settings.langs.0`: the setting a problem concerns. */
const settingPath = /^posts\.\d+\.settings\.([^.]+)/;

/**
 * A channel's rules as POST /posts applies them: the account's own text limit in place of the
 * platform's, and the part's media, on which a limit may depend (TikTok's caption or description).
 */
function lengthsOf(channel: ComposerChannel, parts: string[], media: MediaFacts[][]): PartLength[] {
  const rules = channel.textLimit === null ? channel.platform : { ...channel.platform, textLimit: channel.textLimit };
  return partLengths(rules, parts.map((text, index) => ({ text, media: media[index] ?? [] })));
}

/** Adds a message once: several channels of one platform may refuse a part in the same words. */
function pushOnce(list: string[], message: string): void {
  if (!list.includes(message)) list.push(message);
}

function add<K>(map: Map<K, string[]>, key: K, message: string): void {
  const list = map.get(key) ?? [];
  pushOnce(list, message);
  map.set(key, list);
}

/**
 * Runs POST /posts's own checks as a dry run (validatePosts: the code POST /posts/validate
 * answers with) on every body the form makes, and places each problem where it belongs: at the
 * part its path names, on its channel, or at the schedule.
 */
export async function checkComposer(
  deps: CheckPostsDeps,
  organizationId: string,
  form: ComposerForm,
  made: ComposerRequests,
  library: readonly ComposerMedia[],
  t: Translate,
): Promise<ComposerReport> {
  const parts = new Map<number, string[]>();
  const settings = new Map<string, Map<string, string[]>>();
  const byChannel = new Map<string, string[]>();
  const schedule = [...made.schedule];
  const picker = [...made.picker];
  const results = await Promise.all(made.requests.map((request) => validatePosts(deps, organizationId, request.input)));
  results.forEach((result, index) => {
    const request = made.requests[index];
    if (request === undefined) return;
    for (const problem of result.problems) place(problem, request.channels);
  });

  function place(problem: PostProblem, channels: ComposerChannel[]): void {
    const message = sentence(problem.message);
    const channel = problem.post === null ? undefined : channels[problem.post];
    const setting = settingPath.exec(problem.path)?.[1];
    if (channel === undefined) {
      // The composer words a missing date itself; other problems of the request go by the schedule.
      if (problem.path !== 'date' || schedule.length === 0) pushOnce(schedule, message);
      return;
    }
    if (problem.path.endsWith('.integration.id')) pushOnce(picker, `${channel.name}: ${message}`);
    else if (setting !== undefined) {
      const ofChannel = settings.get(channel.id) ?? new Map<string, string[]>();
      add(ofChannel, setting, message);
      settings.set(channel.id, ofChannel);
    } else if (problem.part !== null) add(parts, problem.part, message);
    else add(byChannel, channel.id, message);
  }

  const chosen = made.requests.flatMap((request) => request.channels.map((channel) => ({ channel, request })));
  // What the limits read of each part's media: their kind and type, as the library knows them.
  const mediaFacts = previewParts(form, library).map((part) => part.media.map((item): MediaFacts => ({
    kind: item.kind, mimeType: item.mimeType, width: null, height: null, durationSeconds: null, sizeBytes: null,
  })));
  const now = deps.now();
  const channels = await Promise.all(chosen.map(async ({ channel, request }) => ({
    channel,
    lengths: lengthsOf(channel, form.part, mediaFacts),
    timing: await channelTiming(deps.db, organizationId, channel, request, now, t),
    problems: byChannel.get(channel.id) ?? [],
  })));
  const valid = parts.size === 0 && byChannel.size === 0 && settings.size === 0 && picker.length === 0
    && schedule.length === 0 && made.media.length === 0 && chosen.length > 0;
  return { channels, parts, settings, picker, schedule, media: made.media, valid };
}
