import { describe, expect, it } from 'vitest';
import { runScript } from '../test/support/processes.ts';

describe('api start-up', () => {
  it('stops with a message naming each wrong variable', async () => {
    const result = await runScript('api/main.ts', [], { PATH: process.env.PATH, SECRETS_KEY: 'nope', PORT: 'http', MONGO_URL: 'postgres://x' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Invalid configuration/);
    expect(result.stderr).toMatch(/SECRETS_KEY: must be 64 hexadecimal characters/);
    expect(result.stderr).toMatch(/PORT: .*"http"/);
    expect(result.stderr).toMatch(/MONGO_URL: must be a mongodb:\/\//);
  });
});
