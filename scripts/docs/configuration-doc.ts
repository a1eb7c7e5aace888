// Renders docs/configuration.md from the configuration schema and the platform list, so the document cannot
// drift from what SPS reads: `npm run docs:config` writes it, configuration-doc.test.ts fails when it is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { authServerConfigSchema } from '../../auth-server/config.ts';
import { configSchema } from '../../shared/config/config.ts';
import { platformEnvPrefix } from '../../shared/platforms/kit/platform-app.ts';
import type { PlatformModule } from '../../shared/platforms/kit/platform-module.ts';
import { PlatformApps } from '../../shared/platforms/platform-apps.ts';
import { allPlatformModules } from '../../shared/platforms/platforms.ts';

export const configurationDocPath = path.resolve(import.meta.dirname, '..', '..', 'docs', 'configuration.md');

/** Prose lines are wrapped here, well under the 120 columns a line may take. */
const wrapColumn = 100;

/**
 * The document's sections, in order. A setting belongs to the first group naming it, exactly or by a prefix
 * ending in `_`; a setting no group names stops the rendering, so a new one is placed on purpose.
 */
const groups: readonly { title: string; intro: string; names: readonly string[] }[] = [
  {
    title: 'Server',
    intro: 'The api process: where it listens, how it is reached, its secrets and its logs.',
    names: [
      'NODE_ENV', 'HOST', 'PORT', 'FRONTEND_URL', 'BACKEND_URL', 'SECRETS_KEY', 'ALLOW_PRIVATE_NETWORK',
      'TRUST_PROXY_HOPS', 'TRUST_PROXY', 'PASSWORD_HASH_LOG_N', 'LOG_LEVEL', 'HTTP_REQUEST_TIMEOUT_MS',
      'API_CACHE_TTL_MS', 'SHUTDOWN_TIMEOUT_MS', 'METRICS_TOKEN', 'OPERATOR_EMAILS',
    ],
  },
  {
    title: 'Database and storage',
    intro: 'MongoDB for the documents; local files or an S3 bucket for media.',
    names: ['MONGO_URL', 'STORAGE_DRIVER', 'UPLOADS_', 'S3_'],
  },
  {
    title: 'Redis, queues and workers',
    intro: 'Which queues a worker process serves, and the maintenance it does.',
    names: [
      'REDIS_', 'QUEUE_PREFIX', 'WORKER_', 'MAINTENANCE_EVERY_MS', 'NOTIFICATION_RETENTION_DAYS',
    ],
  },
  {
    title: 'Publishing and platform calls',
    intro: 'How many publishes run at once, how they retry, recover and renew tokens.',
    names: ['PUBLISH_', 'TOKEN_REFRESH_', 'PLATFORM_'],
  },
  {
    title: 'Public API limits',
    intro: 'Budgets per organization on the public API.',
    names: ['PUBLIC_API_'],
  },
  {
    title: 'Media',
    intro: 'Uploads, downloads from a URL, and the tools that inspect them.',
    names: ['MEDIA_', 'FFPROBE_', 'FFMPEG_PATH'],
  },
  {
    title: 'Video generation',
    intro: '`POST /generate-video`: its bounds, its local tools, and the provider of the AI video types.',
    names: ['VIDEO_', 'ESPEAK_PATH', 'AI_'],
  },
  {
    title: 'Analytics',
    intro: 'Reading counters from the platforms.',
    names: ['ANALYTICS_'],
  },
  {
    title: 'Webhooks',
    intro: 'Delivering events to the organizations\' endpoints.',
    names: ['WEBHOOK_', 'EVENT_RETENTION_DAYS'],
  },
];

/** Settings read outside the configuration schema, by the test support rather than by SPS. */
const testSettings: readonly { name: string; defaultText: string; description: string }[] = [
  {
    name: 'TEST_LOG_LEVEL',
    defaultText: '`silent`',
    description: 'Tests only: the log level of the services under test; setting it also prints their lines.',
  },
];

interface SettingFacts {
  name: string;
  description: string | undefined;
  defaultText: string;
  accepts: string | undefined;
}

/** The schema a value is checked against, past the default, the optional and any transform around it. */
function unwrap(schema: z.core.$ZodType): { base: z.core.$ZodType; defaultValue: unknown; optional: boolean } {
  let current = schema;
  let defaultValue: unknown = undefined;
  let optional = false;
  for (;;) {
    if (current instanceof z.ZodDefault) {
      // The outermost default is the one a missing variable gets.
      if (defaultValue === undefined) defaultValue = current.def.defaultValue;
      current = current.unwrap();
    } else if (current instanceof z.ZodOptional) {
      optional = true;
      current = current.unwrap();
    } else if (current instanceof z.ZodPipe) {
      // A preprocess is a pipe from a transform: the variable is checked by what follows it. Any other pipe
      // checks the variable on its way in and only reshapes it after.
      current = current.in instanceof z.ZodTransform ? current.out : current.in;
    } else {
      return { base: current, defaultValue, optional };
    }
  }
}

