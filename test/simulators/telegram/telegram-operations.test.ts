import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMp4, samplePng } from '../../support/sample-media.ts';
import { startTelegramSimulator, type TelegramSimulator } from './telegram-simulator.ts';
import { addTelegramWorld, bot, chats } from './telegram-world.ts';

let simulator: TelegramSimulator;

beforeAll(async () => {
  simulator = await startTelegramSimulator();
  addTelegramWorld(simulator);
});

afterAll(async () => {
  await simulator.close();
});

interface BotAnswer {
  status: number;
  body: { ok: boolean; description?: string; result?: unknown };
}

async function call(method: string, body: FormData | Record<string, unknown>): Promise<BotAnswer> {
  const form = body instanceof FormData;
  const answer = await fetch(`${simulator.url}/bot${bot.token}/${method}`, {
    method: 'POST',
    ...(form ? { body } : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: answer.status, body: await answer.json() as BotAnswer['body'] };
}

/** An album of a photo and a video by attach://, as SPS sends one, with `item` merged into the first entry. */
function album(item: Record<string, unknown> = {}): FormData {
  const form = new FormData();
  form.set('chat_id', String(chats.channel));
  form.set('media', JSON.stringify([
    { type: 'photo', media: 'attach://file0', caption: 'Both', ...item },
    { type: 'video', media: 'attach://file1', supports_streaming: true },
  ]));
  form.set('file0', new Blob([samplePng()], { type: 'image/png' }), 'a.png');
  form.set('file1', new Blob([sampleMp4(2_000)], { type: 'video/mp4' }), 'b.mp4');
  return form;
}

describe('the Telegram simulator held to the Bot API\'s description', () => {
  it('takes an album that mixes a photo and a video, its files as the parts attach:// names', async () => {
    const answer = await call('sendMediaGroup', album());

    expect(answer.status).toBe(200);
    expect(answer.body.result).toHaveLength(2);
  });

  it('checks a JSON-serialized parameter of a form as JSON: a misspelled field inside media is refused', async () => {
    const answer = await call('sendMediaGroup', album({ captoin: 'Typo' }));

    expect(answer).toEqual({
      status: 400,
      body: {
        ok: false,
        error_code: 400,
        description: 'Bad Request: body.media.0.captoin is not a field of the operation',
      },
    });
  });

  it('refuses a parameter the method does not take, in a JSON body', async () => {
    const answer = await call('sendMessage', { chat_id: chats.channel, text: 'Hello', parse_mod: 'HTML' });

    expect(answer.status).toBe(400);
    expect(answer.body.description).toBe('Bad Request: body.parse_mod is not a field of the operation');
  });
});
