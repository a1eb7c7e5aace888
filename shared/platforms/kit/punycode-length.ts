/** RFC 3492's parameters for IDNA (section 5). */
const base = 36;
const tMin = 1;
const tMax = 26;
const skew = 38;
const damp = 700;
const initialBias = 72;
const initialN = 0x80;
const maxInt = 0x7fffffff;

/** Code points as the punycode package reads them: a lone surrogate stays a value of its own. */
function codePoints(text: string): number[] {
  const points: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      points.push(((unit - 0xd800) << 10) + (next - 0xdc00) + 0x10000);
      index += 1;
    } else {
      points.push(unit);
    }
  }
  return points;
}

function adapt(delta: number, points: number, firstTime: boolean): number {
  let scaled = firstTime ? Math.floor(delta / damp) : delta >> 1;
  scaled += Math.floor(scaled / points);
  let k = 0;
  while (scaled > ((base - tMin) * tMax) >> 1) {
    scaled = Math.floor(scaled / (base - tMin));
    k += base;
  }
  return Math.floor(k + ((base - tMin + 1) * scaled) / (scaled + skew));
}

/**
 * Length of the Punycode encoding of `text` (RFC 3492 section 6.3, without the `xn--`), or
 * null where the encoder would overflow. Only the length is needed: twitter-text refuses a
 * link whose host name has a label over 63 characters once encoded. Quadratic in the number of
 * code points, as the encoder is: callers pass labels already known to be short.
 */
export function punycodeLength(text: string): number | null {
  const input = codePoints(text);
  const basic = input.filter((point) => point < initialN).length;
  let length = basic > 0 ? basic + 1 : 0;
  let n = initialN;
  let delta = 0;
  let bias = initialBias;
  let handled = basic;
  while (handled < input.length) {
    const m = Math.min(...input.filter((point) => point >= n));
    if (m - n > Math.floor((maxInt - delta) / (handled + 1))) return null;
    delta += (m - n) * (handled + 1);
    n = m;
    for (const point of input) {
      if (point < n) {
        delta += 1;
        if (delta > maxInt) return null;
      }
      if (point !== n) continue;
      let q = delta;
      for (let k = base; ; k += base) {
        const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias;
        if (q < t) break;
        length += 1;
        q = Math.floor((q - t) / (base - t));
      }
      length += 1;
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled += 1;
    }
    delta += 1;
    n += 1;
  }
  return length;
}

/** The separators the punycode package's toASCII treats as dots (its regexSeparators). */
const labelSeparators = /[.\u3002\uff0e\uff61]/;

/**
 * Length of what the punycode package's `toASCII` makes of `label`, as twitter-text's link
 * check measures it: each part between dots (ideographic ones included) stays as it is when
 * printable ASCII, else becomes `xn--` and its encoding. Null where the encoder would overflow.
 */
export function asciiLabelLength(label: string): number | null {
  let length = 0;
  for (const [index, part] of label.split(labelSeparators).entries()) {
    if (index > 0) length += 1;
    if (/^[\x20-\x7e]*$/.test(part)) {
      length += part.length;
      continue;
    }
    const encoded = punycodeLength(part);
    if (encoded === null) return null;
    length += 4 + encoded;
  }
  return length;
}
