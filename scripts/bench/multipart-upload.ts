// The upload rows' client: one file streamed as multipart/form-data, as a browser or SDK sends it.
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { request } from 'node:http';

export interface UploadAnswer {
  seconds: number;
  status: number;
  body: string;
}

/** Streams the file in field "file" and resolves with the seconds until the whole answer arrived. */
export function uploadFile(url: string, file: string, headers: Record<string, string>): Promise<UploadAnswer> {
  const boundary = `----sps${randomBytes(8).toString('hex')}`;
  const preamble = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; `
    + 'filename="video.mp4"\r\nContent-Type: video/mp4\r\n\r\n');
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = preamble.length + statSync(file).size + epilogue.length;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const multipartHeaders = {
      ...headers, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': String(length),
    };
    const outgoing = request(url, { method: 'POST', headers: multipartHeaders }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => {
        resolve({ seconds: (performance.now() - started) / 1000, status: response.statusCode ?? 0, body });
      });
    });
    outgoing.on('error', reject);
    outgoing.write(preamble);
    const source = createReadStream(file, { highWaterMark: 1024 * 1024 });
    source.on('error', (error) => { outgoing.destroy(error); });
    source.pipe(outgoing, { end: false });
    source.on('end', () => { outgoing.end(epilogue); });
  });
}
