import { randomInt } from 'node:crypto';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/** LinkedIn's error answers and text rules, as the publishing simulation gives them. */
export function apiError(status: number, message: string, extra: Record<string, unknown> = {}): SimulatedAnswer {
  return { status, body: { status, message, ...extra } };
}

export function accessDenied(what: string): SimulatedAnswer {
  return apiError(403, `Not enough permissions to access: ${what}`, { serviceErrorCode: 100, code: 'ACCESS_DENIED' });
}

export function inputError(fieldPath: string, description: string): SimulatedAnswer {
  return {
    status: 422,
    body: {
      status: 422,
      message: `${fieldPath}: ${description}`,
      errorDetailType: 'com.linkedin.common.error.BadRequest',
      errorDetails: { inputErrors: [{ code: 'INVALID_VALUE', description, input: { inputPath: { fieldPath } } }] },
    },
  };
}

export const reservedCharacters = '\\|{}@[]()<>#*_~';

/** The commentary as shown: escapes undone, and everything from the first unescaped reserved character dropped. */
export function shownLittleText(commentary: string): string {
  let shown = '';
  for (let at = 0; at < commentary.length; at += 1) {
    const character = commentary[at] ?? '';
    if (character === '\\' && reservedCharacters.includes(commentary[at + 1] ?? '')) {
      shown += commentary[at + 1] ?? '';
      at += 1;
    } else if (reservedCharacters.includes(character)) {
      return shown;
    } else {
      shown += character;
    }
  }
  return shown;
}

export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

export function objectOf(value: unknown): Record<string, unknown> | null {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  return isObject ? (value as Record<string, unknown>) : null;
}

export function digits(length: number): string {
  return Array.from({ length }, (_, index) => String(index === 0 ? randomInt(1, 10) : randomInt(0, 10))).join('');
}
