import type { SimulatedRequest } from './simulator-server.ts';

/** One part of a multipart/form-data body: a field's text, or a file's bytes. */
export interface FormPart {
  name: string;
  fileName: string | null;
  contentType: string | null;
  data: Buffer;
}

/** The parts of a multipart/form-data body, or null when it is not one (the platform answers 400). */
export function multipartParts(request: SimulatedRequest): FormPart[] | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(request.headers['content-type'] ?? '');
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!(request.headers['content-type'] ?? '').startsWith('multipart/form-data') || marker === undefined) return null;
  const delimiter = Buffer.from(`--${marker}`);
  const parts: FormPart[] = [];
  let at = request.raw.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (request.raw.subarray(start, start + 2).toString() === '--') break;
    const next = request.raw.indexOf(delimiter, start);
    if (next === -1) return null;
    // Each part: CRLF, headers, a blank line, the data, CRLF before the next delimiter.
    const section = request.raw.subarray(start + 2, next - 2);
    const split = section.indexOf('\r\n\r\n');
    if (split === -1) return null;
    const headers = section.subarray(0, split).toString('utf8');
    const disposition = /content-disposition:\s*form-data; name="([^"]*)"(?:; filename="([^"]*)")?/i.exec(headers);
    if (disposition?.[1] === undefined) return null;
    parts.push({
      name: disposition[1],
      fileName: disposition[2] ?? null,
      contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? null,
      data: section.subarray(split + 4),
    });
    at = next;
  }
  return parts;
}
