import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

export type MediaToolName = 'ffprobe' | 'ffmpeg';

/** Every external program SPS runs on media: the media tools, and the speech engine video generation narrates with. */
export type ToolName = MediaToolName | 'espeak-ng';

/** The Debian package that brings each tool, for the message of a tool that is missing. */
const debianPackageOf: Record<ToolName, string> = { ffprobe: 'ffmpeg', ffmpeg: 'ffmpeg', 'espeak-ng': 'espeak-ng' };

/** The commands run for each tool: names looked up on PATH, or paths (FFPROBE_PATH, FFMPEG_PATH). */
export type MediaToolCommands = Readonly<Record<MediaToolName, string>>;

export const mediaToolsOnPath: MediaToolCommands = { ffprobe: 'ffprobe', ffmpeg: 'ffmpeg' };

/**
 * The tool is not installed where SPS looks for it: the server's fault, not the media's, so it
 * must never be reported as a file the user should fix.
 */
export class MediaToolMissing extends Error {
  readonly tool: ToolName;
  constructor(tool: ToolName, command: string, options?: { cause?: unknown }) {
    const install = `install the ${debianPackageOf[tool]} package`;
    super(`${tool} is not installed on this server (looked for "${command}"; ${install})`, options);
    this.name = 'MediaToolMissing';
    this.tool = tool;
  }
}

/** How a spawn says the command does not exist. */
export function isMissingCommand(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Whether a command can be started: a path that is an executable file, or a name found so on
 * PATH. For runners that cannot be trusted with a missing command: fluent-ffmpeg, once it has
 * checked one ffmpeg's capabilities, spawns the next command straight and throws an uncaught
 * TypeError from its exit handler when the spawn fails, which would take the process down.
 */
export function commandExists(command: string): boolean {
  const executable = (file: string): boolean => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false; // absent or not executable: both mean the command cannot be started from here
    }
  };
  if (command.includes('/')) return executable(command);
  return (process.env.PATH ?? '').split(path.delimiter).some((folder) => folder !== ''
    && executable(path.join(folder, command)));
}

/** The tool ran past its time limit and was killed. */
export class MediaToolTimeout extends Error {
  readonly tool: ToolName;
  readonly timeoutMs: number;
  constructor(tool: ToolName, timeoutMs: number) {
    super(`${tool} did not finish within ${timeoutMs} ms and was stopped`);
    this.name = 'MediaToolTimeout';
    this.tool = tool;
    this.timeoutMs = timeoutMs;
  }
}

/** The tool exited with an error (the input is not media it can read), or could not be started. */
export class MediaToolFailure extends Error {
  readonly tool: ToolName;
  constructor(tool: ToolName, message: string, options?: { cause?: unknown }) {
    super(`${tool} failed: ${message}`, options);
    this.name = 'MediaToolFailure';
    this.tool = tool;
  }
}

export interface MediaToolRun {
  /** What the tool writes on stdout, as it comes. */
  stdout: Readable;
  /** Settles when the process has exited: fails with MediaToolTimeout or MediaToolFailure. */
  exited: Promise<void>;
}

/** Only the end of stderr is kept for the error message: ffmpeg can write a lot of it. */
const stderrKeptBytes = 2048;

/**
 * Runs ffprobe or ffmpeg with a hard time limit. At the limit the process gets SIGKILL: ffmpeg
 * handles SIGTERM itself and only stops at its next check, which a process blocked opening its
 * input (a FIFO, a server that never answers) never reaches. ffprobe runs through here rather
 * than fluent-ffmpeg's `ffprobe()`, which gives no handle on the process to stop it.
 */
export function runMediaTool(
  tool: MediaToolName,
  args: readonly string[],
  timeoutMs: number,
  commands: MediaToolCommands = mediaToolsOnPath,
): MediaToolRun {
  return runTool(tool, commands[tool], ['-hide_banner', ...args], timeoutMs);
}

/** Runs any tool as `runMediaTool` runs the media tools: the same time limit, SIGKILL and errors. */
export function runTool(tool: ToolName, command: string, args: readonly string[], timeoutMs: number): MediaToolRun {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => { stderr = (stderr + text).slice(-stderrKeptBytes); });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(isMissingCommand(error)
        ? new MediaToolMissing(tool, command, { cause: error })
        : new MediaToolFailure(tool, error.message, { cause: error }));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) reject(new MediaToolTimeout(tool, timeoutMs));
      else if (code === 0) resolve();
      else {
        const said = stderr.trim();
        reject(new MediaToolFailure(tool, said === '' ? `exit ${code ?? signal ?? 'unknown'}` : said));
      }
    });
  });
  return { stdout: child.stdout, exited };
}
