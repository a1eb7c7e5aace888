import type { Page } from 'playwright-core';
import { newAccount } from './dashboard-client.ts';

/**
 * A new person signs up through the dashboard's form in Chromium, finding each field by the label
 * they read, and lands past the sign-up page. The account's email, password and organization name
 * come back for the test's later steps.
 */
export async function signUpInChromium(page: Page, label: string): Promise<ReturnType<typeof newAccount>> {
  const account = newAccount(label);
  await page.goto('/signup');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByLabel('Organization name').fill(account.organization);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL((url) => url.pathname !== '/signup');
  return account;
}
