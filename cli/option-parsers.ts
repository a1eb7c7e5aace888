import { InvalidArgumentError } from 'commander';

/** For repeatable options: each use adds one value. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A JSON object given on the command line (`--data`, `--settings`, `--params`). */
export function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new InvalidArgumentError(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidArgumentError('expected a JSON object, like \'{"key": "value"}\'');
  return parsed as Record<string, unknown>;
}

/** A count such as `--page 2` or `--days 30`, kept as the string sent in the query. */
export function wholeNumber(value: string): string {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return value;
}
