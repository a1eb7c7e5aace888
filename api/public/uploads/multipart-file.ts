import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import { DomainError } from '../../../shared/errors.ts';

export interface IncomingFile {
  /** The file's bytes; fails with a DomainError when the body turns out malformed or cut short. */
  stream: Readable;
  filename: string | null;
}

const partLimits = { files: 1, fields: 20, fieldSize: 64 * 1024, parts: 30 };

function interrupted(): DomainError {
  return new DomainError('upload_interrupted', 'the connection closed before the whole upload was received');
}

function unreadable(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const message = `the multipart body could not be read: ${reason}`;
  return new DomainError('validation_failed', message, undefined, { cause: error });
}

/**
 * The file stream handed to the caller. Busboy fails its own stream with plain errors (a body
 * that ends mid-form), sometimes before the caller, one promise turn later, listens; this one
 * fails with the client's error (400) and keeps it in `errored` for a reader that comes late
 * (see sniffMedia), instead of throwing it from the event loop as an uncaught exception.
 */
function fileStream(source: Readable): Readable {
  const file = new PassThrough({ highWaterMark: 128 * 1024 });
  source.on('error', (error) => { file.destroy(unreadable(error)); });
  // Kept on `file.errored` for the reader; listening here only stops the emit from being uncaught.
  file.on('error', () => undefined);
  // A reader that gives up (a refused type, the size cap) stops busboy's stream too.
  file.once('close', () => { source.destroy(); });
  source.pipe(file);
  return file;
}

/**
 * The stream of the one file in field `field` of a multipart request, as it arrives: busboy
 * hands the bytes over without writing them anywhere first (formidable, koa-body's parser,
 * would spool the whole file to a temporary folder). Other fields are ignored.
 *
 * A connection that closes before the body is complete (the client left, or the server's
 * request timeout fired) fails the promise, or the file stream when it is already being read,
 * with `upload_interrupted`: `pipe` does not pass an abort on, so without this the file stream
 * would wait forever and whatever it was being written to would stay open and half written.
 */
export function multipartFile(request: IncomingMessage, field: string, maxBytes: number): Promise<IncomingFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        highWaterMark: 128 * 1024,
        fileHwm: 128 * 1024,
        limits: { ...partLimits, fileSize: maxBytes + 1 },
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const message = `send multipart/form-data with the file in field "${field}" (${reason})`;
      reject(new DomainError('unsupported_media_type', message));
      return;
    }
    let found = false;
    parser.on('file', (name, stream, info) => {
      if (name !== field || found) {
        stream.resume();
        return;
      }
      found = true;
      const filename = info.filename ?? '';
      resolve({ stream: fileStream(stream), filename: filename === '' ? null : filename.slice(0, 255) });
    });
    parser.once('error', (error) => { reject(unreadable(error)); });
    parser.once('close', () => {
      if (found) return;
      reject(new DomainError('validation_failed', `no file in field "${field}"`, [
        { path: field, message: 'required' },
      ]));
    });
    // The connection may have closed already, while the request went through authentication;
    // a destroyed request has nothing more to give either way.
    if (request.destroyed) {
      parser.destroy();
      reject(interrupted());
      return;
    }
    request.once('close', () => {
      if (request.complete) return;
      const error = interrupted();
      request.unpipe(parser);
      // Busboy hands its error to the file stream in progress, and so to whatever reads it.
      parser.destroy(error);
      reject(error);
    });
    request.pipe(parser);
  });
}
