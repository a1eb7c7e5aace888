import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { buildCachePath } from '../../../scripts/local/build-cache.ts';
import { hasCommand } from '../../../scripts/local/system-package.ts';

/**
 * The newest listmonk the Go module proxy serves here. Later releases are tagged v2 to v5 without
 * a `/vN` module path, so the proxy has no module version for them (it answers "not available"),
 * and pseudo-versions of later commits are refused too: v1.1.0 (June 2021) is the one real
 * listmonk this machine can build. It predates API users (v4): its API takes the admin's user
 * name and password as Basic auth, which v4 and later still accept for an API user and its token.
 */
export const listmonkVersion = 'v1.1.0';
/** Bumped when the steps below change, so a checkout never runs a listmonk built another way. */
const recipe = 1;

const downloaded = z.object({ Dir: z.string().min(1) });

/** Where the build lives: the binary `listmonk` beside the SQL, i18n and static files it reads at start. */
export function listmonkDir(): string {
  return buildCachePath('listmonk', `listmonk-${listmonkVersion}-r${String(recipe)}`);
}

/**
 * Builds listmonk once from the Go module proxy into the build cache (about 40 s cold, including the
 * modules; nothing when cached). The module has the Go sources, queries.sql, schema.sql, i18n/
 * and static/ but not the Vue admin app (frontend/dist is built with yarn, not shipped), and a
 * binary built with `go build` has no files stuffed into it (stuffbin), so listmonk reads them
 * from its working directory: the runner starts it there. A placeholder stands in for the admin
 * app, which the API does not need.
 */
export function buildListmonk(log: (line: string) => void): string {
  const dir = listmonkDir();
  if (existsSync(path.join(dir, 'listmonk'))) return dir;
  if (!hasCommand('go')) throw new Error('Go is needed to build the listmonk the tests publish to');
  log(`building listmonk ${listmonkVersion} (first run only, under a minute)...`);
  const started = Date.now();
  const goEnv = { ...process.env, CGO_ENABLED: '0' };
  const answer = execFileSync('go', ['mod', 'download', '-json', `github.com/knadh/listmonk@${listmonkVersion}`], {
    encoding: 'utf8', env: goEnv, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const source = downloaded.parse(JSON.parse(answer)).Dir;
  // Several checkouts share .cache: each builds in a folder of its own and renames it, which is atomic.
  const partial = `${dir}.partial-${String(process.pid)}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  execFileSync('cp', ['-R', `${source}/.`, partial]);
  // The module cache is read-only; the build may add go.sum lines for the module's own replace.
  execFileSync('chmod', ['-R', 'u+w', partial]);
  const dist = path.join(partial, 'frontend', 'dist');
  mkdirSync(path.join(dist, 'frontend'), { recursive: true });
  writeFileSync(path.join(dist, 'frontend', 'index.html'), '<!doctype html><title>listmonk API only</title>\n');
  copyFileSync(path.join(partial, 'static', 'public', 'static', 'favicon.png'), path.join(dist, 'favicon.png'));
  execFileSync('go', ['build', '-trimpath', '-mod=mod', '-o', 'listmonk', './cmd'], {
    cwd: partial, env: goEnv, stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another checkout finished first: its build is the same.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(path.join(dir, 'listmonk'))) throw error;
  }
  log(`listmonk built in ${String(Math.round((Date.now() - started) / 1000))} s`);
  return dir;
}
