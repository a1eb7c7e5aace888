import { textLength } from '../../../shared/platforms/kit/text-length.ts';
import { randomBytes } from 'node:crypto';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { slackOk, slackRefused, textArgument } from './slack-answers.ts';
import { channelOf, missingScope, type SlackCall } from './slack-call.ts';
import { maxTextCharacters, wrapLinks } from './slack-messages.ts';
import { botId, botUserId, type SlackFile, type SlackMessage, type SlackRecords } from './slack-records.ts';

/** How the simulated workspace shares completed files; tests change these on the running simulator. */
export interface FileSharing {
  /**
   * How long after files.completeUploadExternal answers the file's message appears. Slack shares
   * asynchronously (security scans), so its answer usually carries empty `shares`; 0 shares at once.
   */
  shareDelayMs: number;
  /** The workspace's largest file (Slack: 1 GB); a larger `length` is `file_upload_size_restricted`. */
  maxFileBytes: number;
}

/** The bytes of the first file part of a multipart body; the upload URL takes a raw body or a form. */
function multipartFile(request: SimulatedRequest): Buffer | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(request.headers['content-type'] ?? '');
  const marker = boundary?.[1] ?? boundary?.[2];
  if (marker === undefined) return null;
  const delimiter = Buffer.from(`--${marker}`);
  let start = request.raw.indexOf(delimiter);
  while (start !== -1) {
    const headEnd = request.raw.indexOf('\r\n\r\n', start);
    const next = request.raw.indexOf(delimiter, start + delimiter.length);
    if (headEnd === -1 || next === -1) return null;
    const head = request.raw.subarray(start, headEnd).toString('utf8');
    if (/filename=/.test(head)) return request.raw.subarray(headEnd + 4, next - 2);
    start = next;
  }
  return null;
}

const fileEntry = (value: unknown): { id: string; title: string | null } | null => {
  if (typeof value !== 'object' || value === null) return null;
  const { id, title } = value as { id?: unknown; title?: unknown };
  if (typeof id !== 'string') return null;
  return { id, title: typeof title === 'string' ? title : null };
};

/** `files`: a JSON array of `{id, title?}`, sent as JSON text in a form or as an array in a JSON body. */
function filesArgument(values: Record<string, unknown>): { id: string; title: string | null }[] | null {
  let raw = values.files;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw) as unknown;
    } catch {
      return null;
    }
  }
  if (!Array.isArray(raw) || raw.length === 0) return null;
  const entries = raw.map(fileEntry);
  return entries.every((entry) => entry !== null) ? entries : null;
}

/** The longest `alt_txt` files.getUploadURLExternal takes, in characters. */
const maxAltTextLength = 1000;

/**
 * Slack's external upload flow (open-and-community.md 9.3), checked step by step:
 * 1. files.getUploadURLExternal (`filename`, `length`, optional `alt_txt`; form or query, not
 *    JSON) names an upload URL and a file id;
 * 2. the bytes go to that URL, raw or as a form, and must be exactly `length` bytes; until the
 *    file is completed they may be sent again;
 * 3. files.completeUploadExternal (`files`, `channel_id`, `thread_ts`, `initial_comment`) takes
 *    only files whose bytes arrived and that were not completed before, and shares them in one
 *    message of the channel (a reply with `thread_ts`), after `shareDelayMs`.
 * Slack documents no code for completing a file without bytes, or twice; the simulator answers
 * `file_not_found` for both, as for an id it never issued.
 */
export class SlackFileMethods {
  readonly #records: SlackRecords;
  readonly #origin: () => string;
  readonly sharing: FileSharing = { shareDelayMs: 0, maxFileBytes: 1024 * 1024 * 1024 };

  constructor(records: SlackRecords, origin: () => string) {
    this.#records = records;
    this.#origin = origin;
  }

  getUploadUrl(call: SlackCall): SimulatedAnswer {
    const scope = missingScope(call, 'files:write');
    if (scope !== null) return scope;
    const fileName = textArgument(call.values, 'filename');
    const length = Number(textArgument(call.values, 'length') ?? '');
    if (fileName === null || fileName === '' || !Number.isInteger(length) || length < 1) {
      return slackRefused('invalid_arguments');
    }
    if (length > this.sharing.maxFileBytes) return slackRefused('file_upload_size_restricted');
    // Slack's method reference names the alt text `alt_txt` (error alt_txt_too_large past 1000
    // characters); @slack/web-api 8.x types it `alt_text`, a name the method does not document.
    // The simulator refuses that name, so a client sending it fails here instead of losing the text.
    if (call.values.alt_text !== undefined) return slackRefused('invalid_arguments');
    const altText = textArgument(call.values, 'alt_txt');
    if (altText !== null && Array.from(altText).length > maxAltTextLength) return slackRefused('alt_txt_too_large');
    const file: SlackFile = {
      teamId: call.workspace.teamId,
      id: this.#records.nextFileId(),
      fileName,
      length,
      altText,
      title: null,
      uploadToken: randomBytes(18).toString('base64url'),
      bytes: null,
      contentType: null,
      uploads: 0,
      completed: false,
      shares: [],
    };
    this.#records.files.push(file);
    return slackOk({ upload_url: `${this.#origin()}/upload/v1/${file.uploadToken}`, file_id: file.id });
  }

