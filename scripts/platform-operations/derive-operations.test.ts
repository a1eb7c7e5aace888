import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operationSelection } from '../../test/simulators/kit/operation-file.ts';
import { deriveOperations, selectionFiles, specsDir } from './derive-operations.ts';

// The descriptions sit beside the repository (the steering side's platform-specs folder); a clone
// without them still runs every simulator from the written operations.json files.
describe.skipIf(!existsSync(specsDir))('each simulator\'s operations.json', () => {
  it.each(selectionFiles().map((file) => [path.basename(path.dirname(file)), file]))(
    '%s is what npm run operations:derive writes from its description and corrections',
    (_platform, file) => {
      const selection = operationSelection.parse(JSON.parse(readFileSync(file, 'utf8')));
      const written: unknown = JSON.parse(readFileSync(path.join(path.dirname(file), 'operations.json'), 'utf8'));
      expect(written).toEqual(deriveOperations(selection));
    },
  );
});

describe.skipIf(!existsSync(specsDir))('a selection with further descriptions (alsoDescribedBy)', () => {
  const youtube = 'google-discovery/youtube/v3/youtube-api.json';
  const selection = (further: { description: string; format: 'discovery' | 'openapi'; routes: string[] }[]) =>
    operationSelection.parse({
      platform: 'example', description: youtube, format: 'discovery', routes: ['GET /youtube/v3/channels'],
      alsoDescribedBy: further,
    });

  it('joins their operations and definitions, and records where each came from', () => {
    const performance = 'google-discovery/businessprofileperformance/v1/businessprofileperformance-api.json';
    const derived = deriveOperations(selection([{
      description: performance, format: 'discovery', routes: ['GET /v1/{+location}:fetchMultiDailyMetricsTimeSeries'],
    }]));
    expect(derived.operations.map((operation) => operation.route))
      .toEqual(['GET /youtube/v3/channels', 'GET /v1/{+location}:fetchMultiDailyMetricsTimeSeries']);
    expect(derived.definitions).toHaveProperty('ChannelListResponse');
    expect(derived.definitions).toHaveProperty('FetchMultiDailyMetricsTimeSeriesResponse');
    expect(derived.source.alsoDescribedBy).toHaveLength(1);
    const [further] = derived.source.alsoDescribedBy ?? [];
    expect(further).toMatchObject({ description: performance, format: 'discovery' });
    expect(further?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('fails on a route two descriptions both describe', () => {
    expect(() => deriveOperations(selection([
      { description: youtube, format: 'discovery', routes: ['GET /youtube/v3/channels'] },
    ]))).toThrow('GET /youtube/v3/channels is already described');
  });
});

