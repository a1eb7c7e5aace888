import type { Command } from 'commander';
import { activeCredential, describeCredential } from '../active-credential.ts';
import { callApi } from '../api-client.ts';
import { ApiError, describeFailure } from '../cli-error.ts';
import { readEnvironment } from '../config.ts';
import { credentialsFile, removeStoredCredentials } from '../credentials-store.ts';
import { defineCommand } from '../command-definition.ts';
import { deviceLogin } from '../device-login.ts';
import { printJson, say } from '../output.ts';
import { terminal } from '../terminal.ts';

async function login(options: { browser: boolean }): Promise<void> {
  const { authServer } = readEnvironment();
  const { file, credentials } = await deviceLogin({ authServer, openBrowser: options.browser });
  say(`Logged in to organization ${credentials.organizationId} at ${credentials.apiUrl}; credentials saved to ${file}.`);
}

async function status(): Promise<void> {
  const credential = await activeCredential();
  say(`Using ${describeCredential(credential)} against ${credential.apiUrl}.`);
  let valid = true;
  try {
    await callApi(credential, { method: 'GET', path: '/is-connected' });
  } catch (error) {
    valid = false;
    const rejected = error instanceof ApiError && error.status === 401;
    say(rejected ? 'The server does not accept this credential.' : 'Could not confirm the credential:');
    for (const line of describeFailure(error)) say(line);
  }
  printJson({
    credential: credential.kind,
    apiUrl: credential.apiUrl,
    ...(credential.organizationId === null ? {} : { organizationId: credential.organizationId }),
    valid,
  });
  if (!valid) terminal().exitCode = 1;
}

async function logout(): Promise<void> {
  const removed = await removeStoredCredentials();
  say(removed ? `Logged out: removed ${credentialsFile()}.` : `No stored credentials at ${credentialsFile()}; nothing to remove.`);
  if (readEnvironment().apiKey !== null) say('SERVICE_API_KEY is still set, so commands keep using that API key.');
}

export function registerAuthCommands(program: Command): void {
  defineCommand(program, 'auth:login', 'Log in through the browser (device flow) and save the credentials', 'sps auth:login --no-browser')
    .option('--no-browser', 'print the login page address without opening a browser')
    .action(login);
  defineCommand(program, 'auth:status', 'Say which credential is used and check that the server accepts it', 'sps auth:status')
    .action(status);
  defineCommand(program, 'auth:logout', 'Remove the stored OAuth credentials', 'sps auth:logout')
    .action(logout);
}
