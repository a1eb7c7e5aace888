import { afterAll, beforeAll } from 'vitest';
import { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import { startStack, type RunningStack } from './stack.ts';
import { createTestContext, type TestContext } from './test-context.ts';

/**
 * The usual world of an API or CLI test file: a Mastodon simulator, this file's test context,
 * and the api (with workers unless told otherwise) running in-process.
 */
export class SimulatedStack {
  readonly simulator = new MastodonSimulator();
  #ctx: TestContext | null = null;
  #stack: RunningStack | null = null;

  get ctx(): TestContext {
    if (this.#ctx === null) throw new Error('the simulated stack is used before beforeAll started it');
    return this.#ctx;
  }

  get stack(): RunningStack {
    if (this.#stack === null) throw new Error('the simulated stack is used before beforeAll started it');
    return this.#stack;
  }

  async start(options: { overrides?: Record<string, string>; workers?: boolean }): Promise<void> {
    await this.simulator.start();
    this.#ctx = await createTestContext(options.overrides);
    this.#stack = await startStack(this.#ctx, { workers: options.workers ?? true });
  }

  async stop(): Promise<void> {
    await this.#stack?.close();
    await this.#ctx?.cleanup();
    await this.simulator.stop();
  }
}

/** Registers the hooks that start the world before the file's tests and stop it after them. */
export function useSimulatedStack(options: { overrides?: Record<string, string>; workers?: boolean } = {}): SimulatedStack {
  const world = new SimulatedStack();
  beforeAll(() => world.start(options));
  afterAll(() => world.stop());
  return world;
}
