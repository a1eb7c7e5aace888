import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSmallMedia } from '../support/small-media.ts';
import { runProcess, type ScriptResult } from '../support/processes.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import {
  answerKeys, documentedCommands, documents, projectRoot, shellCommands, type DocumentedCommand,
} from './documented-commands.ts';

/**
 * Commands the documents show that this suite does not type, each with why. Every other command
 * of a ```sh block in README.md or docs/ runs here as written, in the documents' order, with only
 * its placeholders (`<apiKey>`, `<channel id>`...) filled and `localhost:5000` pointed at this
 * file's api. An entry no document has any more fails the test, so the list cannot go stale.
 */
const notTyped: Readonly<Record<string, string>> = {
  'npm install': 'the suite runs in the tree npm install made',
  'npm start': 'this file starts the same api and workers in-process, on a port and database of its own',
  'npm test': 'the suite itself',
  'ALLOW_PRIVATE_NETWORK=true npm start': 'as `npm start`, and test contexts set ALLOW_PRIVATE_NETWORK=true',
  ['DATABASE_URL=postgres://... SERVICE_OAUTH_CLIENT_ID=pca_... SERVICE_OAUTH_CLIENT_SECRET=pcs_... '
    + 'SERVER_URL=https://auth.example.com SERVICE_FRONTEND_URL=https://sps.example.com '
    + 'SERVICE_API_URL=https://sps.example.com/api npm run start:auth-server']:
    'a server for the values the line before prints; auth-server/*.test.ts start it with real ones',
};

/** Commands left running while the rest are typed, as the README's "terminal 2". */
const inBackground = new Set(['npm run simulator:mastodon']);

type Typed = ScriptResult;

