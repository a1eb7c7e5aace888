import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationDocPath, configurationSettings, renderConfigurationDoc } from './configuration-doc.ts';

describe('docs/configuration.md', () => {
  it('is what the configuration schema renders', () => {
    const written = readFileSync(configurationDocPath, 'utf8');
    // One comparison rather than toEqual's diff of 900 lines: the fix is always the same command.
    expect(written === renderConfigurationDoc(), 'docs/configuration.md is stale: run `npm run docs:config`')
      .toBe(true);
  });

  it('describes every setting', () => {
    const undescribed = configurationSettings()
      .filter((setting) => (setting.description ?? '').trim() === '')
      .map((setting) => setting.name);
    expect(undescribed, 'give each a .describe() as its outermost call in shared/config/').toEqual([]);
  });

  it('keeps every line under 120 characters', () => {
    const long = renderConfigurationDoc().split('\n').filter((line) => line.length > 120);
    expect(long).toEqual([]);
  });
});
