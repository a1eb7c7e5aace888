// `npm start`: the embedded defaults (local Redis, FerretDB, PostgreSQL, data/), then the api,
// the workers and the device-flow auth server as separate processes.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../shared/config/config.ts';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import { openDatabase } from '../shared/db/database.ts';
import { ensureAuthServerApp } from './local/auth-server-app.ts';
import { withCompileCache } from './local/compile-cache.ts';
import { prepareLocalEnvironment, projectRoot } from './local/local-environment.ts';
import { apiNodeFlags, apiProcessEnvironment } from './local/api-process.ts';
import { ensureLocalPostgres, localAuthDatabaseUrl } from './local/postgres.ts';
import { logToStderr } from './local/run-script.ts';
import { ensureDebianFile, ensureDebianPackage } from './local/system-package.ts';

const env = await prepareLocalEnvironment(process.env, logToStderr);
const config = loadConfig(env); // fail here, once, before starting anything
// The media worker inspects every upload with ffprobe and ffmpeg: brought here as `npm test` brings
// them, unless the operator points SPS at their own (FFPROBE_PATH, FFMPEG_PATH).
if (env.FFPROBE_PATH === undefined && env.FFMPEG_PATH === undefined) {
  ensureDebianPackage('ffprobe', 'ffmpeg', logToStderr);
}
// The video worker narrates with espeak-ng and draws captions in a DejaVu font: brought the same way.
if (env.ESPEAK_PATH === undefined) ensureDebianPackage('espeak-ng', 'espeak-ng', logToStderr);
if (env.VIDEO_FONT_FILE === undefined) ensureDebianFile(config.VIDEO_FONT_FILE, 'fonts-dejavu-core', logToStderr);

// The auth server's own settings: the local PostgreSQL and an OAuth app registered for it.
const authPort = Number(env.AUTH_SERVER_PORT ?? 3111);
const authUrl = `http://localhost:${authPort}`;
const databaseUrl = env.DATABASE_URL ?? localAuthDatabaseUrl;
await ensureLocalPostgres(databaseUrl, logToStderr);
const db = await openDatabase(config.MONGO_URL);
const cliApp = await ensureAuthServerApp(db, new SecretBox(config.SECRETS_KEY), { authUrl });
await db.close();
const authEnv: NodeJS.ProcessEnv = {
  ...env,
  DATABASE_URL: databaseUrl,
  SERVICE_OAUTH_CLIENT_ID: cliApp.clientId,
  SERVICE_OAUTH_CLIENT_SECRET: cliApp.clientSecret,
  PORT: String(authPort),
  SERVER_URL: authUrl,
  SERVICE_FRONTEND_URL: config.FRONTEND_URL,
  SERVICE_API_URL: config.BACKEND_URL,
};

const children = new Map<string, ChildProcess>();
let stopping = false;

function stopAll(signal: NodeJS.Signals): void {
  stopping = true;
  for (const child of children.values()) child.kill(signal);
}

const processes = [
  { name: 'api', entry: 'api/main.ts', flags: apiNodeFlags, env: { ...env, ...apiProcessEnvironment } },
  { name: 'workers', entry: 'workers/main.ts', flags: [], env },
  { name: 'auth-server', entry: 'auth-server/main.ts', flags: [], env: authEnv },
] as const;

for (const { name, entry, flags, env: processEnv } of processes) {
  const child = spawn(process.execPath, [...flags, path.join(projectRoot, entry)], {
    env: withCompileCache(processEnv),
    stdio: 'inherit',
  });
  children.set(name, child);
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      logToStderr(`${name} exited (${signal ?? `code ${code ?? 'unknown'}`}); stopping the rest`);
      process.exitCode = 1;
      stopAll('SIGTERM');
    }
    if (children.size === 0) process.exit();
  });
}

process.on('SIGINT', () => { stopAll('SIGTERM'); });
process.on('SIGTERM', () => { stopAll('SIGTERM'); });
logToStderr(
  `SPS starting: api on http://${config.HOST}:${String(config.PORT)} (dashboard ${config.FRONTEND_URL}, `
    + `public API ${config.BACKEND_URL}/public/v1), auth server on ${authUrl}; `
    + `data in ${path.join(projectRoot, 'data')}`,
);
