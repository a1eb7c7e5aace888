import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Logs `lines` info lines to stdout from a child process, then leaves as `exit` says; returns its stdout. */
function logThenLeave(lines: number, exit: 'process.exit' | 'throw'): string {
  const module = path.join(import.meta.dirname, 'logger.ts');
  const leave = exit === 'throw' ? "throw new Error('crash after logging')" : 'process.exit(3)';
  const script = `const { createLogger } = await import(${JSON.stringify(module)});` +
    "const logger = createLogger({ name: 'probe', level: 'info', asynchronous: true });" +
    `for (let index = 0; index < ${lines}; index += 1) logger.info({ index }, 'line');` +
    leave;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return child.stdout;
}

describe("the workers' asynchronous stdout logger", () => {
  it('writes every line logged before process.exit', () => {
    const output = logThenLeave(2_000, 'process.exit').trim().split('\n');
    expect(output).toHaveLength(2_000);
    expect(JSON.parse(output.at(-1) ?? '{}')).toMatchObject({ name: 'probe', index: 1_999, msg: 'line' });
  });

  it('writes every line logged before an uncaught exception', () => {
    expect(logThenLeave(2_000, 'throw').trim().split('\n')).toHaveLength(2_000);
  });
});
