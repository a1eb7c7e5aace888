// `npm run bench:upload`: upload throughput and memory of POST /upload against a bare node:http
// server that only pipes the body to a file, and media inspection against a bare ffprobe call.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { SecretBox } from '../../shared/crypto/secret-box.ts';
import { openDatabase } from '../../shared/db/database.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { probeMedia } from '../../shared/media/media-probe.ts';
import { freePort } from '../../test/support/free-port.ts';
import { padMp4 } from '../../test/support/test-media.ts';
import { prepareLocalEnvironment, projectRoot } from '../local/local-environment.ts';
import { apiNodeFlags, apiProcessEnvironment } from '../local/api-process.ts';
import { logToStderr } from '../local/run-script.ts';
import { ensureDebianPackage } from '../local/system-package.ts';

const fileBytes = Number(process.env.BENCH_FILE_BYTES ?? 1024 ** 3);
/** Uploads to each side, alternately. */
const uploadRounds = 3;
const work = mkdtempSync(path.join(tmpdir(), 'sps-bench-'));
const log = (line: string): void => { logToStderr(`[bench] ${line}`); };
const uploadsDir = path.join(work, 'uploads');
const bareCopyPrefix = 'bare-copy-';

/** A playable MP4 (moov first) followed by a `free` box that pads the file to exactly `bytes`. */
function makeVideo(bytes: number): string {
  const clip = path.join(work, 'clip.mp4');
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=1280x720:rate=30', '-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '5',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart', clip]);
  return padMp4(clip, path.join(work, 'video.mp4'), bytes);
}

/** Streams the file as multipart/form-data (field "file") and resolves with the seconds it took and the answer. */
function upload(url: string, file: string, headers: Record<string, string>): Promise<{ seconds: number; status: number; body: string }> {
  const boundary = `----sps${randomBytes(8).toString('hex')}`;
  const preamble = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="video.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = preamble.length + statSync(file).size + epilogue.length;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const outgoing = request(url, { method: 'POST', headers: { ...headers, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(length) } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => { resolve({ seconds: (performance.now() - started) / 1000, status: response.statusCode ?? 0, body }); });
    });
    outgoing.on('error', reject);
    outgoing.write(preamble);
    const source = createReadStream(file, { highWaterMark: 1024 * 1024 });
    source.pipe(outgoing, { end: false });
    source.on('end', () => { outgoing.end(epilogue); });
  });
}

