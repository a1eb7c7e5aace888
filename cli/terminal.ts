import { AsyncLocalStorage } from 'node:async_hooks';
import { homedir } from 'node:os';

/** Where a stream of the client's output goes: the process's stdout or stderr, or a test's buffer. */
export interface OutputStream {
  write(text: string): unknown;
  /** True on an interactive terminal: progress redraws one line there. */
  readonly isTTY?: boolean;
}

/**
 * What one run of `sps` reads and writes besides the network and its credentials file: its
 * output streams, its environment and its home folder, and the exit code it ends with. The `sps`
 * bin runs one command with the process's own; the tests run many commands in one process, each
 * with its own, so a command reaches its terminal through `terminal()`, never `process` itself.
 */
export interface Terminal {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: NodeJS.ProcessEnv;
  /** The folder `~` names: credentials are kept in `~/.service`. */
  readonly home: string;
  /** 0 unless the command failed, or succeeded in saying something went wrong (`auth:status`). */
  exitCode: number;
}

export function processTerminal(): Terminal {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, home: homedir(), exitCode: 0 };
}

const current = new AsyncLocalStorage<Terminal>();

/** Runs `command` with `terminal` as what `terminal()` answers, in it and everything it awaits. */
export function withTerminal<T>(terminal: Terminal, command: () => Promise<T>): Promise<T> {
  return current.run(terminal, command);
}

/** The terminal of the command running; outside one (a module's top level), the process's own. */
export function terminal(): Terminal {
  return current.getStore() ?? processTerminal();
}
