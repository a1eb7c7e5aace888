/** Stands in for our own origin while parsing; never appears in a result. */
const resolutionOrigin = 'http://sps.invalid';

/** Browsers drop tabs and newlines inside URLs, which can turn `/\t/host` into `//host`. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * The local path (with query) a login may send the user back to, or null. Only paths on this
 * site pass: no scheme, no host, no protocol-relative `//`, no backslashes or control characters
 * that browsers fold into either, and nothing that becomes `//` once normalised.
 */
export function safeReturnPath(value: string): string | null {
  if (value === '' || value.length > 4096) return null;
  if (!value.startsWith('/') || value.startsWith('//')) return null;
  if (value.includes('\\') || hasControlCharacter(value)) return null;
  let url: URL;
  try {
    url = new URL(value, resolutionOrigin);
  } catch {
    return null;
  }
  if (url.origin !== resolutionOrigin) return null;
  const path = url.pathname + url.search;
  return path.startsWith('//') ? null : path;
}

/** Where a user lands after logging in when no (acceptable) return target was given. */
export const defaultLandingPath = '/settings';

/** The login page address that brings the user back to `returnPath` afterwards. */
export function loginPath(returnPath: string | null, page: '/login' | '/signup' = '/login'): string {
  return returnPath === null || returnPath === defaultLandingPath ? page : `${page}?${new URLSearchParams({ return_to: returnPath }).toString()}`;
}
