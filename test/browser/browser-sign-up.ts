import type { Page } from 'playwright-core';
import { newAccount } from './dashboard-client.ts';

type NewAccount = ReturnType<typeof newAccount>;

/**
 * The person signs up with `account` through the dashboard's form in Chromium, finding each field
 * by the label they read, and lands past the sign-up page.
 */
export async function signUpAs(page: Page, account: NewAccount): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByLabel('Organization name').fill(account.organization);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL((url) => url.pathname !== '/signup');
}

/** A new person signs up (signUpAs); the account comes back for the test's later steps. */
export async function signUpInChromium(page: Page, label: string): Promise<NewAccount> {
  const account = newAccount(label);
  await signUpAs(page, account);
  return account;
}
