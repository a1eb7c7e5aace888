import { DomainError } from '../errors.ts';

/**
 * Free-form JSON that callers send (post settings, tool input) ends up in a MongoDB document or
 * a Redis job. MongoDB refuses nesting past 100 levels, keys starting with `$` or holding `.` or
 * NUL, and documents over 16 MB; FerretDB (our embedded default) stores no array directly inside
 * another array; JSON.stringify and the BSON encoder recurse and overflow the
 * stack on deep nesting. This walk finds all of that without recursing itself, so a caller gets
 * a 400 naming the place instead of a 500.
 */
export interface JsonShapeLimits {
  /** Levels of objects and arrays below the checked object itself. */
  maxDepth: number;
  /** Roughly the stored size: keys, strings and 8 bytes per other value. */
  maxBytes: number;
}

export type JsonShapeProblem = { path: string; message: string };

export interface JsonShape {
  bytes: number;
  problem: JsonShapeProblem | null;
}

/** Keys MongoDB reads as operators or paths, or cannot store at all. */
function keyProblem(key: string): string | null {
  if (key.startsWith('$')) return 'a key cannot start with "$"';
  if (key.includes('.')) return 'a key cannot contain "."';
  if (key.includes('\u0000')) return 'a key cannot contain a NUL character';
  if (key.length > 200) return 'a key can be at most 200 characters long';
  return null;
}

const pathOf = (parts: readonly (string | number)[]): string => parts.map(String).join('.');

/** Measures `value` and reports the first place that breaks the limits, if any. */
export function measureJson(value: unknown, limits: JsonShapeLimits): JsonShape {
  let bytes = 0;
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path } = next;
    if (typeof current === 'string') {
      bytes += Buffer.byteLength(current);
    } else if (typeof current === 'number' && !Number.isFinite(current)) {
      // JSON.parse turns 1e999 into Infinity, which the database refuses to store.
      return { bytes, problem: { path: pathOf(path), message: 'a number must be finite' } };
    } else if (Array.isArray(current) || (typeof current === 'object' && current !== null)) {
      // The top object is level 0; each object or array inside it is one level deeper.
      if (path.length > limits.maxDepth) {
        return { bytes, problem: { path: pathOf(path), message: `nested more than ${limits.maxDepth} levels deep` } };
      }
      if (Array.isArray(current) && current.some((item) => Array.isArray(item))) {
        const at = current.findIndex((item) => Array.isArray(item));
        const message = 'an array cannot hold another array directly; wrap the inner one in an object';
        return { bytes, problem: { path: pathOf([...path, at]), message } };
      }
      const entries: [string | number, unknown][] = Array.isArray(current)
        ? current.map((item, index) => [index, item])
        : Object.entries(current);
      for (const [key, item] of entries) {
        if (typeof key === 'string') {
          const problem = keyProblem(key);
          if (problem !== null) return { bytes, problem: { path: pathOf([...path, key]), message: problem } };
          bytes += Buffer.byteLength(key);
        }
        pending.push({ value: item, path: [...path, key] });
      }
    } else {
      bytes += 8;
    }
    // The size is the whole value's: reported at its top, not where the count happened to cross.
    if (bytes > limits.maxBytes) {
      return { bytes, problem: { path: '', message: `larger than ${Math.round(limits.maxBytes / 1024)} KB` } };
    }
  }
  return { bytes, problem: null };
}

/** A place in a value, linked to its parent: no path is copied while walking 100 000 levels. */
interface Place { key: string | number; parent: Place | null }

function placePath(place: Place | null): string {
  const keys: (string | number)[] = [];
  for (let current = place; current !== null; current = current.parent) keys.unshift(current.key);
  return pathOf(keys);
}

/**
 * Where a NUL character sits in a value (a key or a string), or null. PostgreSQL, under the
 * FerretDB backend, can neither store nor search text holding one, so it is refused at the door.
 */
export function nulCharacterPath(value: unknown): string | null {
  const pending: { value: unknown; place: Place | null }[] = [{ value, place: null }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, place } = next;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return placePath(place);
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => { pending.push({ value: item, place: { key: index, parent: place } }); });
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes('\u0000')) return placePath({ key, parent: place });
        pending.push({ value: item, place: { key, parent: place } });
      }
    }
  }
  return null;
}

/** Refuses a request value (body, form, query, path parameters) holding a NUL character, with a 400. */
export function refuseNulCharacters(value: unknown, where: string): void {
  const path = nulCharacterPath(value);
  if (path === null) return;
  const place = path === '' ? where : path;
  throw new DomainError('validation_failed', `${place}: text cannot contain the NUL character (\\u0000)`, [
    { path: place, message: 'contains a NUL character' },
  ]);
}
