import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { CliError } from './cli-error.ts';
import { terminal } from './terminal.ts';

/** What `auth:login` stores (spec: `~/.service/credentials.json`). */
export const storedCredentialsSchema = z.object({
  accessToken: z.string().min(1),
  apiUrl: z.string().min(1),
  organizationId: z.string(),
});
export type StoredCredentials = z.infer<typeof storedCredentialsSchema>;

export function credentialsFolder(): string {
  return path.join(terminal().home, '.service');
}

export function credentialsFile(): string {
  return path.join(credentialsFolder(), 'credentials.json');
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/** The stored credentials, or null when there are none. A damaged file is an error, not "none". */
export async function readStoredCredentials(): Promise<StoredCredentials | null> {
  const file = credentialsFile();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return null;
    throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not valid JSON; run \`sps auth:logout\` and \`sps auth:login\` again`);
  }
  const result = storedCredentialsSchema.safeParse(parsed);
  if (!result.success) throw new CliError(`${file} does not hold {accessToken, apiUrl, organizationId}; run \`sps auth:logout\` and \`sps auth:login\` again`);
  return result.data;
}

/** Written readable by the user only (0600) in a folder only they can open (0700), replaced in one step. */
export async function saveCredentials(credentials: StoredCredentials): Promise<string> {
  const folder = credentialsFolder();
  const file = credentialsFile();
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(folder, 0o700);
  const temporary = path.join(folder, `.credentials-${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
  return file;
}

/** Removes the stored credentials; true when there was a file to remove. */
export async function removeStoredCredentials(): Promise<boolean> {
  const file = credentialsFile();
  try {
    await rm(file);
    return true;
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return false;
    throw error;
  }
}
