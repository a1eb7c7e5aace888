import { writeFile } from 'node:fs/promises';
import { runTool } from '../media/media-tool.ts';

/** Speaks `text` into an audio file next to `fileStem` (a path without extension) and returns the file. */
export type Narrate = (text: string, fileStem: string) => Promise<string>;

export interface EspeakSettings {
  /** ESPEAK_PATH. */
  command: string;
  voice: string;
  timeoutMs: number;
}

/**
 * Narration by espeak-ng, the speech engine that runs here with no network: the text goes in
 * through a file (never the command line, where a leading dash would read as an option).
 */
export function espeakNarrator(settings: EspeakSettings): Narrate {
  return async (text, fileStem) => {
    const textFile = `${fileStem}.txt`;
    const audioFile = `${fileStem}.wav`;
    await writeFile(textFile, text, 'utf8');
    const args = ['-v', settings.voice, '-w', audioFile, '-f', textFile];
    const run = runTool('espeak-ng', settings.command, args, settings.timeoutMs);
    run.stdout.resume();
    await run.exited;
    return audioFile;
  };
}
