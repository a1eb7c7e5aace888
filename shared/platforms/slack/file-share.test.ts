import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { connectedSlack, mediaOf } from '../../../test/simulators/slack/slack-connected.ts';
import type { RunningSlackSimulator } from '../../../test/simulators/slack/slack-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia, PublishResult } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { createSlackAdapter } from './adapter.ts';
import { readSlackCredential } from './credential.ts';

const general = 'C0GENERAL';
const png = samplePng(2_000);
const mp4 = sampleMp4(30_000);
const tuning = { shareWaitsMs: [0, 40, 80, 160, 320], shareTrustMs: 60_000 };

describe('Slack adapter against the simulator: files through the external upload flow', () => {
  let slack: RunningSlackSimulator;
  let channel: ChannelCredentials;
  let app: PlatformApp;
  let adapter: PlatformAdapter;

  beforeAll(async () => {
    ({ slack, channel, app } = await connectedSlack());
    adapter = createSlackAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, app, tuning);
  });
  afterAll(async () => { await slack.close(); });
  beforeEach(() => {
    slack.sharing.shareDelayMs = 0;
    slack.sharing.maxFileBytes = 1024 * 1024 * 1024;
  });

  const image = (alt: string | null = 'A red square') => mediaOf(png, 'square.png', 'image/png', alt);
  const video = () => mediaOf(mp4, 'clip.mp4', 'video/mp4');

  function publish(content: string, media: PublishMedia[], checkpoint = memoryCheckpoint()) {
    return adapter.publish({
      channel, content, media, settings: { channel: general }, idempotencyKey: 'k', checkpoint,
    });
  }

  function reply(parent: PublishResult, content: string, media: PublishMedia[], checkpoint = memoryCheckpoint()) {
    return adapter.comment({
      channel, content, media, settings: { channel: general }, idempotencyKey: 'k', checkpoint,
      parentReleaseId: parent.releaseId,
    });
  }

  const calls = (method: string) => slack.calls(method).length;
  const fileMessages = (text: string) => slack.records.withText(text).filter((message) => message.files.length > 0);

  it('uploads step by step and shares the file in one message with the part\'s text', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await publish('With an image', [image()], checkpoint);

    const [message] = fileMessages('With an image');
    const file = slack.records.file(message?.files[0] ?? '');
    expect(file).toMatchObject({ fileName: 'square.png', length: png.length, altText: 'A red square', uploads: 1 });
    expect(file?.bytes?.equals(png)).toBe(true);
    expect(file?.contentType).toBe('image/png');
    expect(result.releaseId).toBe(`${general}:${message?.ts ?? ''}`);
    expect(slack.calls('files.getUploadURLExternal').at(-1)).toEqual({
      filename: 'square.png', length: String(png.length), alt_txt: 'A red square',
    });
    expect(slack.calls('files.completeUploadExternal').at(-1)).toEqual({
      files: JSON.stringify([{ id: file?.id, title: 'square.png' }]), channel_id: general,
      initial_comment: 'With an image',
    });
    // The upload URL is signed for the file: the bot token is not sent to it.
    const upload = slack.received.filter((request) => request.path.startsWith('/upload/')).at(-1);
    expect(upload?.headers.authorization).toBeUndefined();
    // Every handle was saved before the step that needs it: the file id before the bytes, the send before completing.
    expect(checkpoint.saves.map((save) => Object.keys(save).join(','))).toEqual([
      'file0Id,file0Url,file0Uploaded', 'file0Uploaded', 'sentAt', 'completed',
    ]);
  });

  it('names the alt text alt_txt, as Slack\'s method reference does; alt_text is refused', async () => {
    const { botToken } = readSlackCredential(channel.accessToken);
    const ticket = async (form: Record<string, string>) => {
      const response = await fetch(`${slack.url}/api/files.getUploadURLExternal`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${botToken}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ filename: 'square.png', length: String(png.length), ...form }).toString(),
      });
      return { status: response.status, body: await response.json() as Record<string, unknown> };
    };
    expect(await ticket({ alt_text: 'A red square' })).toEqual({
      status: 200,
      body: {
        ok: false,
        error: 'invalid_arguments',
        response_metadata: { messages: ['[ERROR] body.alt_text is not a parameter of the operation'] },
      },
    });
    expect(await ticket({ alt_txt: 'x'.repeat(1001) })).toEqual({
      status: 200, body: { ok: false, error: 'alt_txt_too_large' },
    });
    expect((await ticket({ alt_txt: 'A red square' })).body).toMatchObject({ ok: true });
    await publish('Described image', [image('A described square')]);
    expect(slack.calls('files.getUploadURLExternal').at(-1)).toMatchObject({ alt_txt: 'A described square' });
  });

  it('finds the message in the channel when Slack shares the files after answering', async () => {
    slack.sharing.shareDelayMs = 60;
    const reads = calls('conversations.history');
    const result = await publish('Shared later', [image(null), video()]);

    const [message] = fileMessages('Shared later');
    expect(message?.files).toHaveLength(2);
    expect(result.releaseId).toBe(`${general}:${message?.ts ?? ''}`);
    expect(calls('conversations.history')).toBeGreaterThan(reads);
    expect(slack.calls('files.getUploadURLExternal').at(-1))
      .toEqual({ filename: 'clip.mp4', length: String(mp4.length) });
  });

  it('shares a later part\'s files in the first message\'s thread', async () => {
    slack.sharing.shareDelayMs = 30;
    const root = await publish('Thread with files', []);
    const answer = await reply(root, 'A file in the thread', [image()]);

    const [message] = fileMessages('A file in the thread');
    const rootTs = root.releaseId.split(':')[1] ?? '';
    expect(message?.threadTs).toBe(rootTs);
    expect(answer.releaseId).toBe(`${general}:${rootTs}:${message?.ts ?? ''}`);
    expect(slack.calls('files.completeUploadExternal').at(-1)).toMatchObject({ thread_ts: rootTs });
  });

  it('sends the bytes again to the same URL when the upload\'s answer was lost, then completes once', async () => {
    const checkpoint = memoryCheckpoint();
    const tickets = calls('files.getUploadURLExternal');
    slack.failNext('upload', { lose: true });
    expect((await platformFailure(publish('Upload lost', [image()], checkpoint))).kind).toBe('retryable');
    await publish('Upload lost', [image()], checkpoint);

    expect(calls('files.getUploadURLExternal')).toBe(tickets + 1);
    const [message] = fileMessages('Upload lost');
    expect(slack.records.file(message?.files[0] ?? '')?.uploads).toBe(2);
  });

  it('completes uploaded files without uploading them again when the completion was refused', async () => {
    const checkpoint = memoryCheckpoint();
    slack.failNext('files.completeUploadExternal', { error: 'internal_error' });
    expect((await platformFailure(publish('Completed later', [image()], checkpoint))).kind).toBe('retryable');
    expect(checkpoint.values).toMatchObject({ file0Uploaded: '1', sentAt: '' });
    const uploads = calls('upload');
    const tickets = calls('files.getUploadURLExternal');
    await publish('Completed later', [image()], checkpoint);

    expect([calls('upload'), calls('files.getUploadURLExternal')]).toEqual([uploads, tickets]);
    expect(fileMessages('Completed later')).toHaveLength(1);
  });

  it('finds the shared message after a completion whose answer was lost, and completes nothing twice', async () => {
    slack.sharing.shareDelayMs = 50;
    const checkpoint = memoryCheckpoint();
    slack.failNext('files.completeUploadExternal', { lose: true });
    expect((await platformFailure(publish('Completion lost', [image()], checkpoint))).kind).toBe('retryable');
    const completions = calls('files.completeUploadExternal');
    const result = await publish('Completion lost', [image()], checkpoint);

    expect(calls('files.completeUploadExternal')).toBe(completions);
    const made = fileMessages('Completion lost');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(`${general}:${made[0]?.ts ?? ''}`);
  });

  it('looks again for a completed upload Slack has not shown, and sets it aside once that took too long', async () => {
    // A completed file Slack never showed in #general: shared nowhere.
    const token = readSlackCredential(channel.accessToken).botToken;
    const ticket = await fetch(`${app.apiUrl}/files.getUploadURLExternal?filename=a.png&length=3`, {
      headers: { Authorization: `Bearer ${token}` },
    }).then(async (answer) => await answer.json() as { upload_url: string; file_id: string });
    await fetch(ticket.upload_url, { method: 'POST', body: 'abc' });
    const complete = await fetch(`${app.apiUrl}/files.completeUploadExternal`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ files: JSON.stringify([{ id: ticket.file_id }]) }).toString(),
    }).then(async (answer) => await answer.json() as { ok: boolean });
    expect(complete.ok).toBe(true);
    const held = { file0Id: ticket.file_id, file0Url: ticket.upload_url, file0Uploaded: '1', completed: '1' };

    const recent = memoryCheckpoint({ ...held, sentAt: String(Date.now() - 1_000) });
    expect((await platformFailure(publish('Never shown', [image()], recent))).kind).toBe('retryable');
    const old = memoryCheckpoint({ ...held, sentAt: String(Date.now() - 120_000) });
    expect((await platformFailure(publish('Never shown', [image()], old))).kind).toBe('unconfirmed');

    // Without `completed` the completion had no answer: completed again, Slack refuses a completed file.
    const unanswered = memoryCheckpoint({ ...held, completed: '', sentAt: String(Date.now() - 1_000) });
    const error = await platformFailure(publish('Never shown', [image()], unanswered));
    expect(error.kind).toBe('unconfirmed');
    expect(error.message).toContain('file_not_found; an earlier attempt may have shared these files');
    expect(slack.records.withText('Never shown')).toHaveLength(0);
  });

  it('asks for a new upload URL after the upload host refused the bytes', async () => {
    const checkpoint = memoryCheckpoint();
    slack.failNext('upload', { status: 403, body: 'upload URL expired' });
    const error = await platformFailure(publish('Refused upload', [image()], checkpoint));
    expect([error.kind, error.message]).toEqual([
      'retryable', 'Slack\'s upload server refused square.png: upload URL expired',
    ]);
    expect(checkpoint.values).toMatchObject({ file0Id: '', file0Url: '' });

    const tickets = calls('files.getUploadURLExternal');
    await publish('Refused upload', [image()], checkpoint);
    expect(calls('files.getUploadURLExternal')).toBe(tickets + 1);
    expect(fileMessages('Refused upload')).toHaveLength(1);
  });

  it('holds uploads to Slack\'s order: the announced length, bytes before completing, completing once', async () => {
    const token = readSlackCredential(channel.accessToken).botToken;
    const method = (name: string, form: Record<string, string>) => fetch(`${app.apiUrl}/${name}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    }).then(async (answer) => await answer.json() as Record<string, unknown>);
    const ticket = await method('files.getUploadURLExternal', { filename: 'x.txt', length: '5' });
    const uploadUrl = String(ticket.upload_url);
    const complete = { files: JSON.stringify([{ id: ticket.file_id }]), channel_id: general };

    expect(await method('files.completeUploadExternal', complete)).toEqual({ ok: false, error: 'file_not_found' });
    const short = await fetch(uploadUrl, { method: 'POST', body: 'abc' });
    expect([short.status, await short.text()]).toEqual([400, 'expected 5 bytes, received 3']);
    const sent = await fetch(uploadUrl, { method: 'POST', body: 'abcde' });
    expect([sent.status, await sent.text()]).toEqual([200, 'OK - 5']);
    expect(await method('files.completeUploadExternal', complete)).toMatchObject({ ok: true });
    expect(await method('files.completeUploadExternal', complete)).toEqual({ ok: false, error: 'file_not_found' });
    expect((await fetch(uploadUrl, { method: 'POST', body: 'abcde' })).status).toBe(404);
    // JSON is not read by files.getUploadURLExternal: its arguments go missing.
    const json = await fetch(`${app.apiUrl}/files.getUploadURLExternal`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ filename: 'x.txt', length: 5 }),
    });
    expect(await json.json()).toEqual({
      ok: false,
      error: 'invalid_arguments',
      response_metadata: {
        messages: ['[ERROR] a application/json body, where the operation takes application/x-www-form-urlencoded'],
      },
    });
  });

  it('passes on the workspace\'s refusal of a file too large', async () => {
    slack.sharing.maxFileBytes = 1_000;
    const error = await platformFailure(publish('Too large', [image()]));
    expect([error.kind, error.message]).toEqual([
      'permanent',
      'Slack files.getUploadURLExternal: the file is larger than the workspace takes (file_upload_size_restricted)',
    ]);
  });

  it('refuses to share in a channel the app is not in, and keeps nothing marked as sent', async () => {
    const checkpoint = memoryCheckpoint();
    const error = await platformFailure(adapter.publish({
      channel, content: 'Elsewhere', media: [image()], settings: { channel: 'C0NEWSDESK' }, idempotencyKey: 'k',
      checkpoint,
    }));
    expect(error.message).toContain('(not_in_channel)');
    expect(checkpoint.values.sentAt).toBe('');
  });
});
