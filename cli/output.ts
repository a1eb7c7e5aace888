import { terminal } from './terminal.ts';

/** Results go to stdout as JSON (for jq and scripts); everything meant for a person goes to stderr. */
export function printJson(value: unknown): void {
  terminal().stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function say(line: string): void {
  terminal().stderr.write(`${line}\n`);
}
