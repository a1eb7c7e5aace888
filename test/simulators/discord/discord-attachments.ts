import { z } from 'zod';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { multipartParts } from '../kit/multipart-form.ts';
import { discordError, invalidFormBody, missingPermissions, type AttachmentRecord } from './discord-world.ts';

/**
 * How Discord reads a body that may carry files (reference#uploading-files): JSON, or
 * multipart/form-data whose `payload_json` part holds the JSON and whose `files[n]` parts hold
 * the files, each named by `filename` in its Content-Disposition; the JSON's `attachments`
 * (`{id, filename, description}`) describe the files, `id` being the n of `files[n]`. A file over
 * the server's limit (10 MiB unless boosts raised it) is refused whole with 413 and code 40005.
 * Facts: /work/shared/platforms/open-and-community.md 8.3.
 */

/** Files in one message: widely cited (open-and-community.md 8.3). */
export const maxFilesPerMessage = 10;

const attachmentEntry = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  filename: z.string().optional(),
  description: z.string().optional(),
});

const attachmentList = z.array(attachmentEntry).optional();

export const requestTooLarge = discordError(413, 'Request entity too large', 40_005);

/** The body's JSON and files, or Discord's refusal of the body. */
export type ReadBody = { json: Record<string, unknown>; files: AttachmentRecord[] } | SimulatedAnswer;

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    // Discord answers a body it cannot parse as it answers any malformed body.
    return null;
  }
}

const malformed = discordError(400, '400: Bad Request', 0);

/**
 * Reads a message body; `attachmentsAt` names where the JSON lists its attachments (`message`
 * for a forum post). Files come back in the order of `attachments`, each with its id.
 */
export function readMessageBody(
  request: SimulatedRequest,
  nextId: () => string,
  options: { fileLimitBytes: number; mayAttach: boolean; attachmentsAt?: string },
): ReadBody {
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const json = jsonObject(request.text);
    return json === null ? malformed : { json, files: [] };
  }
  if (!type.startsWith('multipart/form-data')) return malformed;
  const parts = multipartParts(request);
  if (parts === null) return malformed;
  const payload = parts.find((part) => part.name === 'payload_json' && part.fileName === null);
  const json = payload === undefined ? {} : jsonObject(payload.data.toString('utf8'));
  if (json === null) return malformed;
  const fileParts = parts.filter((part) => /^files\[\d+\]$/.test(part.name));
  if (fileParts.some((part) => part.fileName === null || part.fileName === '')) {
    return invalidFormBody(['files'], 'BASE_TYPE_REQUIRED', 'Each file needs a file name.');
  }
  if (fileParts.length > maxFilesPerMessage) {
    const message = `Must be ${String(maxFilesPerMessage)} or fewer in length.`;
    return invalidFormBody(['files'], 'BASE_TYPE_MAX_LENGTH', message);
  }
  if (fileParts.length > 0 && !options.mayAttach) return missingPermissions;
  if (fileParts.some((part) => part.data.length > options.fileLimitBytes)) return requestTooLarge;
  const holder = options.attachmentsAt === undefined ? json : json[options.attachmentsAt];
  const listed = attachmentList.safeParse(
    typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>).attachments : undefined,
  );
  if (!listed.success) {
    return invalidFormBody(['attachments'], 'MODEL_TYPE_CONVERT', 'Could not interpret attachments.');
  }
  // Without `attachments`, files[n] are taken in order, named by their parts.
  const entries = listed.data
    ?? fileParts.map((_, index) => ({ id: String(index), filename: undefined, description: undefined }));
  const files: AttachmentRecord[] = [];
  for (const [index, entry] of entries.entries()) {
    const part = fileParts.find((candidate) => candidate.name === `files[${entry.id}]`);
    if (part === undefined) {
      return invalidFormBody(['attachments', String(index), 'id'], 'ATTACHMENT_NOT_FOUND', 'Unknown attachment.');
    }
    if ((entry.description ?? '').length > 1024) {
      const path = ['attachments', String(index), 'description'];
      return invalidFormBody(path, 'BASE_TYPE_MAX_LENGTH', 'Must be 1024 or fewer in length.');
    }
    files.push({
      id: nextId(),
      filename: entry.filename ?? part.fileName ?? '',
      size: part.data.length,
      contentType: part.contentType,
      description: entry.description ?? null,
      bytes: part.data,
    });
  }
  return { json, files };
}
