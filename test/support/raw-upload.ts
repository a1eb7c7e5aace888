import { connect, type Socket } from 'node:net';

/** The first bytes of a PNG (signature and header chunk): enough for the sniffer; what follows does not matter. */
export const pngHead = Buffer.from('89504e470d0a1a0a0000000d49484452000000400000003008020000000000000000', 'hex');
/** An MP4's `ftyp` box: the sniffer sees a video, so the video cap applies. */
export const mp4Head = Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex');

export interface RawAnswer {
  status: number | null;
  body: string;
}

const boundary = 'raw-upload-boundary';

/**
 * A POST /upload written byte by byte on a plain TCP socket, so a test can stop half way, close
 * the connection, hold it open, or not read the answer until it has sent what it wanted: the
 * things an HTTP client library does not let a test do.
 */
export class RawUpload {
  readonly socket: Socket;
  readonly #received: Buffer[] = [];
  /** The socket's error, if it had one (a write after the server closed, a reset). */
  error: Error | null = null;
  /** Settles when the connection is closed, by either side. */
  readonly closed: Promise<void>;
  /** Body bytes the connection took so far (part header included). */
  sentBytes = 0;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => { this.#received.push(chunk); });
    socket.on('error', (error) => { this.error ??= error; });
    this.closed = new Promise((resolve) => { socket.once('close', () => { resolve(); }); });
  }

  /**
   * Connects and sends the headers and the part header of field "file". `fileBytes` is what the
   * Content-Length announces for the file; `read: false` leaves the answer unread until
   * `startReading`; `finalBoundary: false` announces a body that ends without the closing boundary.
   */
  static async open(
    baseUrl: string,
    apiKey: string,
    options: { fileBytes: number; read?: boolean; finalBoundary?: boolean },
  ): Promise<RawUpload> {
    const { hostname, port } = new URL(baseUrl);
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const upload = new RawUpload(socket);
    if (options.read === false) socket.pause();
    const partHeader = Buffer.from(`--${boundary}\r\n`
      + 'Content-Disposition: form-data; name="file"; filename="raw.bin"\r\n'
      + 'Content-Type: application/octet-stream\r\n\r\n');
    const tailBytes = options.finalBoundary === false ? 0 : RawUpload.tail.length;
    const length = partHeader.length + options.fileBytes + tailBytes;
    await upload.write(Buffer.from('POST /api/public/v1/upload HTTP/1.1\r\n'
      + `Host: ${hostname}:${port}\r\nAuthorization: ${apiKey}\r\n`
      + `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`));
    upload.sentBytes = 0;
    await upload.write(partHeader);
    return upload;
  }

  /** The closing boundary, after the file's bytes. */
  static readonly tail = Buffer.from(`\r\n--${boundary}--\r\n`);

  /** Resolves once the connection has taken `bytes`; fails with the socket's error. */
  write(bytes: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.write(bytes, (error) => {
        if (error === null || error === undefined) {
          this.sentBytes += bytes.length;
          resolve();
        } else {
          reject(error);
        }
      });
    });
  }

  startReading(): void {
    this.socket.resume();
  }

  /** What the server sent so far, as status and body (null status while nothing complete came). */
  answer(): RawAnswer {
    const text = Buffer.concat(this.#received).toString('utf8');
    const headerEnd = text.indexOf('\r\n\r\n');
    if (headerEnd < 0) return { status: null, body: '' };
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
    const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headerEnd))?.[1];
    const body = text.slice(headerEnd + 4);
    if (length !== undefined && Buffer.byteLength(body) < Number(length)) return { status: null, body: '' };
    return { status: status === undefined ? null : Number(status), body };
  }
}
