import { z } from 'zod';
import { AiProviderFailure, type AiProviderClient } from './ai-provider-client.ts';
import { maxSceneChars } from './scenes.ts';

/** One scene of a script the provider wrote: what is said (and shown), and what to picture. */
export interface ScriptScene {
  text: string;
  imagePrompt: string | null;
}

export interface ScriptBounds {
  maxScenes: number;
  maxTextChars: number;
  maxSeconds: number;
}

const scriptAnswer = z.object({
  scenes: z.array(z.object({
    text: z.string(),
    imagePrompt: z.string().nullish(),
  })).min(1),
});

/** A narrator reads about two and a half words a second: the word budget the model is given. */
const wordsPerSecond = 2.5;

function instructions(bounds: ScriptBounds): string {
  const words = Math.max(5, Math.floor(bounds.maxSeconds * wordsPerSecond));
  return [
    'You write the script of a short narrated slideshow video.',
    'Answer with one JSON object and nothing else, shaped {"scenes": [{"text": "...", "imagePrompt": "..."}]}.',
    '"text" is what the narrator says and the caption shows: one or two short sentences.',
    '"imagePrompt" describes a picture for the scene, with no text in it.',
    `Use at most ${bounds.maxScenes} scenes and ${words} words of text in all.`,
    'Write the text in the language of the request.',
  ].join(' ');
}

/** Models often wrap JSON in a Markdown fence even when asked not to. */
function withoutFence(content: string): string {
  const fenced = /^\s*```(?:json)?([\s\S]*)```\s*$/i.exec(content);
  return fenced?.[1] ?? content;
}

/** Cuts a scene's text to what one caption holds, at a word boundary. */
function captionSized(text: string): string {
  const collapsed = text.replace(/\s+/g, ' ').trim();
  if (collapsed.length <= maxSceneChars) return collapsed;
  const cut = collapsed.slice(0, maxSceneChars - 1);
  const lastSpace = cut.lastIndexOf(' ');
  return `${lastSpace > 0 ? cut.slice(0, lastSpace) : cut}…`;
}

/**
 * Asks the provider for the script of a video about `prompt`, and holds what comes back to the
 * same bounds as a request's own text: scenes, characters (the duration is cut by the render).
 */
export async function writeScript(
  client: AiProviderClient,
  prompt: string,
  bounds: ScriptBounds,
): Promise<ScriptScene[]> {
  const content = await client.chat([
    { role: 'system', content: instructions(bounds) },
    { role: 'user', content: prompt },
  ], { json: true });
  let parsed: unknown;
  try {
    parsed = JSON.parse(withoutFence(content));
  } catch (error) {
    throw new AiProviderFailure('the AI provider\'s script is not JSON', { cause: error });
  }
  const script = scriptAnswer.safeParse(parsed);
  if (!script.success) {
    throw new AiProviderFailure(`the AI provider's script could not be read: ${script.error.message}`);
  }
  const scenes: ScriptScene[] = [];
  let characters = 0;
  for (const scene of script.data.scenes.slice(0, bounds.maxScenes)) {
    const text = captionSized(scene.text);
    if (text === '') continue;
    if (scenes.length > 0 && characters + text.length > bounds.maxTextChars) break;
    characters += text.length;
    const imagePrompt = scene.imagePrompt?.trim() ?? '';
    scenes.push({ text, imagePrompt: imagePrompt === '' ? null : imagePrompt });
  }
  if (scenes.length === 0) throw new AiProviderFailure('the AI provider\'s script has no text to narrate');
  return scenes;
}
