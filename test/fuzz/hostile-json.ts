import type { Random } from './seeded-random.ts';

/**
 * A JSON document as the fuzzer edits it: objects keep their entries as a list, so a key can
 * appear twice, and `raw` nodes are written byte for byte (invalid UTF-8, `1e999`, a nesting
 * 100 000 levels deep that the test process itself could not build as a value).
 */
export type JsonNode =
  | { kind: 'scalar'; value: null | boolean | number | string }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'object'; entries: { key: string; value: JsonNode }[] }
  | { kind: 'raw'; bytes: Buffer };

export function toNode(value: unknown): JsonNode {
  if (Array.isArray(value)) return { kind: 'array', items: value.map(toNode) };
  if (typeof value === 'object' && value !== null) {
    return { kind: 'object', entries: Object.entries(value).map(([key, item]) => ({ key, value: toNode(item) })) };
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return { kind: 'scalar', value };
  }
  throw new Error(`not JSON: ${typeof value}`);
}

export function serialiseNode(node: JsonNode): Buffer {
  const out: Buffer[] = [];
  const write = (current: JsonNode): void => {
    switch (current.kind) {
      case 'scalar': out.push(Buffer.from(JSON.stringify(current.value))); break;
      case 'raw': out.push(current.bytes); break;
      case 'array':
        out.push(Buffer.from('['));
        current.items.forEach((item, index) => { if (index > 0) out.push(Buffer.from(',')); write(item); });
        out.push(Buffer.from(']'));
        break;
      case 'object':
        out.push(Buffer.from('{'));
        current.entries.forEach((entry, index) => {
          if (index > 0) out.push(Buffer.from(','));
          out.push(Buffer.from(`${JSON.stringify(entry.key)}:`));
          write(entry.value);
        });
        out.push(Buffer.from('}'));
        break;
    }
  };
  write(node);
  return Buffer.concat(out);
}

const raw = (text: string | Buffer): JsonNode => ({
  kind: 'raw', bytes: typeof text === 'string' ? Buffer.from(text) : text,
});
const scalar = (value: null | boolean | number | string): JsonNode => ({ kind: 'scalar', value });

/** Sizes a huge string is drawn from: past field limits, and past the 1 MB body cap. */
const hugeSizes = [300, 5_000, 120_000, 1_100_000] as const;
/** Past MongoDB's 16 MB document: sent only to routes whose body cap lets it through. */
export const documentBreakingSize = 17 * 1024 * 1024;

/** What the generators may produce for one route. */
export interface JsonBudget {
  /** The longest string worth sending: past the route's body cap is pointless and slow. */
  largestString: number;
}

export function hugeString(random: Random, budget: JsonBudget = { largestString: hugeSizes[3] }): string {
  const size = random.pick(hugeSizes.filter((candidate) => candidate <= budget.largestString));
  return random.pick(['x', 'é', '💥', '<', '\\', '%']).repeat(Math.ceil(size / 2));
}

/** Nesting from a little past MongoDB's 100 levels to far past what a recursive parser survives. */
export function deepNesting(random: Random): JsonNode {
  const depth = random.pick([20, 101, 150, 1_000, 20_000, 200_000]);
  if (random.chance(0.5)) return raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
  return raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
}

/** A string holding bytes that are not UTF-8, written inside quotes. */
export function invalidUtf8String(random: Random): JsonNode {
  const junk = random.pick([
    [0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80, 0x80, 0x80],
    [0xc0, 0xaf],
  ]);
  return raw(Buffer.concat([Buffer.from('"a'), Buffer.from(junk), Buffer.from('b"')]));
}

/** Keys that mean something to MongoDB, to JavaScript or to a path parser. */
export const hostileKeys = [
  '__proto__', 'constructor', 'prototype', '$where', '$set', '$gt', 'a.b', '.', '$', '', ' ', '\u0000', 'k\u0000ey',
  '💥', 'x'.repeat(5000), 'toString', 'hasOwnProperty',
] as const;

/** Values of the wrong type, or of the right type at the edge of sense. */
export function wrongValue(
  random: Random,
  reference: { channelId: string; mediaId: string },
  budget?: JsonBudget,
): JsonNode {
  const choices: (() => JsonNode)[] = [
    () => scalar(null), () => scalar(true), () => scalar(false), () => scalar(0), () => scalar(-1), () => scalar(1.5),
    () => scalar(2 ** 53 + 2), () => scalar(1e308), () => scalar(-1e308), () => scalar(''), () => scalar(' '),
    () => scalar('\u0000'),
    () => scalar('null'), () => scalar('[object Object]'), () => scalar('2024-02-30T25:61:00Z'),
    () => scalar('9999-12-31T23:59:59Z'),
    () => scalar('0000-01-01'), () => scalar('-271821-04-20T00:00:00Z'), () => scalar('+275760-09-13T00:00:01Z'),
    () => scalar(reference.channelId.toUpperCase()), () => scalar(reference.mediaId.toUpperCase()),
    () => scalar('0'.repeat(24)),
    () => scalar('https://example.com/%E0%A4%A'), () => scalar('https://[::1'), () => scalar('javascript:alert(1)'),
    () => scalar('file:///etc/passwd'),
    () => scalar('\u202e\u0301\ud83d\ude00'), () => raw('"\\ud800"'), () => raw('"\\udfff\\ud800"'), () => raw('1e999'),
    () => raw('-0'),
    () => raw('123456789012345678901234567890'), () => raw('0.0000000000000000000000000000001e-400'),
    () => ({ kind: 'array', items: [] }), () => ({ kind: 'array', items: [scalar(null)] }),
    () => ({ kind: 'object', entries: [] }),
    () => ({ kind: 'object', entries: [{ key: '$gt', value: scalar('') }] }),
    () => ({ kind: 'object', entries: [{ key: '$ne', value: scalar(null) }] }),
    () => ({ kind: 'array', items: Array.from({ length: random.pick([1_000, 100_000]) }, () => scalar(0)) }),
    () => ({
      kind: 'object',
      entries: Array.from(
        { length: random.pick([1_000, 50_000]) },
        (_, index) => ({ key: `k${index}`, value: scalar(index) }),
      ),
    }),
    () => scalar(hugeString(random, budget)), () => deepNesting(random), () => invalidUtf8String(random),
  ];
  return random.pick(choices)();
}

