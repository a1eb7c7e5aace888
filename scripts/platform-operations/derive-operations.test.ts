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
