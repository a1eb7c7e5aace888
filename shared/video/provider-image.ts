import { writeFile } from 'node:fs/promises';
import { fileTypeFromBuffer } from 'file-type';
import { AiProviderFailure, type AiProviderClient } from './ai-provider-client.ts';

/** Still formats ffmpeg loops into a scene; anything else from the provider is refused. */
const stillImageExtensions: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** Has the provider picture `prompt` and writes the image next to `fileStem`, checked from its bytes. */
export async function providerImage(
  client: AiProviderClient,
  model: string,
  prompt: string,
  fileStem: string,
): Promise<string> {
  const bytes = await client.image(prompt, model);
  const type = await fileTypeFromBuffer(bytes);
  const extension = type === undefined ? undefined : stillImageExtensions[type.mime];
  if (extension === undefined) {
    const found = type?.mime ?? 'unrecognised';
    throw new AiProviderFailure(`the AI provider's image is not a PNG, JPEG or WebP (${found})`);
  }
  const file = `${fileStem}.${extension}`;
  await writeFile(file, bytes);
  return file;
}
