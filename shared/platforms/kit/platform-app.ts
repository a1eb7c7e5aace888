import { z } from 'zod';
import type { PlatformApp } from './platform-connect.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

/** Where a platform answers unless the operator (or a test) points SPS elsewhere. */
export interface PlatformUrls {
  apiUrl: string;
  /** Defaults to apiUrl. */
  authUrl?: string;
  /** Defaults to apiUrl. */
  tokenUrl?: string;
}

const origin = z.url().transform((url) => url.replace(trailingSlashes, ''));

/** `linkedin-page` reads LINKEDIN_PAGE_CLIENT_ID and so on. */
export function platformEnvPrefix(identifier: string): string {
  return identifier.toUpperCase().replace(/-/g, '_');
}

/**
 * A platform's app registration from the environment: `<P>_CLIENT_ID`, `<P>_CLIENT_SECRET`,
 * `<P>_BOT_TOKEN`, `<P>_API_URL`, `<P>_AUTH_URL`, `<P>_TOKEN_URL` (docs/configuration.md, Platforms).
 * A malformed URL stops start-up with the variable's name rather than failing the first user who
 * tries to connect.
 */
export function readPlatformApp(identifier: string, defaults: PlatformUrls, env: NodeJS.ProcessEnv): PlatformApp {
  const prefix = platformEnvPrefix(identifier);
  const text = (name: string): string | null => {
    const value = env[`${prefix}_${name}`]?.trim() ?? '';
    return value === '' ? null : value;
  };
  const url = (name: string, fallback: string): string => {
    const parsed = origin.safeParse(text(name) ?? fallback);
    if (!parsed.success) throw new Error(`${prefix}_${name} must be an http(s) URL`);
    return parsed.data;
  };
  const apiUrl = url('API_URL', defaults.apiUrl);
  return {
    clientId: text('CLIENT_ID'),
    clientSecret: text('CLIENT_SECRET'),
    botToken: text('BOT_TOKEN'),
    apiUrl,
    authUrl: url('AUTH_URL', defaults.authUrl ?? apiUrl),
    tokenUrl: url('TOKEN_URL', defaults.tokenUrl ?? apiUrl),
  };
}

/** What an operator sets for a platform: app registration, and a bot token where a bot posts. */
export type AppSetting = 'CLIENT_ID' | 'CLIENT_SECRET' | 'BOT_TOKEN';

export function appSettingValue(app: PlatformApp, setting: AppSetting): string | null {
  if (setting === 'CLIENT_ID') return app.clientId;
  if (setting === 'CLIENT_SECRET') return app.clientSecret;
  return app.botToken;
}
