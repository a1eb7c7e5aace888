import { CommanderError } from 'commander';
import { describeFailure } from './cli-error.ts';
import { buildProgram } from './program.ts';
import { withTerminal, type Terminal } from './terminal.ts';

/**
 * Runs one `sps` command (`args` as typed after `sps`) with `terminal`'s streams, environment and
 * home, and answers its exit code. Any failure is printed on stderr and the code is 1. Never ends
 * the process: commander's usage errors and `--help` come back as its codes too.
 */
export function runCommandLine(args: string[], terminal: Terminal): Promise<number> {
  return withTerminal(terminal, async () => {
    try {
      await buildProgram(terminal).parseAsync(args, { from: 'user' });
    } catch (error) {
      // Commander printed its message (or the help) already; its code says whether that was a failure.
      if (error instanceof CommanderError) terminal.exitCode = error.exitCode;
      else {
        for (const line of describeFailure(error)) terminal.stderr.write(`${line}\n`);
        terminal.exitCode = 1;
      }
    }
    return terminal.exitCode;
  });
}
