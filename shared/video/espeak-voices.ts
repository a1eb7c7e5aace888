/** A voice the narration can be read in, as POST /video/function lists it. */
export interface VoiceChoice {
  id: string;
  name: string;
}

/**
 * The espeak-ng voices offered for narration: languages whose captions the DejaVu font can draw
 * (Latin and Cyrillic scripts), so the text on screen never turns into empty boxes. The ids are
 * espeak-ng's own (`espeak-ng --voices`), checked against the installed engine by a test.
 */
export const espeakVoices: readonly VoiceChoice[] = [
  { id: 'en-us', name: 'English (America)' },
  { id: 'en-gb', name: 'English (Great Britain)' },
  { id: 'fr-fr', name: 'French (France)' },
  { id: 'de', name: 'German' },
  { id: 'es', name: 'Spanish (Spain)' },
  { id: 'it', name: 'Italian' },
  { id: 'pt', name: 'Portuguese (Portugal)' },
  { id: 'pt-br', name: 'Portuguese (Brazil)' },
  { id: 'nl', name: 'Dutch' },
  { id: 'pl', name: 'Polish' },
  { id: 'sv', name: 'Swedish' },
  { id: 'tr', name: 'Turkish' },
  { id: 'ru', name: 'Russian' },
];

export const defaultEspeakVoice = 'en-us';
