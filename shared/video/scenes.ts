/**
 * How text becomes the scenes of a slideshow and how long each lasts. Pure: the request's checks
 * (api) and the generation (worker) both use it, so what was allowed is what gets made.
 */

/** Longest caption of one scene; a longer paragraph is split at its sentence ends. */
export const maxSceneChars = 200;

/** Silence after each narration, so one scene does not run into the next. */
const sceneTailSeconds = 0.4;

/** A scene stays on screen at least this long, even when its narration is a single word. */
const minSceneSeconds = 1;

/** espeak-ng reads about 175 words a minute at its default speed. */
const wordsPerSecond = 175 / 60;

const collapseSpaces = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Joins pieces with a space into chunks of at most `limit` characters, in order. */
function pack(pieces: string[], limit: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    const joined = current === '' ? piece : `${current} ${piece}`;
    if (joined.length <= limit) {
      current = joined;
      continue;
    }
    if (current !== '') chunks.push(current);
    current = piece;
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/** Splits a word longer than `limit` into pieces that fit. */
function breakLongWord(word: string, limit: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < word.length; start += limit) pieces.push(word.slice(start, start + limit));
  return pieces;
}

const words = (text: string, limit: number): string[] =>
  text.split(' ').filter(Boolean).flatMap((word) => (word.length > limit ? breakLongWord(word, limit) : [word]));

/**
 * The scenes of a text: one per paragraph (paragraphs are separated by a blank line), a paragraph
 * over `maxSceneChars` split between sentences, and a sentence over it between words.
 */
export function splitIntoScenes(text: string): string[] {
  const paragraphs = text.split(/\n\s*\n/).map(collapseSpaces).filter((paragraph) => paragraph !== '');
  return paragraphs.flatMap((paragraph) => {
    if (paragraph.length <= maxSceneChars) return [paragraph];
    const sentences = paragraph.split(/(?<=[.!?…])\s+/).flatMap((sentence) =>
      (sentence.length <= maxSceneChars ? [sentence] : pack(words(sentence, maxSceneChars), maxSceneChars)));
    return pack(sentences, maxSceneChars);
  });
}

/** The caption's lines: words wrapped at `maxCharsPerLine`, a word longer than a line broken. */
export function wrapCaption(text: string, maxCharsPerLine: number): string[] {
  return pack(words(collapseSpaces(text), maxCharsPerLine), maxCharsPerLine);
}

/** How long a scene lasts once its narration is known. */
export function sceneSeconds(narrationSeconds: number): number {
  return Math.max(minSceneSeconds, narrationSeconds + sceneTailSeconds);
}

/** A request-time estimate of the video's length, before anything is narrated. */
export function estimatedSeconds(scenes: readonly string[]): number {
  return scenes.reduce((total, scene) => {
    const count = scene.split(/\s+/).filter(Boolean).length;
    return total + sceneSeconds(count / wordsPerSecond);
  }, 0);
}
