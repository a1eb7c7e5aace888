import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { PlatformError } from './platform-error.ts';
import { parseInput } from './parse-input.ts';

describe('parseInput', () => {
  const schema = z.object({ title: z.string().min(1), tags: z.array(z.string()).max(1).optional() });

  it('answers the parsed value', () => {
    expect(parseInput('devto', 'Dev.to settings', schema, { title: 'T', extra: 1 })).toEqual({ title: 'T' });
  });

  it('refuses as permanent, naming every problem', () => {
    let caught: unknown;
    try {
      parseInput('devto', 'Dev.to settings', schema, { title: '', tags: ['a', 'b'] });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PlatformError);
    expect(caught).toMatchObject({ kind: 'permanent', provider: 'devto' });
    expect((caught as Error).message).toMatch(/^Dev\.to settings: title: .+; tags: .+$/);
    expect(() => parseInput('devto', 'tags tool', schema, 'nope')).toThrow(/^tags tool: data: /);
  });
});
