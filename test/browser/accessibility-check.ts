import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * axe finds no serious or critical violation on the page as it is now, in the light and the dark
 * colour scheme (issue 35); each one found is listed with the elements it concerns.
 */
export async function expectNoSeriousViolations(page: Page): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const results = await new AxeBuilder({ page }).analyze();
    const serious = results.violations.filter((violation) =>
      violation.impact === 'serious' || violation.impact === 'critical');
    expect(serious.map((violation) => `${colorScheme}: ${violation.id} ${violation.nodes.map((node) =>
      node.target.join(' ')).join(', ')}`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
