import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AiProviderSimulator } from '../../../test/simulators/ai/openai-simulator.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { expectPlatformReadyVideo, storedFileFacts, type ShownMedia } from '../../../test/support/generated-video.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';

const maxSeconds = 3;
const providerTimeoutMs = 1_500;

/**
 * The `ai-slides` type against a local simulator of an OpenAI-compatible provider: the script
 * from chat completions, a picture per scene from image generations (b64_json), the narration
 * from audio speech. The wait is long enough here for the 201 path; a provider that refuses or
 * stalls fails the media with its own message and tells the organization.
 */
describe('POST /generate-video with an AI provider', () => {
  const provider = new AiProviderSimulator();
  let ctx: TestContext;
  let stack: RunningStack;
  let org: { apiKey: string; organizationId: string };

  beforeAll(async () => {
    await provider.start();
    ctx = await createTestContext({
      AI_BASE_URL: provider.baseUrl,
      AI_API_KEY: provider.apiKey,
      AI_TEXT_MODEL: provider.models.text,
      AI_IMAGE_MODEL: provider.models.image,
      AI_SPEECH_MODEL: provider.models.speech,
      AI_SPEECH_VOICES: 'alloy,nova',
      AI_TIMEOUT_MS: String(providerTimeoutMs),
      VIDEO_MAX_DURATION_SECONDS: String(maxSeconds),
      VIDEO_MAX_TEXT_CHARS: '200',
      VIDEO_WAIT_MS: '60000',
    });
    stack = await startStack(ctx);
    org = await organizationWithMastodon(ctx, 'http://127.0.0.1:9', 'unused');
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await provider.close();
  });

  const generate = (body: unknown) =>
    api(stack.baseUrl, org.apiKey, '/api/public/v1/generate-video', { method: 'POST', body });
  const notifications = async () => {
    const page = await api(stack.baseUrl, org.apiKey, '/api/public/v1/notifications?page=0');
    return (page.body as { notifications: { content: string }[] }).notifications.map((item) => item.content);
  };

  it('makes the video from the provider\'s script, pictures and narration, and answers 201 with it', async () => {
    const answer = await generate({
      type: 'ai-slides', output: 'vertical', customParams: { prompt: 'How tea is made', voice: 'nova' },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const media = answer.body as ShownMedia;
    expect(media).toMatchObject({ status: 'ready', width: 1080, height: 1920, videoCodec: 'h264', audioCodec: 'aac' });
    expectPlatformReadyVideo(await storedFileFacts(ctx, media.id), { width: 1080, height: 1920 }, maxSeconds);

    const [chat] = provider.bodiesOf('/v1/chat/completions');
    expect(chat).toMatchObject({ model: provider.models.text, response_format: { type: 'json_object' } });
    expect(JSON.stringify(chat?.messages)).toContain('How tea is made');
    expect(provider.bodiesOf('/v1/images/generations')).toEqual([
      { model: provider.models.image, prompt: 'green tea hills at dawn', n: 1, response_format: 'b64_json' },
      { model: provider.models.image, prompt: 'hands picking tea leaves', n: 1, response_format: 'b64_json' },
    ]);
    expect(provider.bodiesOf('/v1/audio/speech').map((body) => [body.input, body.voice])).toEqual([
      ['Tea grows on hills.', 'nova'], ['Then it is picked.', 'nova'],
    ]);
    const voices = await api(stack.baseUrl, org.apiKey, '/api/public/v1/video/function', {
      method: 'POST', body: { functionName: 'voices', identifier: 'ai-slides' },
    });
    expect(voices.body).toEqual({ output: [{ id: 'alloy', name: 'alloy' }, { id: 'nova', name: 'nova' }] });
  });

  it('fails the media with the provider\'s own message when it refuses, and tells the organization', async () => {
    provider.failNext('/v1/images/generations', { status: 500, message: 'The image service is overloaded' });
    const answer = await generate({ type: 'ai-slides', output: 'horizontal', customParams: { prompt: 'Tea' } });
    expect(answer.status).toBe(502);
    expect(answer.body).toMatchObject({
      error: 'provider_failed',
      message: 'the AI provider answered HTTP 500: The image service is overloaded',
      details: [{ path: 'reason', message: 'provider_failed' }],
    });
    const failed = await ctx.db.media.findOne({ organizationId: org.organizationId, errorReason: 'provider_failed' })
      .lean();
    expect(failed).toMatchObject({ status: 'failed', storageKey: null });
    expect(await notifications()).toContain(
      'Video generation failed: the AI provider answered HTTP 500: The image service is overloaded',
    );
  });

  it('fails the media when the provider does not answer within AI_TIMEOUT_MS', async () => {
    provider.stallNext('/v1/chat/completions', providerTimeoutMs + 2_000);
    const started = Date.now();
    const answer = await generate({ type: 'ai-slides', output: 'vertical', customParams: { prompt: 'Tea' } });
    const reason = { path: 'reason', message: 'provider_failed:timeout' };
    expect(answer.body).toMatchObject({ error: 'provider_failed', details: [reason] });
    expect(Date.now() - started).toBeLessThan(providerTimeoutMs + 1_500);
    expect(await notifications()).toContain('Video generation failed: the AI provider did not answer within 1.5 s');
  });

  it('refuses a prompt over VIDEO_MAX_TEXT_CHARS and a voice the provider lacks, asking it nothing', async () => {
    const calls = provider.received.length;
    const long = await generate({ type: 'ai-slides', output: 'vertical', customParams: { prompt: 'x'.repeat(201) } });
    expect(long.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'customParams.prompt' }] });
    const customParams = { prompt: 'Tea', voice: 'en-us' };
    const voice = await generate({ type: 'ai-slides', output: 'vertical', customParams });
    expect(voice.body).toMatchObject({ error: 'validation_failed', details: [{ path: 'customParams.voice' }] });
    expect(provider.received.length).toBe(calls);
  });
});
