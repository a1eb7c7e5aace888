import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { settingFields, settingsFromForm } from './settings-fields.ts';

const schema = z.object({
  title: z.string().max(90).describe('The title'),
  privacy: z.enum(['public', 'private']).optional(),
  notify: z.boolean().default(true),
  delay: z.number().int().optional(),
  langs: z.array(z.string()).optional().describe('Languages'),
  lists: z.array(z.number()),
  target: z.object({ id: z.string() }).optional(),
});

describe('a platform settings form generated from its zod schema', () => {
  it('makes one field per key, typed, with its help, choices, limit and whether it is required', () => {
    expect(settingFields(schema)).toEqual([
      { key: 'title', kind: 'text', required: true, help: 'The title', choices: [], maxLength: 90 },
      { key: 'privacy', kind: 'choice', required: false, help: null, choices: ['public', 'private'], maxLength: null },
      { key: 'notify', kind: 'yes-no', required: false, help: null, choices: [], maxLength: null },
      { key: 'delay', kind: 'number', required: false, help: null, choices: [], maxLength: null },
      { key: 'langs', kind: 'text-list', required: false, help: 'Languages', choices: [], maxLength: null },
      { key: 'lists', kind: 'number-list', required: true, help: null, choices: [], maxLength: null },
      { key: 'target', kind: 'api-only', required: false, help: null, choices: [], maxLength: null },
    ]);
  });

  it('reads the typed values as settings: empty is unset, lists split on commas, numbers as numbers', () => {
    const settings = settingsFromForm(settingFields(schema), {
      title: 'Hello', privacy: '', notify: 'false', delay: '15', langs: 'en, pt-BR,', lists: '1, 2', target: 'x',
    });
    expect(settings).toEqual({ title: 'Hello', notify: false, delay: 15, langs: ['en', 'pt-BR'], lists: [1, 2] });
    // Text that is not a number stays text, so the platform's schema names the problem in its words.
    expect(settingsFromForm(settingFields(schema), { delay: 'soon' })).toEqual({ delay: 'soon' });
    expect(schema.safeParse({ title: 'x', lists: [], delay: 'soon' }).success).toBe(false);
  });
});
