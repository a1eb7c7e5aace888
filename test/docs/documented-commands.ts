import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One command a reader would type, as a `sh` block of README or docs/ writes it. */
export interface DocumentedCommand {
  /** The document, relative to the project root (`docs/api.md`). */
  file: string;
  /** Where the command starts in the document, counted from 1. */
  line: number;
  /** The command with its continuation lines joined and its trailing comment removed. */
  command: string;
  /**
   * The answer the document shows under the command (`# {"valid":false,...}` comment lines),
   * without the comment marks; null when it shows none.
   */
  answer: string | null;
}

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/** README.md and every Markdown file in docs/: what a clone gives its reader. */
export function documents(): string[] {
  const docs = readdirSync(path.join(projectRoot, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.sort().map((name) => `docs/${name}`)];
}

/**
 * The text of one line before a `#` that starts a comment (outside quotes, at the start or after a
 * space), and the quote still open at its end: a quoted string may run on to the next line.
 */
function withoutComment(line: string, openQuote: string | null): { text: string; openQuote: string | null } {
  let quote = openQuote;
  for (let index = 0; index < line.length; index += 1) {
    const char = line.charAt(index);
    if (quote !== null) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === '\'') {
      quote = char;
    } else if (char === '#' && (index === 0 || /\s/.test(line.charAt(index - 1)))) {
      return { text: line.slice(0, index).trimEnd(), openQuote: null };
    }
  }
  return { text: line.trimEnd(), openQuote: quote };
}

/** The commands of every ```sh block of one Markdown document, in order. */
export function shellCommands(file: string, markdown: string): DocumentedCommand[] {
  const commands: DocumentedCommand[] = [];
  const lines = markdown.split('\n');
  let inShell = false;
  let pending: { line: number; text: string; openQuote: string | null } | null = null;
  // An answer comment runs on over the comment lines indented under its first.
  let answering: DocumentedCommand | null = null;
  lines.forEach((raw, index) => {
    const fence = /^```(\w*)/.exec(raw);
    if (fence !== null) {
      inShell = !inShell && fence[1] === 'sh';
      answering = null;
      return;
    }
    if (!inShell) return;
    const trimmed = raw.trim();
    if (pending === null && trimmed.startsWith('#')) {
      const comment = trimmed.replace(/^#\s?/, '');
      const last = commands.at(-1);
      if (comment.startsWith('{') && last !== undefined) {
        last.answer = comment;
        answering = last;
      } else if (answering !== null && /^#\s{2,}/.test(trimmed)) {
        answering.answer = `${answering.answer ?? ''}${comment.trim()}`;
      } else {
        answering = null;
      }
      return;
    }
    answering = null;
    if (trimmed === '' && pending === null) return;
    const { text, openQuote } = withoutComment(raw, pending?.openQuote ?? null);
    // A line ending in a backslash goes on (bash drops the backslash and the newline); so does a
    // quoted string left open, which keeps its newline.
    const continued = openQuote === null && text.endsWith('\\');
    const piece = continued ? text.slice(0, -1).trim() : text.trim();
    const joined = pending === null ? piece : `${pending.text}${pending.openQuote === null ? ' ' : '\n'}${piece}`;
    pending = { line: pending?.line ?? index + 1, text: joined, openQuote };
    if (!continued && openQuote === null) {
      commands.push({ file, line: pending.line, command: pending.text, answer: null });
      pending = null;
    }
  });
  return commands;
}

/** Every documented command of README and docs/, in reading order. */
export function documentedCommands(): DocumentedCommand[] {
  return documents().flatMap((file) => shellCommands(file, readFileSync(path.join(projectRoot, file), 'utf8')));
}

/** The names of the JSON keys an answer shows (`"valid":`, `"problems":`...), in order of first appearance. */
export function answerKeys(answer: string): string[] {
  return [...new Set([...answer.matchAll(/"([A-Za-z_]\w*)":/g)].map((match) => match[1] ?? ''))];
}
