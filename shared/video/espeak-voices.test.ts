import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defaultEspeakVoice, espeakVoices } from './espeak-voices.ts';

describe('the espeak-ng voices offered for narration', () => {
  it('are all voices the installed espeak-ng knows', () => {
    const listed = execFileSync('espeak-ng', ['--voices'], { encoding: 'utf8' })
      .split('\n').slice(1).map((line) => line.trim().split(/\s+/)[1]).filter((id) => id !== undefined);
    expect(listed).toEqual(expect.arrayContaining(espeakVoices.map((voice) => voice.id)));
    expect(espeakVoices.map((voice) => voice.id)).toContain(defaultEspeakVoice);
  });
});
