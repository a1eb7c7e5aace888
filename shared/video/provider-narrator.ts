import { writeFile } from 'node:fs/promises';
import type { AiProviderClient } from './ai-provider-client.ts';
import type { Narrate } from './espeak-narrator.ts';

/** The file extension for the audio the provider sent; ffmpeg reads the content whatever the name. */
function extensionFor(contentType: string): string {
  if (/wav/i.test(contentType)) return 'wav';
  if (/mpeg|mp3/i.test(contentType)) return 'mp3';
  if (/ogg|opus/i.test(contentType)) return 'ogg';
  if (/aac/i.test(contentType)) return 'aac';
  return 'audio';
}

/** Narration by the AI provider's speech route (AI_SPEECH_MODEL) in one of its voices. */
export function providerNarrator(client: AiProviderClient, model: string, voice: string): Narrate {
  return async (text, fileStem) => {
    const audio = await client.speech(text, model, voice);
    const file = `${fileStem}.${extensionFor(audio.contentType)}`;
    await writeFile(file, audio.bytes);
    return file;
  };
}
