import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/** X's API refusals: problem details, with `errors[]` naming the parameters a 400 refused. */
export const problemTypes = 'https://api.x.com/2/problems';

/** The media type X's description gives its problem answers (RFC 7807), not plain JSON. */
export const problemHeaders: Readonly<Record<string, string>> = { 'content-type': 'application/problem+json' };

export function problem(
  status: number,
  title: string,
  detail: string,
  type = 'about:blank',
  /** What a typed problem names besides (`resource_type`, `resource_id`, `parameter`), as X's description requires. */
  about: Record<string, string> = {},
): SimulatedAnswer {
  return { status, headers: { ...problemHeaders }, body: { title, detail, type, status, ...about } };
}

/** A 400 as X words it: one message per refused parameter. */
export function invalidRequest(message: string, parameter?: string, value?: unknown): SimulatedAnswer {
  const parameters = parameter === undefined ? {} : { parameters: { [parameter]: [String(value)] } };
  return {
    status: 400,
    headers: { ...problemHeaders },
    body: {
      errors: [{ ...parameters, message }],
      title: 'Invalid Request',
      detail: 'One or more parameters to your request was invalid.',
      type: `${problemTypes}/invalid-request`,
    },
  };
}

/** The kind of file its first bytes say it is, as X sniffs uploads rather than trusting names. */
export function sniffMediaType(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') {
    return bytes.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4';
  }
  return null;
}
