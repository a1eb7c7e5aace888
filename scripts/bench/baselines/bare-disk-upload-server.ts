// The baseline of the local-disk upload rows: node:http piping each whole request body (multipart
// framing and all) to a new file, nothing else: no parsing, sniffing, size check, database or
// inspection. A new file each time, as the api stores each upload: overwriting one would drop its
// unwritten pages for free. Node's modules only, so its own memory is a bare process's.
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const port = Number(process.env.PORT);
const dir = process.env.BARE_UPLOAD_DIR ?? '';
if (!Number.isInteger(port) || port <= 0 || dir === '') throw new Error('set PORT and BARE_UPLOAD_DIR');

let uploads = 0;
const server = createServer((request, response) => {
  uploads += 1;
  pipeline(request, createWriteStream(path.join(dir, `${String(uploads)}.bin`))).then(() => {
    response.end('ok');
  }, (error: unknown) => {
    process.stderr.write(`bare disk upload server: ${String(error)}\n`);
    response.statusCode = 500;
    response.end(String(error));
  });
});
server.listen(port, '127.0.0.1', () => { process.stdout.write('bare disk upload server ready\n'); });
process.once('SIGTERM', () => { server.close(() => process.exit(0)); });
