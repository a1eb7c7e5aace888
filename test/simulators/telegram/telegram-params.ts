import { multipartParts } from '../kit/multipart-form.ts';
import { formBody, jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';

/** A file sent in a multipart body, under its part name. */
export interface UploadedFile {
  fileName: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * A Bot API call's parameters, read the ways the Bot API reads them: query string, JSON body,
 * urlencoded form, or multipart form whose file parts are kept by name (for `photo`, `video`
 * and `attach://<name>`). In a form every value is a string; objects travel JSON-serialized.
 */
export interface BotParams {
  values: Map<string, unknown>;
  files: Map<string, UploadedFile>;
}

export function fail(code: number, description: string, parameters?: Record<string, number>): SimulatedAnswer {
  const extra = parameters === undefined ? {} : { parameters };
  return { status: code, body: { ok: false, error_code: code, description, ...extra } };
}

export function ok(result: unknown): SimulatedAnswer {
  return { status: 200, body: { ok: true, result } };
}

/** Null when the body claims to be multipart and cannot be read as one. */
export function readParams(request: SimulatedRequest): BotParams | null {
  const params: BotParams = { values: new Map(request.query.entries()), files: new Map() };
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const body = jsonBody(request);
    if (typeof body === 'object' && body !== null) {
      for (const [key, value] of Object.entries(body)) params.values.set(key, value);
    }
  } else if (type.startsWith('application/x-www-form-urlencoded')) {
    for (const [key, value] of formBody(request)) params.values.set(key, value);
  } else if (type.startsWith('multipart/form-data')) {
    const parts = multipartParts(request);
    if (parts === null) return null;
    for (const part of parts) {
      if (part.fileName === null) params.values.set(part.name, part.data.toString('utf8'));
      else {
        const contentType = part.contentType ?? 'application/octet-stream';
        params.files.set(part.name, { fileName: part.fileName, contentType, bytes: part.data });
      }
    }
  }
  return params;
}

/** An object parameter: as JSON in a JSON body, JSON-serialized in a form. Undefined when absent. */
export function objectParam(params: BotParams, name: string): { value: unknown } | 'unreadable' | undefined {
  const raw = params.values.get(name);
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') return { value: raw };
  try {
    return { value: JSON.parse(raw) as unknown };
  } catch {
    return 'unreadable';
  }
}

/** Booleans arrive as `true` in JSON and "true" in a form. */
export function flagParam(params: BotParams, name: string): boolean {
  const raw = params.values.get(name);
  return raw === true || raw === 'true';
}

/** Integers arrive as numbers in JSON and as digits in a form; null when absent or not an integer. */
export function intParam(params: BotParams, name: string): number | null {
  const raw = params.values.get(name);
  const value = typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

export function textParam(params: BotParams, name: string): string | null {
  const raw = params.values.get(name);
  return typeof raw === 'string' ? raw : null;
}

/**
 * A file parameter: a part uploaded under `name`, or a string `attach://<part>` naming one. Any
 * other string is a file_id or URL, which this simulator does not know: Telegram's refusal.
 */
export function fileParam(params: BotParams, name: string): UploadedFile | 'missing' | 'unknown' {
  const direct = params.files.get(name);
  if (direct !== undefined) return direct;
  const raw = params.values.get(name);
  if (raw === undefined) return 'missing';
  if (typeof raw === 'string' && raw.startsWith('attach://')) return params.files.get(raw.slice(9)) ?? 'unknown';
  return 'unknown';
}
