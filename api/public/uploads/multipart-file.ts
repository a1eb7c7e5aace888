import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { DomainError } from '../../../shared/errors.ts';

export interface IncomingFile {
  stream: Readable;
  filename: string | null;
}

/**
 * The stream of the one file in field `field` of a multipart request, as it arrives: busboy
 * hands the bytes over without writing them anywhere first (formidable, koa-body's parser,
 * would spool the whole file to a temporary folder). Other fields are ignored.
 */
export function multipartFile(request: IncomingMessage, field: string, maxBytes: number): Promise<IncomingFile> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, highWaterMark: 128 * 1024, fileHwm: 128 * 1024, limits: { files: 1, fileSize: maxBytes + 1, fields: 20, fieldSize: 64 * 1024, parts: 30 } });
    } catch (error) {
      reject(new DomainError('unsupported_media_type', `send multipart/form-data with the file in field "${field}" (${error instanceof Error ? error.message : String(error)})`));
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
      resolve({ stream, filename: filename === '' ? null : filename.slice(0, 255) });
    });
    parser.once('error', (error) => {
      reject(new DomainError('validation_failed', `the multipart body could not be read: ${error instanceof Error ? error.message : String(error)}`));
    });
    parser.once('close', () => {
      if (!found) reject(new DomainError('validation_failed', `no file in field "${field}"`, [{ path: field, message: 'required' }]));
    });
    request.pipe(parser);
  });
}
