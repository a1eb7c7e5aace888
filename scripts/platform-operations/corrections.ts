import type { Correction } from '../../test/simulators/kit/operation-file.ts';

/**
 * Applies a platform's documented corrections to its derived operations. A correction whose
 * place is gone (the description changed under it) fails the derivation, so no fix outlives
 * the quirk it fixed. Operations are addressed by route: `operations.POST /api/articles.body`.
 */
type Tree = Record<string, unknown>;

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null;
}

function segmentsOf(at: string | string[]): string[] {
  if (Array.isArray(at)) return [...at];
  // A route holds a space and slashes but no dots, so it is one segment of its own.
  const route = /^operations\.((?:GET|POST|PUT|PATCH|DELETE) [^.]+)(?:\.(.*))?$/.exec(at);
  if (route !== null) return ['operations', route[1] ?? '', ...(route[2] === undefined ? [] : route[2].split('.'))];
  return at.split('.');
}

function child(parent: unknown, key: string): unknown {
  if (Array.isArray(parent) && key.includes(' ')) {
    return parent.find((entry) => isTree(entry) && entry.route === key);
  }
  return isTree(parent) ? parent[key] : undefined;
}

export function applyCorrections(document: Tree, corrections: Correction[]): void {
  for (const fix of corrections) {
    const segments = segmentsOf(fix.at);
    const last = segments.pop() ?? '';
    let parent: unknown = document;
    for (const segment of segments) parent = child(parent, segment);
    const place = segmentsOf(fix.at).join(' > ');
    if (!isTree(parent) || Array.isArray(parent)) throw new Error(`correction ${place}: no such place`);
    if (fix.remove === true) {
      if (!(last in parent)) throw new Error(`correction ${place}: nothing to remove`);
      Reflect.deleteProperty(parent, last);
    } else {
      parent[last] = fix.set;
    }
  }
}
