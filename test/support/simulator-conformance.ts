import { afterEach } from 'vitest';
import { takeOffDescription } from '../simulators/kit/conformance-log.ts';

// A setup file of every test file (vitest.config.ts): a test during which a simulator answered off
// its platform's description fails, whatever the test itself asserted.
afterEach(() => {
  const answers = takeOffDescription();
  if (answers.length === 0) return;
  const lines = answers.map(({ platform, route, status, problems }) =>
    `${platform} ${route} answered ${String(status)}: ${problems.join('; ')}`);
  throw new Error(`a simulator answered off its platform's description:\n${lines.join('\n')}`);
});
