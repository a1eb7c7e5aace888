import { afterAll, beforeAll } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { startStack, type RunningStack } from './stack.ts';
import { createTestContext, type TestContext } from './test-context.ts';
import { removeTemporaryFolders, runCli, temporaryHome, type CliRun } from '../../cli/test/run-cli.ts';

/** What a CLI test file works with: the api, its organization and `sps` run against both. */
export interface CliAgainstApi {
  readonly ctx: TestContext;
  readonly stack: RunningStack;
  readonly organizationId: string;
  readonly apiKey: string;
  /** Runs `sps` with the organization's key (or `key`) against the api, in a home of its own. */
  readonly sps: (args: string[], key?: string) => Promise<CliRun>;
}

/**
 * Starts, for the calling test file, a test context and an api without workers, with one
 * organization named `organizationName`, and stops them after the file's tests. Fields are read
 * once beforeAll has run (inside hooks and tests).
 */
export function useCliAgainstApi(organizationName: string): CliAgainstApi {
  const home = temporaryHome();
  let state: Omit<CliAgainstApi, 'sps'> | undefined;
  const started = (): Omit<CliAgainstApi, 'sps'> => {
    if (state === undefined) throw new Error('the api is not started yet: read it inside a hook or a test');
    return state;
  };
  beforeAll(async () => {
    const ctx = await createTestContext();
    const stack = await startStack(ctx, { workers: false });
    const { organizationId, apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: organizationName });
    state = { ctx, stack, organizationId, apiKey };
  });
  afterAll(async () => {
    if (state !== undefined) {
      await state.stack.close();
      await state.ctx.cleanup();
    }
    removeTemporaryFolders();
  });
  return {
    get ctx() { return started().ctx; },
    get stack() { return started().stack; },
    get organizationId() { return started().organizationId; },
    get apiKey() { return started().apiKey; },
    sps: (args, key) => runCli(args, {
      home, env: { SERVICE_API_KEY: key ?? started().apiKey, SERVICE_API_URL: `${started().stack.baseUrl}/api` },
    }),
  };
}
