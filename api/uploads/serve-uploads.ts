import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import Router from '@koa/router';
import type { AppState } from '../context.ts';
import { notFound } from '../../shared/errors.ts';
import { contentTypeForExtension } from '../../shared/media/media-types.ts';
import type { LocalDiskStorage } from '../../shared/storage/local-disk-storage.ts';
import { trailingSlashes } from '../../shared/net/trailing-slashes.ts';

/** `bytes=start-end`, `bytes=start-` or `bytes=-suffix`; anything else (several ranges) is served whole. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  let start: number;
  let end: number;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/**
 * Serves local-disk uploads at their public path: byte ranges (video players seek), a year of
 * caching (keys are random and never reused), and nosniff so a browser never runs a file as
 * something else. Only keys SPS makes are accepted, so no path can leave the uploads folder.
 */
export function uploadsRouter(storage: LocalDiskStorage, basePath: string): Router<AppState> {
  const router = new Router<AppState>();
  router.get(`${basePath.replace(trailingSlashes, '')}/:year/:month/:day/:file`, async (ctx) => {
    const { year = '', month = '', day = '', file: name = '' } = ctx.params;
    const key = `${year}/${month}/${day}/${name}`;
    const file = storage.fileFor(key);
    const type = contentTypeForExtension(name.split('.').at(-1) ?? '');
    if (file === null || type === undefined) throw notFound(`file ${key}`);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(`file ${key}`);
      throw error;
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('Accept-Ranges', 'bytes');
    ctx.type = type;
    const range = parseRange(ctx.get('Range') || undefined, size);
    if (range === 'unsatisfiable') {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${size}`);
      ctx.body = { statusCode: 416, error: 'range_not_satisfiable', message: `the file has ${size} bytes` };
      return;
    }
    if (range === null) {
      ctx.length = size;
      ctx.body = createReadStream(file);
      return;
    }
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
    ctx.length = range.end - range.start + 1;
    ctx.body = createReadStream(file, { start: range.start, end: range.end });
  });
  return router;
}