interface Slot { node: JsonNode; replace(next: JsonNode): void }

/** Every place in the document a value sits, the root included. */
function slots(root: { node: JsonNode }): Slot[] {
  const found: Slot[] = [{ node: root.node, replace: (next) => { root.node = next; } }];
  const visit = (node: JsonNode): void => {
    if (node.kind === 'array') {
      node.items.forEach((item, index) => {
        found.push({ node: item, replace: (next) => { node.items[index] = next; } });
        visit(item);
      });
    } else if (node.kind === 'object') {
      for (const entry of node.entries) {
        found.push({ node: entry.value, replace: (next) => { entry.value = next; } });
        visit(entry.value);
      }
    }
  };
  visit(root.node);
  return found;
}

/**
 * Applies one to three mutations to a valid example body: a wrong type somewhere, a huge
 * string (most often where a string belongs, so it gets past the type checks), deep nesting,
 * an invalid UTF-8 string, a duplicated or hostile key (MongoDB operators, dotted, NUL).
 */
export function mutateJson(
  random: Random,
  valid: unknown,
  reference: { channelId: string; mediaId: string },
  budget: JsonBudget,
): { bytes: Buffer; what: string[] } {
  const root = { node: toNode(valid) };
  const what: string[] = [];
  const count = random.between(1, 3);
  for (let step = 0; step < count; step += 1) {
    const all = slots(root);
    const target = random.pick(all);
    const strings = all.filter((slot) => slot.node.kind === 'scalar' && typeof slot.node.value === 'string');
    const objects = all.filter((slot) => slot.node.kind === 'object');
    const roll = random.int(7);
    if (roll === 0) {
      target.replace(wrongValue(random, reference, budget));
      what.push('wrong value');
    } else if (roll === 1) {
      const slot = strings.length > 0 && random.chance(0.8) ? random.pick(strings) : target;
      // Where a string belongs and the cap allows it, a string past MongoDB's document limit.
      const text = budget.largestString >= documentBreakingSize && random.chance(0.15)
        ? 'x'.repeat(documentBreakingSize)
        : hugeString(random, budget);
      slot.replace(scalar(text));
      what.push(`huge string (${text.length} characters)`);
    } else if (roll === 2) {
      target.replace(deepNesting(random));
      what.push('deep nesting');
    } else if (roll === 3) {
      (strings.length > 0 ? random.pick(strings) : target).replace(invalidUtf8String(random));
      what.push('invalid UTF-8');
    } else {
      const object = objects.length > 0 ? random.pick(objects).node : null;
      if (object?.kind !== 'object') {
        target.replace(wrongValue(random, reference, budget));
        what.push('wrong value');
        continue;
      }
      const key = object.entries.length > 0 && random.chance(0.4)
        ? random.pick(object.entries).key
        : random.pick(hostileKeys);
      const value = random.pick([
        () => wrongValue(random, reference, budget), () => deepNesting(random), () => scalar(1), () => toNode(valid),
      ])();
      if (random.chance(0.5)) object.entries.unshift({ key, value });
      else object.entries.push({ key, value });
      what.push(`key ${JSON.stringify(key.slice(0, 12))}`);
    }
  }
  let bytes = serialiseNode(root.node);
  if (random.chance(0.05)) {
    bytes = bytes.subarray(0, random.int(bytes.length));
    what.push('truncated');
  }
  return { bytes, what };
}

/** Whole bodies that are not the JSON object a route expects. */
export function wholeBodyJunk(random: Random): { bytes: Buffer; what: string } {
  const options: [string, () => Buffer][] = [
    ['empty', () => Buffer.alloc(0)],
    ['whitespace', () => Buffer.from(' \n\t ')],
    ['BOM', () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')])],
    ['UTF-16', () => Buffer.from('{"a":1}', 'utf16le')],
    ['array', () => Buffer.from('[]')],
    ['string', () => Buffer.from('"text"')],
    ['number', () => Buffer.from('1e999')],
    ['null', () => Buffer.from('null')],
    ['NUL bytes', () => Buffer.alloc(64)],
    ['binary', () => Buffer.from(Array.from({ length: 512 }, (_, index) => (index * 37) % 256))],
    ['form', () => Buffer.from('a=1&b=2')],
    ['prototype', () => Buffer.from('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}')],
  ];
  const [what, make] = random.pick(options);
  return { bytes: make(), what };
}
