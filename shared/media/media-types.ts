import { DomainError } from '../errors.ts';

export type MediaKind = 'image' | 'video';

export interface AcceptedMediaType {
  mimeType: string;
  kind: MediaKind;
  extension: string;
}

/** The contract's allowlist: decided from the bytes (file-type), never from the name or a header. */
const allowed: Record<string, Omit<AcceptedMediaType, 'mimeType'>> = {
  'image/jpeg': { kind: 'image', extension: 'jpg' },
  'image/png': { kind: 'image', extension: 'png' },
  'image/gif': { kind: 'image', extension: 'gif' },
  'image/webp': { kind: 'image', extension: 'webp' },
  'image/avif': { kind: 'image', extension: 'avif' },
  'image/bmp': { kind: 'image', extension: 'bmp' },
  'image/tiff': { kind: 'image', extension: 'tiff' },
  'video/mp4': { kind: 'video', extension: 'mp4' },
};

export const allowedMimeTypes: readonly string[] = Object.keys(allowed);

export function contentTypeForExtension(extension: string): string | undefined {
  return Object.entries(allowed).find(([, type]) => type.extension === extension)?.[0] ?? (extension === 'jpg' ? 'image/jpeg' : undefined);
}

/**
 * Accepts a sniffed type or says why not. `detected` is file-type's answer for the first bytes
 * (undefined when it recognised nothing, e.g. text, HTML or SVG).
 */
export function acceptMediaType(detected: { mime: string } | undefined, size: number): AcceptedMediaType {
  if (size === 0) throw new DomainError('unsupported_file_type', 'the file is empty');
  if (detected?.mime === 'application/pdf') {
    throw new DomainError('unsupported_file_type', 'PDFs cannot be posted through the public API; upload the pages as images instead');
  }
  const type = detected === undefined ? undefined : allowed[detected.mime];
  if (detected === undefined || type === undefined) {
    const seen = detected === undefined ? 'its type could not be recognised from its content' : `its content is ${detected.mime}`;
    throw new DomainError('unsupported_file_type', `this file cannot be uploaded: ${seen}. Accepted: ${allowedMimeTypes.join(', ')}`);
  }
  return { mimeType: detected.mime, ...type };
}

export interface MediaSizeLimits {
  maxImageBytes: number;
  maxVideoBytes: number;
}

export function sizeLimitFor(kind: MediaKind, limits: MediaSizeLimits): number {
  return kind === 'video' ? limits.maxVideoBytes : limits.maxImageBytes;
}

export function describeBytes(bytes: number): string {
  return bytes >= 1024 ** 3 ? `${+(bytes / 1024 ** 3).toFixed(2)} GB` : `${+(bytes / 1024 ** 2).toFixed(2)} MB`;
}

export function tooLarge(kind: MediaKind, limit: number): DomainError {
  return new DomainError('payload_too_large', `the ${kind} is larger than the ${describeBytes(limit)} allowed for ${kind}s`);
}
