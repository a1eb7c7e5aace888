import { DomainError } from '../../errors.ts';

/** A "%" that does not start a percent-encoded byte ("%" and two hexadecimal digits). */
const strayPercent = /%(?![0-9A-Fa-f]{2})/;

/**
 * The URL a caller asks the service to import. The WHATWG parser accepts a "%" that starts no
 * encoded byte (`/%E0%A4%A`) where RFC 3986 has no such URL, and every later decoding of it
 * would throw, so it is refused here with the other unparsable input. Whether the URL may be
 * fetched (https, public address) is the fetcher's decision, made on every hop.
 */
export function parseRemoteMediaUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    const details = [{ path: 'url', message: 'not a URL' }];
    throw new DomainError('validation_failed', 'url is not a valid URL', details, { cause: error });
  }
  if (strayPercent.test(url.href)) {
    throw new DomainError('validation_failed', 'url has a "%" that is not followed by two hexadecimal digits', [
      { path: 'url', message: 'malformed percent-encoding' },
    ]);
  }
  return url;
}

/**
 * The file name a URL suggests: its last path segment, decoded when its bytes are UTF-8, and as
 * written otherwise (`%FF` is a well-formed URL that some servers do serve).
 */
export function remoteMediaName(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).at(-1);
  if (last === undefined) return 'remote-media';
  let name = last;
  try {
    name = decodeURIComponent(last);
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
  }
  return name.slice(0, 200);
}
