import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import path from 'node:path';
import type { ActiveCredential } from './active-credential.ts';
import { interpretAnswer, networkFailure, publicApiUrl, type ApiAnswer } from './api-client.ts';
import { CliError } from './cli-error.ts';

export interface UploadProgress {
  /** Called with the number of file bytes handed to the connection so far. */
  onSent(sentBytes: number, totalBytes: number): void;
}

async function fileSize(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`${file} is not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The part header for field `file`: an ASCII name for every parser, and the exact name (RFC 5987) for those that read it. */
function partHeader(boundary: string, file: string): Buffer {
  const name = path.basename(file);
  const asciiName = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return Buffer.from(
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(name)}\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n',
  );
}

function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).path === 'string';
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => { resolve(Buffer.concat(chunks).toString('utf8')); });
    response.on('error', reject);
  });
}

/**
 * Two turns of the event loop, so one of them polls the connection: an answer that has arrived
 * is read before anything more is written. (From the poll phase, one setImmediate runs in the
 * same turn, before any new poll.)
 */
async function letTheConnectionBeRead(): Promise<void> {
  for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Resolves once the connection has taken `chunk`; fails with its error, or when it closes first. */
function handOver(request: ClientRequest, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const onClose = (): void => { reject(new Error('the connection closed while the file was being sent')); };
    request.once('close', onClose);
    request.write(chunk, (error) => {
      request.off('close', onClose);
      if (error === null || error === undefined) resolve();
      else reject(error);
    });
  });
}

/**
 * Sends the body one chunk at a time, each once the previous one is in the connection, and
 * stops as soon as the server has answered. A server that refuses early (too large, wrong type)
 * answers and then closes; a write after its close fails (EPIPE, ECONNRESET) and makes Node drop
 * the connection with the unread answer in it. Reading before each write is what lets the client
 * see that answer rather than "could not reach".
 */
async function sendBody(
  request: ClientRequest,
  parts: { head: Buffer; file: string; tail: Buffer },
  onSent: (bytes: number) => void,
): Promise<void> {
  const server = { answered: false };
  request.once('response', () => { server.answered = true; });
  await handOver(request, parts.head);
  for await (const chunk of createReadStream(parts.file, { highWaterMark: 256 * 1024 })) {
    await letTheConnectionBeRead();
    if (server.answered || request.destroyed) return;
    const bytes = chunk as Buffer;
    await handOver(request, bytes);
    onSent(bytes.length);
  }
  await letTheConnectionBeRead();
  if (server.answered || request.destroyed) return;
  await handOver(request, parts.tail);
  request.end();
}

/**
 * POST /upload as multipart/form-data with the file streamed from disk (never read whole), its
 * length announced up front so the server can refuse an oversized file before reading it.
 */
export async function uploadFile(credential: ActiveCredential, file: string, progress: UploadProgress | null): Promise<ApiAnswer> {
  const totalBytes = await fileSize(file);
  const boundary = `----sps-upload-${randomBytes(12).toString('hex')}`;
  const head = partHeader(boundary, file);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = publicApiUrl(credential.apiUrl, '/upload');
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const request: ClientRequest = send(url, {
    method: 'POST',
    headers: {
      Authorization: credential.token,
      Accept: 'application/json',
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(head.length + totalBytes + tail.length),
    },
  });

  // Kept for the whole request: a refused upload can end in more than one socket error.
  let requestError: unknown = null;
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.on('error', (error) => {
      requestError ??= error;
      reject(error);
    });
  });

  let sentBytes = 0;
  // What counts is the server's answer: a failure to send is only reported when there is none.
  const sending = sendBody(request, { head, file, tail }, (bytes) => {
    sentBytes += bytes;
    progress?.onSent(sentBytes, totalBytes);
  }).then(() => null, (error: unknown) => {
    // A file that cannot be read ends the request, so that the wait for an answer ends too (a
    // failed connection has ended it already).
    if (isFileError(error)) request.destroy();
    return error;
  });

  let response: IncomingMessage;
  let text: string;
  try {
    response = await answered;
    text = await readAll(response);
  } catch (error) {
    const sendFailure = await sending;
    if (isFileError(sendFailure)) throw new CliError(`cannot read ${file}: ${sendFailure.message}`);
    throw networkFailure(url, requestError ?? error);
  }
  // The server answered before the whole file was sent: the rest is not wanted.
  if (!request.writableFinished) request.destroy();
  await sending;
  const retryAfter = response.headers['retry-after'];
  return interpretAnswer(response.statusCode ?? 0, text, typeof retryAfter === 'string' ? retryAfter : null);
}
