import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Context } from 'koa';

/** A file the dashboard serves itself: vendored from node_modules or our own (no CDN, ever). */
interface AssetSource {
  /** The name in the URL, which also gives its type by extension. */
  name: string;
  /** Absolute path of the file, read once when this module loads. */
  file: string;
}

const require = createRequire(import.meta.url);
const own = (name: string): string => new URL(`./static/${name}`, import.meta.url).pathname;

/** FullCalendar's standard bundle: its package exports no path to it, so it is found beside package.json. */
const fullCalendarBundle = require.resolve('fullcalendar/package.json')
  .replace(/package\.json$/, 'index.global.min.js');

/**
 * Every static file of the dashboard. Adding one is one line: a vendored package's file through
 * `require.resolve`, or a file of our own beside this one.
 */
const sources: readonly AssetSource[] = [
  { name: 'htmx.min.js', file: require.resolve('htmx.org/dist/htmx.min.js') },
  { name: 'dashboard.css', file: own('dashboard.css') },
  { name: 'page-words.js', file: own('page-words.js') },
  { name: 'copy-button.js', file: own('copy-button.js') },
  { name: 'composer-upload.js', file: own('composer-upload.js') },
  { name: 'fullcalendar.min.js', file: fullCalendarBundle },
  { name: 'fullcalendar-de.min.js', file: require.resolve('@fullcalendar/core/locales/de.global.min.js') },
  { name: 'calendar.js', file: own('calendar.js') },
  { name: 'media-upload.js', file: own('media-upload.js') },
];

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface LoadedAsset {
  body: Buffer;
  type: string;
  /** `/assets/<hash>/<name>`: a new content gives a new URL, so the old one may be cached for ever. */
  path: string;
}

function load(source: AssetSource): LoadedAsset {
  const body = readFileSync(source.file);
  const extension = /\.[a-z]+$/.exec(source.name)?.[0] ?? '';
  const type = types[extension];
  if (type === undefined) throw new Error(`dashboard asset ${source.name}: no content type for "${extension}"`);
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { body, type, path: `/assets/${hash}/${source.name}` };
}

// Read at start: a missing file stops the api at boot rather than failing a page later.
const byName = new Map(sources.map((source) => [source.name, load(source)]));
const byPath = new Map([...byName.values()].map((asset) => [asset.path, asset]));

/** The URL a page links to; throws for a name not listed above (a typo in our own code). */
export function assetPath(name: string): string {
  const asset = byName.get(name);
  if (asset === undefined) throw new Error(`no dashboard asset named ${name}`);
  return asset.path;
}

/** Answers GET and HEAD of a listed asset's URL; false for any other request. */
export function serveAsset(ctx: Context): boolean {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return false;
  const asset = byPath.get(ctx.path);
  if (asset === undefined) return false;
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  ctx.body = asset.body;
  return true;
}
