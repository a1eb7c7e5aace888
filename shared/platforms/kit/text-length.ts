import twitterText from 'twitter-text';
import { graphemeCount } from './grapheme-count.ts';
import { mastodonTextLength } from './mastodon-text-length.ts';
import type { TextCounting } from './platform-definition.ts';

/** Length of `text` as the platform counts it. */
export function textLength(text: string, counting: TextCounting): number {
  switch (counting) {
    case 'code-points': {
      let count = 0;
      for (const _ of text) count += 1;
      return count;
    }
    case 'graphemes':
      return graphemeCount(text);
    case 'x-weighted':
      return twitterText.parseTweet(text).weightedLength;
    case 'utf8-bytes':
      return Buffer.byteLength(text, 'utf8');
    case 'utf16-units':
      return text.length;
    case 'mastodon':
      return mastodonTextLength(text);
  }
}

export const countingUnit: Record<TextCounting, string> = {
  'code-points': 'characters',
  graphemes: 'characters',
  'x-weighted': 'weighted characters (URLs count 23, CJK and emoji 2)',
  'utf8-bytes': 'bytes',
  'utf16-units': 'UTF-16 code units (emoji count 2)',
  mastodon: 'characters',
};
