import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import { CliError } from './cli-error.ts';

export const postTypes = ['draft', 'schedule', 'now', 'queue'] as const;
export type PostType = (typeof postTypes)[number];

export interface MediaReference {
  id: string;
  path: string;
}

/** The flags of `posts:create` as commander hands them over. */
export interface PostFlags {
  channel?: string[];
  content?: string[];
  media?: MediaReference[];
  type?: PostType;
  date?: string;
  settings?: Record<string, unknown>;
  file?: string;
}

/** `--media <id>:<path>`: split at the first colon, since the path is often an https URL. */
export function mediaReference(value: string, previous: MediaReference[] | undefined): MediaReference[] {
  const colon = value.indexOf(':');
  const id = colon < 0 ? '' : value.slice(0, colon).trim();
  const path = colon < 0 ? '' : value.slice(colon + 1).trim();
  if (id === '' || path === '') throw new InvalidArgumentError('expected <id>:<path>, the id and path an upload returned');
  return [...(previous ?? []), { id, path }];
}

/** The contract's create-post body from flags: one entry per channel, the contents as thread parts. */
export function postBodyFromFlags(flags: PostFlags): Record<string, unknown> {
  const channels = flags.channel ?? [];
  const media = flags.media ?? [];
  const texts = flags.content ?? [];
  if (channels.length === 0) throw new CliError('name at least one channel with --channel <id> (see `sps integrations:list`)');
  if (texts.length === 0 && media.length === 0) throw new CliError('give the text with --content <text> (repeat it for thread parts), or attach --media');
  const contents = texts.length === 0 ? [''] : texts;
  const value = contents.map((content, index) => ({ content, image: index === 0 ? media : [] }));
  return {
    type: flags.type ?? 'now',
    ...(flags.date === undefined ? {} : { date: flags.date }),
    posts: channels.map((id) => ({
      integration: { id },
      ...(flags.settings === undefined ? {} : { settings: flags.settings }),
      value,
    })),
  };
}

/** The whole body from a JSON file (`--file post.json`), sent as written. */
export async function postBodyFromFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new CliError(`${file} must hold a JSON object: {type, date?, posts: [...]}`);
  return parsed as Record<string, unknown>;
}

export async function postBody(flags: PostFlags): Promise<Record<string, unknown>> {
  if (flags.file === undefined) return postBodyFromFlags(flags);
  const mixed = flags.channel !== undefined || flags.content !== undefined || flags.media !== undefined || flags.type !== undefined || flags.date !== undefined || flags.settings !== undefined;
  if (mixed) throw new CliError('--file holds the whole post: leave out --channel, --content, --media, --type, --date and --settings');
  return postBodyFromFile(flags.file);
}