/** Peak resident memory of a process (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
}

function startProcess(args: string[], env: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn(process.execPath, args, { env, cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const isReady = new Promise<void>((resolve, reject) => {
    const check = (chunk: Buffer): void => { output += chunk.toString(); if (ready.test(output)) resolve(); };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => { reject(new Error(`${args.join(' ')} exited with ${String(code)}:\n${output}`)); });
  });
  return { child, isReady };
}

const twoPlaces = (value: number): number => +value.toFixed(2);
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  ensureDebianPackage('ffprobe', 'ffmpeg', log);
  const env = await prepareLocalEnvironment({ ...process.env, MONGO_URL: process.env.MONGO_URL }, log);
  const benchId = randomBytes(4).toString('hex');
  const port = await freePort();
  const serviceEnv: NodeJS.ProcessEnv = {
    ...env,
    MONGO_URL: `${(env.MONGO_URL ?? '').replace(/\/[^/]*$/, '/')}sps_bench_${benchId}`,
    // npm run bench passes its run's prefix, so its clean-up removes these keys too.
    QUEUE_PREFIX: process.env.BENCH_QUEUE_PREFIX ?? `sps-bench-${benchId}`,
    PORT: String(port),
    UPLOADS_DIR: uploadsDir,
    UPLOADS_PUBLIC_URL: `http://127.0.0.1:${port}/uploads`,
    LOG_LEVEL: 'info',
    MEDIA_WAIT_MS: '120000',
  };
  const config = loadConfig(serviceEnv);
  log(`making a ${(fileBytes / 1024 ** 3).toFixed(2)} GiB video in ${work}...`);
  const video = makeVideo(fileBytes);
  mkdirSync(uploadsDir, { recursive: true });

  // The bare server: node:http piping the whole request to a new file, nothing else (a new file,
  // as the api stores each upload: overwriting one would drop its unwritten pages for free).
  const bareScript = [
    "const http=require('node:http');const fs=require('node:fs');let n=0;",
    "http.createServer((q,s)=>{q.pipe(fs.createWriteStream(process.argv[1]+(n+=1)+'.bin'))",
    ".on('finish',()=>s.end('ok'))})",
    ".listen(+process.argv[2],'127.0.0.1',()=>console.log('bare ready'))",
  ].join('');
  const barePort = await freePort();
  const bareArgs = ['-e', bareScript, path.join(work, bareCopyPrefix), String(barePort)];
  const bare = startProcess(bareArgs, serviceEnv, /bare ready/);
  const db = await openDatabase(config.MONGO_URL);
  const { apiKey } = await createOrganization(db, new SecretBox(config.SECRETS_KEY), { name: 'Bench' });
  const apiEnv = { ...serviceEnv, ...apiProcessEnvironment };
  const api = startProcess([...apiNodeFlags, path.join(projectRoot, 'api/main.ts')], apiEnv, /api listening/);
  const workers = startProcess([path.join(projectRoot, 'workers/main.ts')], serviceEnv, /workers running/);
  await Promise.all([bare.isReady, api.isReady, workers.isReady]);
  // In turns, so a busy moment of the machine (the database settling after the other measures)
  // weighs on both sides alike; each side's median is compared, and the side that goes first
  // alternates. Every upload starts from the same state: the previous upload's file removed and
  // the disk settled. Files left in place made every later upload, to either side, about twice
  // as slow on this kind of virtual machine (fresh memory for the page cache is slow to come by).
  const settleDisk = (): void => {
    const stored = readdirSync(uploadsDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
    const copies = readdirSync(work)
      .filter((name) => name.startsWith(bareCopyPrefix)).map((name) => path.join(work, name));
    for (const file of [...stored, ...copies]) rmSync(file);
    spawnSync('sync', { stdio: 'ignore' });
  };
  const uploadToBare = async (): Promise<number> => {
    settleDisk();
    return (await upload(`http://127.0.0.1:${barePort}/`, video, {})).seconds;
  };
  const uploadToApi = async (): Promise<number> => {
    settleDisk();
    const answer = await upload(`http://127.0.0.1:${port}/api/public/v1/upload`, video, { Authorization: apiKey });
    if (answer.status !== 201) throw new Error(`the api answered ${answer.status}: ${answer.body}`);
    return answer.seconds;
  };
  const bareSeconds: number[] = [];
  const apiSeconds: number[] = [];
  for (let round = 1; round <= uploadRounds; round += 1) {
    log(`uploading to both sides (round ${round} of ${uploadRounds}, ${round % 2 === 1 ? 'bare' : 'api'} first)...`);
    if (round % 2 === 1) bareSeconds.push(await uploadToBare());
    apiSeconds.push(await uploadToApi());
    if (round % 2 === 0) bareSeconds.push(await uploadToBare());
  }
  const bareRss = peakRssMb(bare.child.pid ?? 0);
  const apiRss = peakRssMb(api.child.pid ?? 0);
  bare.child.kill();
  api.child.kill('SIGTERM');
  workers.child.kill('SIGTERM');
  await db.connection.dropDatabase();
  await db.close();

  log('timing inspection...');
  // Inspection: SPS's probe (ffprobe with a time limit) against a bare ffprobe process on the same file.
  const rounds = 15;
  const ours: number[] = [];
  const bareProbe: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    let started = performance.now();
    await probeMedia(video, { timeoutMs: 60_000 });
    ours.push(performance.now() - started);
    started = performance.now();
    spawnSync('ffprobe', ['-v', 'error', '-show_streams', '-show_format', video], { stdio: 'ignore' });
    bareProbe.push(performance.now() - started);
  }

  const mb = fileBytes / 1024 ** 2;
  const apiThroughput = mb / median(apiSeconds);
  const bareThroughput = mb / median(bareSeconds);
  const results = {
    fileMiB: Math.round(mb),
    api: { seconds: apiSeconds.map(twoPlaces), mibPerSecond: +apiThroughput.toFixed(1), peakRssMb: +apiRss.toFixed(1) },
    bare: {
      seconds: bareSeconds.map(twoPlaces), mibPerSecond: +bareThroughput.toFixed(1), peakRssMb: +bareRss.toFixed(1),
    },
    throughputRatio: +(apiThroughput / bareThroughput).toFixed(3),
    inspection: { spsMedianMs: +median(ours).toFixed(1), bareFfprobeMedianMs: +median(bareProbe).toFixed(1), ratio: +(median(ours) / median(bareProbe)).toFixed(3) },
    targets: { throughputRatio: '>= 0.7', apiPeakRssMb: '< 200', inspectionRatio: '<= 1.2' },
  };
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
