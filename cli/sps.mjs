#!/usr/bin/env node
// The `sps` command. The client is written in TypeScript and run by Node's type stripping
// (Node 22.18 and later). An older Node (the machines ship Node 20) hands the same command over
// to the Node 24 the project installs as a dev dependency.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const handedOverVariable = 'SPS_CLI_HANDED_OVER';

function canStripTypes() {
  // Node 22.10+ tells directly ('strip' or 'transform' when on, false when off).
  const feature = process.features.typescript;
  if (feature !== undefined) return typeof feature === 'string';
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major >= 23 || (major === 22 && minor >= 18);
}

function projectNode() {
  const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const binDir = path.join(projectRoot, 'node_modules', 'node', 'bin');
  return [path.join(binDir, 'node'), path.join(binDir, 'node.exe')].find((candidate) => existsSync(candidate));
}

function handOver(nodeBinary) {
  const child = spawn(nodeBinary, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, [handedOverVariable]: '1' },
  });
  child.on('error', (error) => {
    process.stderr.write(`sps: could not start ${nodeBinary}: ${error.message}\n`);
    process.exit(1);
  });
  // Ctrl-C reaches both processes; a signal sent to this one alone is passed on. Either way this
  // process waits for the child and leaves with its exit code.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => { child.kill(signal); });
  }
  child.on('exit', (code, signal) => {
    if (signal !== null) process.stderr.write(`sps: stopped by ${signal}\n`);
    process.exit(code ?? 1);
  });
}

function refuse(reason) {
  process.stderr.write(
    `sps needs Node.js 22.18 or later (this is Node ${process.versions.node})${reason}.\n` +
    'Install a newer Node.js, or run `npm install` in the SPS project so that its own Node 24 is available.\n',
  );
  process.exit(1);
}

if (canStripTypes()) {
  // V8's compiled code for the client's modules is kept between runs, in Node's own folder under the
  // temporary directory (NODE_DISABLE_COMPILE_CACHE=1 turns it off): a command starts in about 0.27 s
  // instead of 0.45 s, which a script calling sps in a loop feels.
  module.enableCompileCache?.();
  await import('./main.ts');
} else if (process.env[handedOverVariable] === '1') {
  refuse(', and the Node it was handed to cannot run TypeScript either');
} else {
  const nodeBinary = projectNode();
  if (nodeBinary === undefined) refuse(' and the project\'s Node 24 (node_modules/node/bin/node) is missing');
  else handOver(nodeBinary);
}