const units: readonly (readonly [number, string])[] = [
  [86_400_000, 'day'], [3_600_000, 'hour'], [60_000, 'minute'], [1_000, 'second'],
];
const byteUnits: readonly (readonly [number, string])[] = [[1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']];

/** `21600000` of a `_MS` setting reads better with "(6 hours)" beside it. */
function readableAmount(name: string, value: number): string {
  if (name.endsWith('_MS')) {
    const unit = units.find(([size]) => value >= size && value % size === 0);
    if (unit === undefined) return '';
    const count = value / unit[0];
    return ` (${count} ${unit[1]}${count === 1 ? '' : 's'})`;
  }
  if (name.endsWith('_BYTES')) {
    const unit = byteUnits.find(([size]) => value >= size && value % size === 0);
    return unit === undefined ? '' : ` (${value / unit[0]} ${unit[1]})`;
  }
  return '';
}

function defaultText(name: string, value: unknown): string {
  if (value === '') return 'empty';
  if (typeof value === 'number') return `\`${value}\`${readableAmount(name, value)}`;
  if (typeof value === 'string' || typeof value === 'boolean') return `\`${String(value)}\``;
  throw new Error(`${name}: a default of type ${typeof value} has no written form here; give it defaultInWords`);
}

function listed(items: readonly string[], conjunction: string): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1) ?? ''}`;
}

/** What the schema lets through, where it says so in a way worth writing: choices, ranges, URLs, lengths. */
function acceptedValues(base: z.core.$ZodType): string | undefined {
  if (base instanceof z.ZodUndefined) return 'nothing: leave it unset or empty';
  const json = z.toJSONSchema(base, { io: 'input', unrepresentable: 'any' });
  if (json.enum !== undefined) return listed(json.enum.map((choice) => `\`${String(choice)}\``), 'or');
  if (json.type === 'integer' || json.type === 'number') {
    const kind = json.type === 'integer' ? 'a whole number' : 'a number';
    const exclusive = typeof json.exclusiveMinimum === 'number' ? json.exclusiveMinimum : undefined;
    const low = json.minimum ?? (exclusive !== undefined && json.type === 'integer' ? exclusive + 1 : undefined);
    // zod bounds every integer by the largest safe one, which says nothing to an operator.
    const high = json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER ? json.maximum : undefined;
    if (low !== undefined && high !== undefined) return `${kind} from ${low} to ${high}`;
    if (low !== undefined) return `${kind}, at least ${low}`;
    if (high !== undefined) return `${kind}, at most ${high}`;
    return kind;
  }
  if (json.format === 'uri') return 'a URL';
  if (json.type === 'string' && json.minLength !== undefined && json.minLength > 1) {
    return `text of at least ${json.minLength} characters`;
  }
  return undefined;
}

function settingFacts(name: string, schema: z.core.$ZodType): SettingFacts {
  const meta = z.globalRegistry.get(schema);
  const { base, defaultValue, optional } = unwrap(schema);
  const words = meta?.defaultInWords;
  let shown: string;
  if (typeof words === 'string') shown = words;
  else if (defaultValue !== undefined) shown = defaultText(name, defaultValue);
  else if (optional || base instanceof z.ZodUndefined) shown = 'unset';
  else shown = 'none: required';
  return { name, description: meta?.description, defaultText: shown, accepts: acceptedValues(base) };
}

/** Every setting of the schema, in the schema's order. */
export function configurationSettings(): SettingFacts[] {
  return Object.entries(configSchema.shape).map(([name, schema]) => settingFacts(name, schema));
}

