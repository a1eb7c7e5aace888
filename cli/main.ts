import { describeFailure } from './cli-error.ts';
import { buildProgram } from './program.ts';

/** Runs one command; any failure is printed on stderr and the exit code is 1. */
async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    for (const line of describeFailure(error)) process.stderr.write(`${line}\n`);
    process.exitCode = 1;
  }
}

await main(process.argv);