describe('every command README and docs/ show, typed as written', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let home: string;
  const background: ChildProcess[] = [];
  const known = new Map<string, string>();
  const env: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: true });
    // The user's shell: the project's Node first, npx offline (nothing may download), a home of
    // its own for the CLI's credentials, and a folder where `npx sps` is installed with a video.
    home = mkdtempSync(path.join(tmpdir(), 'sps-docs-'));
    mkdirSync(path.join(home, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(path.join(projectRoot, 'cli', 'sps.mjs'), path.join(home, 'node_modules', '.bin', 'sps'));
    const media = makeSmallMedia();
    copyFileSync(media.mp4, path.join(home, 'video.mp4'));
    media.remove();
    Object.assign(env, ctx.env, {
      HOME: home,
      PATH: `${path.join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
      SPS: stack.baseUrl,
      SERVICE_API_URL: `${stack.baseUrl}/api`,
    });
  });
  afterAll(async () => {
    for (const child of background) if (child.pid !== undefined) process.kill(-child.pid, 'SIGINT');
    await stack.close();
    await ctx.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  const apiAddress = () => stack.baseUrl.replace(/^http:\/\//, '');

  /** The command with its placeholders filled from what earlier commands printed. */
  function filled(command: DocumentedCommand): string {
    const text = command.command.replaceAll('localhost:5000', apiAddress());
    return text.replace(/<([a-zA-Z0-9 ]+)>/g, (whole, name: string) => {
      // docs/api.md's `<id>` is the key it just made; docs/cli.md's is a channel's.
      const key = name === 'id' ? `${command.file}:id` : name;
      const value = name === '501 characters' ? 'x'.repeat(501) : known.get(key);
      if (value === undefined) throw new Error(`${where(command)} uses ${whole}, which no earlier command printed`);
      return value;
    });
  }

  const where = (command: DocumentedCommand) => `${command.file}:${String(command.line)}`;

  const type = (text: string, cwd: string): Promise<Typed> => runProcess('bash', ['-c', text], { cwd, env });

  async function startInBackground(text: string): Promise<string> {
    const child = spawn('bash', ['-c', text], { cwd: projectRoot, env, detached: true });
    background.push(child);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    return waitFor(() => (/^\{.*\}$/m.exec(stdout) ?? undefined)?.[0], { what: text, timeoutMs: 30_000 });
  }

  /** The JSON a command printed: all of stdout (the CLI's), or what follows npm's banner lines. */
  function json(output: string): unknown {
    const lines = output.trim().split('\n');
    const start = lines.findIndex((line) => line.startsWith('{') || line.startsWith('['));
    return JSON.parse(lines.slice(Math.max(start, 0)).join('\n'));
  }
  const firstId = (value: unknown): string => /"(?:id|postId)":"([0-9a-f]{24})"/.exec(JSON.stringify(value))?.[1] ?? '';

  /** Remembers what a command printed that later commands name, and plays the browser's part. */
  async function learn(command: DocumentedCommand, output: string): Promise<void> {
    const text = command.command;
    const printed = output.trim() === '' ? null : json(output);
    if (text.includes('org:create')) {
      const { apiKey } = printed as { apiKey: string };
      known.set('apiKey', apiKey);
      Object.assign(env, { KEY: apiKey, SPS_API_KEY: apiKey, SPS_KEY: apiKey, SERVICE_API_KEY: apiKey });
    } else if (text.includes('/social/mastodon')) {
      // "Open the URL this prints in a browser": the simulator approves and sends the browser back.
      const consent = await fetch((printed as { url: string }).url, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location') ?? '');
      const page = await fetch(`${stack.baseUrl}${back.pathname}${back.search}`);
      expect(page.status, await page.text()).toBe(200);
    } else if (/v1\/integrations -H/.test(text)) {
      const channelId = firstId(printed);
      const names = ['channel id', 'mastodon channel id', 'channelId', 'docs/cli.md:id'];
      for (const name of names) known.set(name, channelId);
    } else if (text.includes('posts:create') && text.includes('--type now')) {
      known.set('postId', firstId(printed));
    } else if (text.includes('--repeat-rule')) {
      known.set('occurrenceId', firstId(printed));
    } else if (text.includes('events?limit=')) {
      known.set('cursor', (printed as { cursor: string }).cursor);
    } else if (text.includes('/api-keys" -H') && text.includes('-d ')) {
      known.set('docs/api.md:id', firstId(printed));
    }
  }

  /**
   * The feed holds its newest seconds back (shared/domain/events/event-feed.ts); a reader comes to
   * the events section well after their first post, so the test waits as long.
   */
  async function eventsServed(): Promise<void> {
    await waitFor(async () => {
      const answer = await fetch(`${stack.baseUrl}/api/public/v1/events`, {
        headers: { Authorization: known.get('apiKey') ?? '' },
      });
      const { events } = await answer.json() as { events: unknown[] };
      return events.length > 0 ? true : undefined;
    }, { what: 'the first event in the feed' });
  }

  /** What the reader sees must be what the document promised: no error, the keys it shows. */
  function expectAnswered(command: DocumentedCommand, typed: Typed): void {
    const shown = `${where(command)} \`${command.command}\`\n${typed.stdout}\n${typed.stderr}`;
    expect(typed.code, shown).toBe(0);
    if (!command.command.startsWith('curl')) return;
    const printed = json(typed.stdout);
    expect(JSON.stringify(printed), shown).not.toMatch(/^\{"statusCode":[45]\d\d/);
    if (command.answer !== null) {
      for (const key of answerKeys(command.answer)) expect(JSON.stringify(printed), shown).toContain(`"${key}":`);
    }
  }

  it('reads the commands as bash would: continuations joined, comments off, answers kept', () => {
    const markdown = [
      '```sh', 'curl -s x \\', '  -d \'{"a":1,', '"b":2}\'   # the call', '# {"a":1,', '#   "b":2}', '# a note',
      'npx sps list # "#" in a comment', '```', '```json', '{"not": "a command"}', '```',
    ].join('\n');
    expect(shellCommands('doc.md', markdown)).toEqual([
      { file: 'doc.md', line: 2, command: 'curl -s x -d \'{"a":1,\n"b":2}\'', answer: '{"a":1,"b":2}' },
      { file: 'doc.md', line: 8, command: 'npx sps list', answer: null },
    ]);
    expect(answerKeys('{"valid":false,"problems":[{"valid":1}]}')).toEqual(['valid', 'problems']);
  });

  it('runs every command of README.md and docs/ that a reader would type, in order', async () => {
    const commands = documentedCommands();
    const untyped = new Set(Object.keys(notTyped));
    for (const command of commands) {
      if (untyped.delete(command.command)) continue;
      const text = filled(command);
      if (inBackground.has(command.command)) {
        known.set('instance', (JSON.parse(await startInBackground(text)) as { instance: string }).instance);
        continue;
      }
      if (command.command.includes('events?limit=')) await eventsServed();
      const typed = await type(text, command.command.startsWith('npx sps') ? home : projectRoot);
      expectAnswered(command, typed);
      await learn(command, typed.stdout);
    }
    expect([...untyped], 'commands excused that no document shows any more').toEqual([]);
    expect(commands.length).toBeGreaterThan(25);
    // The tour's post went out: the simulator's consent made a channel, and the post was published.
    await waitFor(async () => (await ctx.db.posts.exists({ content: 'a reply', state: 'PUBLISHED' })) ?? undefined, {
      what: 'the README tour\'s reply published', timeoutMs: 30_000,
    });
  }, 240_000);

  it('names only npm scripts that exist wherever a document mentions `npm run`', () => {
    const scripts = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }).scripts;
    const named = documents().flatMap((file) => [...readFileSync(path.join(projectRoot, file), 'utf8')
      .matchAll(/npm run ([\w:-]+)/g)].map((match) => ({ file, script: match[1] ?? '' })));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter(({ script }) => scripts[script] === undefined)).toEqual([]);
  });
});
