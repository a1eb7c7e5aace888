import { describe, expect, it } from 'vitest';
import { graphemeCount } from './grapheme-count.ts';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const segmented = (text: string): number => [...segmenter.segment(text)].length;

describe('graphemeCount', () => {
  it.each([
    ['empty text', ''],
    ['printable ASCII', 'Hello, world! ~ {}[]|'],
    ['CR LF as one', 'one\r\ntwo\r\n\r\nthree'],
    ['lone CR and LF apart', 'a\rb\nc\n\rd'],
    ['tabs', 'a\tb'],
    ['an emoji sequence', 'family: 👨‍👩‍👧‍👦!'],
    ['a combining accent', 'cafe\u0301'],
    ['a control character', 'a\u0007b'],
    ['Hangul jamo', '\u1100\u1161\u11a8'],
  ])('counts %s as Intl.Segmenter does', (_what, text) => {
    expect(graphemeCount(text)).toBe(segmented(text));
  });

  it('counts a CR LF pair as one character and printable ASCII one each', () => {
    expect(graphemeCount('ab\r\ncd')).toBe(5);
  });
});
