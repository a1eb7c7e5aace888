import type { GraphRequest } from './graph-http-server.ts';

/**
 * The parameters of a Graph POST as Graph reads them: from the query string, an urlencoded
 * form or a multipart form (whose file parts keep their bytes), the body winning over the query.
 */
export interface UploadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

export interface GraphParams {
  fields: Map<string, string>;
  files: Map<string, UploadedFile>;
}

function multipart(bytes: Buffer, boundary: string, params: GraphParams): boolean {
  const delimiter = Buffer.from(`--${boundary}`);
  let start = bytes.indexOf(delimiter);
  if (start < 0) return false;
  for (;;) {
    const headerStart = start + delimiter.length + 2;
    const after = start + delimiter.length;
    if (bytes.subarray(after, after + 2).toString('latin1') === '--') return true;
    const headerEnd = bytes.indexOf('\r\n\r\n', headerStart);
    if (headerEnd < 0) return false;
    const next = bytes.indexOf(Buffer.from(`\r\n--${boundary}`), headerEnd + 4);
    if (next < 0) return false;
    const head = bytes.subarray(headerStart, headerEnd).toString('utf8');
    const content = bytes.subarray(headerEnd + 4, next);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const fileName = /filename="([^"]*)"/.exec(head)?.[1];
    const contentType = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? 'application/octet-stream';
    if (name !== undefined && fileName !== undefined) {
      params.files.set(name, { fileName, contentType, bytes: content });
    }
    else if (name !== undefined) params.fields.set(name, content.toString('utf8'));
    start = next + 2;
  }
}

/** null when the body claims to be multipart and cannot be read as such. */
export function graphParams(request: GraphRequest): GraphParams | null {
  const params: GraphParams = { fields: new Map(request.query), files: new Map() };
  const type = request.headers['content-type'] ?? '';
  const boundary = /^multipart\/form-data;\s*boundary=(.+)$/i.exec(type)?.[1];
  if (boundary !== undefined) return multipart(request.raw, boundary.replace(/^"|"$/g, ''), params) ? params : null;
  if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(request.text)) params.fields.set(name, value);
  }
  return params;
}
