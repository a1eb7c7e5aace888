import { describe, expect, it } from 'vitest';
import { estimatedSeconds, maxSceneChars, sceneSeconds, splitIntoScenes, wrapCaption } from './scenes.ts';

describe('slideshow scenes from text', () => {
  it('makes one scene per paragraph, whatever the spacing around them', () => {
    expect(splitIntoScenes('  First  line\nstill first.\n\n\n  Second.  \n \nThird.')).toEqual([
      'First line still first.', 'Second.', 'Third.',
    ]);
    expect(splitIntoScenes('\n\n  \n')).toEqual([]);
  });

  it('splits a paragraph over the caption size between sentences, and a sentence over it between words', () => {
    const sentence = `${'word '.repeat(30).trim()}.`;
    const scenes = splitIntoScenes(`${sentence} ${sentence}`);
    expect(scenes).toEqual([sentence, sentence]);
    const endless = 'word '.repeat(100).trim();
    const pieces = splitIntoScenes(endless);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((piece) => piece.length <= maxSceneChars)).toBe(true);
    expect(pieces.join(' ')).toBe(endless);
  });

  it('wraps captions at word boundaries, breaking only words longer than a line', () => {
    const lines = ['Tea grows on', 'the hills of', 'Darjeeling'];
    expect(wrapCaption('Tea grows on the hills of Darjeeling', 12)).toEqual(lines);
    expect(wrapCaption('a supercalifragilistic b', 10)).toEqual(['a', 'supercalif', 'ragilistic', 'b']);
  });

  it('gives every scene at least a second, and estimates narration at espeak-ng\'s pace', () => {
    expect(sceneSeconds(0.2)).toBe(1);
    expect(sceneSeconds(2)).toBeCloseTo(2.4);
    // 175 words a minute, plus the pause after each scene.
    expect(estimatedSeconds(['word '.repeat(175)])).toBeCloseTo(60.4);
  });
});
