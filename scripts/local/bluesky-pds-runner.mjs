// Runs the reference Bluesky PDS with an in-memory PLC directory (@atproto/dev-env's
// TestNetworkNoAppView) for one test file. Started by scripts/local/bluesky-pds.ts with the
// dev-env's install folder as working directory; prints one JSON line {pdsUrl, plcUrl} when both
// listen and stops on SIGTERM, removing its data. Plain JavaScript: it runs inside that folder,
// where the project's TypeScript settings do not apply.
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import process from 'node:process';

// The PDS and the PLC listen on a bare port (every interface); a test server stays on loopback.
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === 'number' && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};

// Resolved from the working directory (the install folder), not from this file's folder.
const require = createRequire(path.join(process.cwd(), 'package.json'));
const { ADMIN_PASSWORD, JWT_SECRET, TestNetworkNoAppView } = await import(require.resolve('@atproto/dev-env'));

// The dev-env puts the PDS's databases and blobs in folders of the temporary directory and leaves
// them: pointing TMPDIR at a folder of our own lets stop() remove everything.
const dataDir = await mkdtemp(path.join(tmpdir(), 'sps-bluesky-pds-'));
process.env.TMPDIR = dataDir;
// Blobs up to 50 MB, bsky.social's documented cap, instead of the reference PDS's 5 MB default.
const network = await TestNetworkNoAppView.create({ pds: { blobUploadLimit: 52_428_800 } });
const ready = {
  pdsUrl: network.pds.url,
  plcUrl: network.plc.url,
  adminPassword: ADMIN_PASSWORD,
  jwtSecret: JWT_SECRET,
};
process.stdout.write(`${JSON.stringify(ready)}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  try {
    await network.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}
process.on('SIGTERM', () => { void stop(); });
process.on('SIGINT', () => { void stop(); });
// The test process that started us may die without a signal: stdin closing tells us.
process.stdin.on('end', () => { void stop(); });
process.stdin.resume();
