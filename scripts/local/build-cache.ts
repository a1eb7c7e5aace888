import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The folder where SPS keeps the servers it builds or installs for itself: FerretDB for `npm start`,
 * and for the tests the S3 server, the Nostr relay, listmonk and the Bluesky PDS. One per user
 * (`$XDG_CACHE_HOME/sps`, by default `~/.cache/sps`), as Go and npm keep theirs: every checkout and
 * worktree of the project shares the builds instead of spending minutes on its own first run. Each
 * build is named by what it was made from (a version, a recipe or a hash of its sources), so
 * checkouts at different commits keep different builds side by side. `SPS_BUILD_CACHE` names
 * another folder.
 */
export function buildCacheDir(): string {
  const named = process.env.SPS_BUILD_CACHE;
  if (named !== undefined && named !== '') return path.resolve(named);
  const cacheHome = process.env.XDG_CACHE_HOME;
  return path.join(cacheHome !== undefined && cacheHome !== '' ? cacheHome : path.join(homedir(), '.cache'), 'sps');
}

/** A path inside the build cache. */
export function buildCachePath(...parts: string[]): string {
  return path.join(buildCacheDir(), ...parts);
}

/** A short hash of a Go wrapper's module files and sources: a build made from other sources gets another name. */
export function sourcesTag(dir: string): string {
  const sources = createHash('sha256');
  for (const file of ['go.mod', 'go.sum', 'main.go']) sources.update(readFileSync(path.join(dir, file)));
  return sources.digest('hex').slice(0, 12);
}
