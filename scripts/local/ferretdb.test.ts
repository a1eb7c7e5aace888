import { describe, expect, it } from 'vitest';
import { ferretDbEnvironment } from './ferretdb.ts';

describe("FerretDB's environment", () => {
  it('lets the Go heap grow 4x between collections unless GOGC is set', () => {
    expect(ferretDbEnvironment({ PATH: '/usr/bin' })).toEqual({ PATH: '/usr/bin', GOGC: '400' });
    expect(ferretDbEnvironment({ GOGC: '100' }).GOGC).toBe('100');
  });
});