  /** `POST /upload/v1/<token>`: answers `OK - <bytes>` as Slack's upload host does. */
  upload(request: SimulatedRequest, token: string): SimulatedAnswer {
    const file = this.#records.files.find((candidate) => candidate.uploadToken === token);
    if (request.method !== 'POST') return { status: 405, body: 'Method Not Allowed' };
    if (file === undefined || file.completed) return { status: 404, body: 'Not Found' };
    const type = request.headers['content-type'] ?? 'application/octet-stream';
    const bytes = type.startsWith('multipart/form-data') ? multipartFile(request) : request.raw;
    if (bytes === null) return { status: 400, body: 'no file in the form' };
    if (bytes.length !== file.length) {
      return { status: 400, body: `expected ${String(file.length)} bytes, received ${String(bytes.length)}` };
    }
    file.bytes = Buffer.from(bytes);
    file.contentType = type.startsWith('multipart/form-data') ? null : type;
    file.uploads += 1;
    return { status: 200, body: `OK - ${String(bytes.length)}` };
  }

  complete(call: SlackCall): SimulatedAnswer {
    const scope = missingScope(call, 'files:write');
    if (scope !== null) return scope;
    const entries = filesArgument(call.values);
    if (entries === null) return slackRefused('invalid_arguments');
    const files = entries.map((entry) => this.#records.file(entry.id));
    const usable = (file: SlackFile | undefined): file is SlackFile =>
      file !== undefined && file.teamId === call.workspace.teamId && file.bytes !== null && !file.completed;
    if (!files.every(usable)) return slackRefused('file_not_found');
    const comment = textArgument(call.values, 'initial_comment') ?? '';
    if (textLength(comment, 'code-points') > maxTextCharacters) return slackRefused('msg_too_long');
    const threadTs = textArgument(call.values, 'thread_ts');
    const channelId = textArgument(call.values, 'channel_id');
    if (threadTs !== null && channelId === null) return slackRefused('invalid_arguments');
    let share: (() => void) | null = null;
    if (channelId !== null) {
      const found = channelOf(call, 'channel_id', { member: true, open: true });
      if ('refusal' in found) return found.refusal;
      const parent = threadTs === null
        ? null
        : this.#records.message(call.workspace.teamId, found.channel.id, threadTs);
      if (threadTs !== null && (parent === undefined || parent?.threadTs !== null)) {
        return slackRefused('thread_not_found');
      }
      share = () => { this.#share(call, files, found.channel.id, found.channel.isPrivate, threadTs, comment); };
    }
    for (const [index, file] of files.entries()) {
      file.completed = true;
      file.title = entries[index]?.title ?? file.fileName;
    }
    if (share !== null && this.sharing.shareDelayMs <= 0) share();
    else if (share !== null) setTimeout(share, this.sharing.shareDelayMs);
    return slackOk({ files: files.map((file) => this.#fileObject(file)) });
  }

  #share(
    call: SlackCall, files: SlackFile[], channel: string, isPrivate: boolean, threadTs: string | null, text: string,
  ): void {
    const message: SlackMessage = {
      teamId: call.workspace.teamId,
      channel,
      ts: this.#records.nextTs(),
      threadTs,
      user: botUserId,
      botId,
      text: wrapLinks(text),
      files: files.map((file) => file.id),
      broadcast: false,
      options: {},
      reactions: [],
    };
    this.#records.messages.push(message);
    for (const file of files) file.shares.push({ channel, ts: message.ts, threadTs, isPrivate });
  }

  /** The file as Slack describes it; `shares` stays empty until the share happened. */
  #fileObject(file: SlackFile): Record<string, unknown> {
    const shares: Record<string, Record<string, unknown[]>> = {};
    for (const share of file.shares) {
      const kind = share.isPrivate ? 'private' : 'public';
      const byChannel = shares[kind] ?? {};
      byChannel[share.channel] = [
        ...(byChannel[share.channel] ?? []),
        { ts: share.ts, ...(share.threadTs === null ? {} : { thread_ts: share.threadTs }), reply_count: 0 },
      ];
      shares[kind] = byChannel;
    }
    return {
      id: file.id,
      name: file.fileName,
      title: file.title,
      mimetype: file.contentType ?? '',
      size: file.length,
      user: botUserId,
      mode: 'hosted',
      is_external: false,
      alt_txt: file.altText ?? undefined,
      url_private: `https://files.slack.com/files-pri/${file.teamId}-${file.id}/${file.fileName}`,
      channels: file.shares.filter((share) => !share.isPrivate).map((share) => share.channel),
      groups: file.shares.filter((share) => share.isPrivate).map((share) => share.channel),
      shares,
    };
  }
}
