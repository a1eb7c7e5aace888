// `npm start`: the embedded defaults (local Redis, FerretDB, data/), then the api and the workers as two processes.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../shared/config/config.ts';
import { apiNodeFlags } from './local/node-flags.ts';
import { logToStderr } from './local/run-script.ts';
import { prepareLocalEnvironment, projectRoot } from './local/local-environment.ts';

const env = await prepareLocalEnvironment(process.env, logToStderr);
const config = loadConfig(env); // fail here, once, before starting anything

const children = new Map<string, ChildProcess>();
let stopping = false;

function stopAll(signal: NodeJS.Signals): void {
  stopping = true;
  for (const child of children.values()) child.kill(signal);
}

for (const [name, entry, flags] of [['api', 'api/main.ts', apiNodeFlags], ['workers', 'workers/main.ts', []]] as const) {
  const child = spawn(process.execPath, [...flags, path.join(projectRoot, entry)], { env, stdio: 'inherit' });
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
logToStderr(`SPS starting: api on http://${config.HOST}:${config.PORT}, public API at ${config.BACKEND_URL}/public/v1; data in ${path.join(projectRoot, 'data')}`);