/** Words joined into lines of at most wrapColumn characters (a longer word keeps a line of its own). */
function wrap(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    // A line starting with `-`, `+`, `>`, `#` or `1.` would turn into a list, a quote or a heading.
    const wouldMarkUp = /^([-+*>#]|\d+[.)])$/.test(word);
    if (line !== '' && line.length + 1 + word.length > wrapColumn && !wouldMarkUp) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function groupOf(name: string): string {
  const group = groups.find((candidate) => candidate.names.some((entry) =>
    entry.endsWith('_') ? name.startsWith(entry) : name === entry));
  if (group === undefined) {
    throw new Error(`${name} belongs to no group: add it to \`groups\` in scripts/docs/configuration-doc.ts`);
  }
  return group.title;
}

function renderSetting(setting: SettingFacts, headingSuffix = ''): string[] {
  const accepts = setting.accepts === undefined ? '' : ` Accepts ${setting.accepts}.`;
  const facts = `Default: ${setting.defaultText}.${accepts}`;
  const description = wrap(setting.description ?? '(no description)');
  return [`### ${setting.name}${headingSuffix}`, '', ...wrap(facts), '', ...description, ''];
}

function platformLines(module: PlatformModule): string[] {
  const { identifier, displayName } = module.definition;
  const prefix = platformEnvPrefix(identifier);
  const urls = module.urls;
  if (urls === undefined) return [];
  const needed = PlatformApps.requiredSettings(module).map((setting) => `\`${prefix}_${setting}\``);
  return [
    `### ${displayName} (\`${identifier}\`)`,
    '',
    needed.length === 0
      ? '- Nothing required: each organization gives its own credentials.'
      : `- Required to connect: ${needed.join(', ')}`,
    `- \`${prefix}_API_URL\`: \`${urls.apiUrl}\``,
    `- \`${prefix}_AUTH_URL\`: \`${urls.authUrl ?? urls.apiUrl}\``,
    `- \`${prefix}_TOKEN_URL\`: \`${urls.tokenUrl ?? urls.apiUrl}\``,
    '',
  ];
}

function platformSection(): string[] {
  const modules = allPlatformModules();
  const ownServer = modules
    .filter((module) => module.urls === undefined)
    .map((module) => module.definition.displayName);
  const intro = 'Read per platform rather than by the schema above (shared/platforms/kit/platform-app.ts), so this '
    + 'section is rendered from the platform list. The prefix is the platform\'s identifier in capitals with '
    + '`_` for `-`. `<PREFIX>_CLIENT_ID` and `<PREFIX>_CLIENT_SECRET` are the operator\'s app at an OAuth '
    + 'platform; a platform without the settings it requires says "not configured" on its button and in '
    + '`GET /social/:provider`. `<PREFIX>_BOT_TOKEN` is the operator\'s bot, which posts for every connected '
    + 'channel of the platform (Discord). `<PREFIX>_API_URL`, `<PREFIX>_AUTH_URL` and `<PREFIX>_TOKEN_URL` say '
    + 'where SPS calls a platform with fixed hosts (the tests point them at simulators); their defaults are the '
    + 'platform\'s own hosts, listed below, and a malformed URL stops start-up naming the variable. How to '
    + 'register each app: [Connecting channels](platforms.md).';
  return [
    '## Platforms',
    '',
    ...wrap(intro),
    '',
    ...wrap(`${listed(ownServer, 'and')}: nothing to set, each organization names its own server.`),
    '',
    ...modules.flatMap(platformLines),
  ];
}

const documentIntro = [
  'Every setting SPS reads, generated from the configuration schema (`shared/config/config.ts` and the schemas '
    + 'it imports) and the platform list by `npm run docs:config`. Edit the descriptions there, not here: '
    + '`scripts/docs/configuration-doc.test.ts` fails when this file differs from what the schema renders.',
  'Settings are environment variables, read once at start-up and validated; a wrong value stops the process with '
    + 'a message naming the variable (every problem at once, not only the first). SPS reads no `.env` file: set '
    + 'them in the environment of each process (the api and every worker group read the same settings). '
    + '`docker compose` fills the variables `docker-compose.yml` names from the shell or a `.env` file beside it. '
    + 'An empty value counts as set, except where a description says otherwise.',
  'The auth server (`auth-server/`) is a process of its own with settings of its own: [Auth server](#auth-server) '
    + 'below, and [Running the auth server](dashboard-and-oauth.md#running-the-auth-server).',
];

/** The device-flow auth server's settings (auth-server/config.ts), a section of their own. */
function authServerSection(): string[] {
  const intro = 'Read by `npm run start:auth-server` (auth-server/config.ts), not by the api or the workers. Names '
    + 'the api also reads (PORT, LOG_LEVEL, TRUST_PROXY_HOPS) are set apart in the auth server\'s environment.';
  return [
    '## Auth server',
    '',
    ...wrap(intro),
    '',
    ...Object.entries(authServerConfigSchema.shape)
      .flatMap(([name, schema]) => renderSetting(settingFacts(name, schema), ' (auth server)')),
  ];
}

/** The whole of docs/configuration.md. */
export function renderConfigurationDoc(): string {
  const settings = configurationSettings();
  const byGroup = new Map<string, SettingFacts[]>();
  for (const setting of settings) {
    const title = groupOf(setting.name);
    byGroup.set(title, [...(byGroup.get(title) ?? []), setting]);
  }
  const anchor = (title: string): string => title.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
  const sections = groups.filter((group) => byGroup.has(group.title));
  const lines = [
    '# Configuration',
    '',
    ...documentIntro.flatMap((paragraph) => [...wrap(paragraph), '']),
    ...[...sections.map((group) => group.title), 'Platforms', 'Auth server', 'Tests']
      .map((title) => `- [${title}](#${anchor(title)})`),
    '',
    ...sections.flatMap((group) => [
      `## ${group.title}`,
      '',
      ...wrap(group.intro),
      '',
      ...(byGroup.get(group.title) ?? []).flatMap((setting) => renderSetting(setting)),
    ]),
    ...platformSection(),
    ...authServerSection(),
    '## Tests',
    '',
    'Read by the test support (`test/support/`), not by SPS.',
    '',
    ...testSettings.flatMap((setting) => renderSetting({ ...setting, accepts: undefined })),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(configurationDocPath, renderConfigurationDoc());
  process.stdout.write(`wrote ${path.relative(process.cwd(), configurationDocPath)}\n`);
}
