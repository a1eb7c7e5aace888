const quote = 0x22;
const backslash = 0x5c;
const openBracket = 0x5b;
const openBrace = 0x7b;
const closeBracket = 0x5d;
const closeBrace = 0x7d;

/**
 * How deeply the arrays and objects of JSON text nest, measured on its bytes as they arrive,
 * before anything is parsed: JSON.parse and every walk over its result take time in proportion
 * to the nesting, so a body of a megabyte of `[` keeps the event loop busy for most of a
 * second. Brackets inside strings do not count; the text need not be valid (the parser says
 * what is wrong with it later). UTF-8 never uses these ASCII bytes inside a longer character,
 * so chunks may be cut anywhere.
 */
export class JsonNestingGauge {
  #depth = 0;
  #deepest = 0;
  #inString = false;
  #escaped = false;

  /** The deepest level reached so far. */
  get deepest(): number {
    return this.#deepest;
  }

  feed(chunk: Uint8Array): void {
    for (const byte of chunk) {
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (byte === backslash) this.#escaped = true;
        else if (byte === quote) this.#inString = false;
      } else if (byte === quote) {
        this.#inString = true;
      } else if (byte === openBracket || byte === openBrace) {
        this.#depth += 1;
        if (this.#depth > this.#deepest) this.#deepest = this.#depth;
      } else if (byte === closeBracket || byte === closeBrace) {
        this.#depth -= 1;
      }
    }
  }
}
