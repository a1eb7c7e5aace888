import { Command } from 'commander';
import { registerAnalyticsCommands } from './commands/analytics.ts';
import { registerAuthCommands } from './commands/auth.ts';
import { registerIntegrationCommands } from './commands/integrations.ts';
import { registerKeyCommands } from './commands/keys.ts';
import { registerSlotCommands } from './commands/slots.ts';
import { registerMediaCommands } from './commands/media.ts';
import { registerMcpCommand } from './commands/mcp.ts';
import { registerNotificationCommands } from './commands/notifications.ts';
import { registerEventCommands } from './commands/events.ts';
import { registerPostCommands } from './commands/posts.ts';
import { registerVideoCommands } from './commands/video.ts';
import { defaultApiUrl, defaultAuthServer } from './config.ts';
import { credentialsFile } from './credentials-store.ts';
import type { Terminal } from './terminal.ts';

/** Read when the program is built: the credentials file is in the home of the run. */
const credentialsHelp = (): string => `
Credentials:
  Log in once with \`sps auth:login\` (a browser page confirms a one-time code); the
  credentials are saved in ${credentialsFile()} (readable by you only).
  Or set SERVICE_API_KEY to an API key from the account settings.
  When both are present, the saved login wins over SERVICE_API_KEY.

Environment:
  SERVICE_API_KEY      API key, used when there is no saved login
  SERVICE_API_URL      API address, ending in /api (default ${defaultApiUrl});
                       overrides the address saved at login
  SERVICE_AUTH_SERVER  device-flow auth server for auth:login (default ${defaultAuthServer})

Results are JSON on stdout (pipe them to jq); messages and progress go to stderr.
A failure exits with code 1 and the server's message on stderr.
`;

/** The `sps` program, writing to `terminal` and throwing (not exiting) where commander would end the process. */
export function buildProgram(terminal: Terminal): Command {
  const program = new Command('sps')
    .description('SPS, the Social Publishing Service, from the command line: channels, posts, media and more.')
    // Set before the subcommands are added, which copy both.
    .configureOutput({
      writeOut: (text) => { terminal.stdout.write(text); },
      writeErr: (text) => { terminal.stderr.write(text); },
    })
    .exitOverride()
    .showHelpAfterError('(add --help for more information)')
    .addHelpText('after', credentialsHelp());

  const groups: [string, (program: Command) => void][] = [
    ['Authentication:', registerAuthCommands],
    ['Channels (integrations):', registerIntegrationCommands],
    ['Posting slots:', registerSlotCommands],
    ['Posts:', registerPostCommands],
    ['Media:', registerMediaCommands],
    ['Notifications:', registerNotificationCommands],
    ['Events:', registerEventCommands],
    ['Analytics:', registerAnalyticsCommands],
    ['Video:', registerVideoCommands],
    ['API keys:', registerKeyCommands],
    ['AI agents:', registerMcpCommand],
  ];
  for (const [heading, register] of groups) {
    program.commandsGroup(heading);
    register(program);
  }
  return program;
}
