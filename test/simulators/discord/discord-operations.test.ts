import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adaChannels, adaGuild, adaGuildId } from './discord-fixture.ts';
import { startDiscordSimulator, type RunningDiscordSimulator } from './discord-simulator.ts';

let discord: RunningDiscordSimulator;

beforeAll(async () => {
  discord = await startDiscordSimulator({ ada: adaGuild() });
  discord.installBot(adaGuildId);
});

afterAll(async () => {
  await discord.close();
});

/** A multipart message: its payload_json part and one file, as SPS and Discord's examples send them. */
function multipart(payload: unknown): { body: Buffer; type: string } {
  const boundary = 'sps-discord-test';
  const body = Buffer.from([
    `--${boundary}`,
    'Content-Disposition: form-data; name="payload_json"',
    'Content-Type: application/json',
    '',
    JSON.stringify(payload),
    `--${boundary}`,
    'Content-Disposition: form-data; name="files[0]"; filename="a.png"',
    'Content-Type: image/png',
    '',
    'png-bytes',
    `--${boundary}--`,
    '',
  ].join('\r\n'));
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

async function send(body: Buffer | string, type: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fetch(`${discord.url}/api/v10/channels/${adaChannels.general}/messages`, {
    method: 'POST',
    headers: { authorization: `Bot ${discord.botToken}`, 'content-type': type },
    body,
  });
  return { status: answer.status, json: await answer.json() as Record<string, unknown> };
}

describe('the Discord simulator held to Discord\'s description', () => {
  it('takes a file described by its integer index, as Discord\'s upload examples write it', async () => {
    const { body, type } = multipart({ content: 'With a file', attachments: [{ id: 0, filename: 'a.png' }] });
    const answer = await send(body, type);

    expect(answer.status).toBe(200);
    expect(answer.json.attachments).toEqual([expect.objectContaining({ filename: 'a.png', size: 9 })]);
  });

  it('checks the JSON in payload_json as a JSON body: a field Discord does not take is refused (50035)', async () => {
    const { body, type } = multipart({ content: 'Typo', attachment: [{ id: 0 }] });
    const answer = await send(body, type);

    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 50_035, message: 'Invalid Form Body', errors: { attachment: {} } });
  });

  it('refuses a JSON body whose content is not text', async () => {
    const answer = await send(JSON.stringify({ content: 42 }), 'application/json');

    expect(answer.status).toBe(400);
    const errors = { content: { _errors: [{ code: 'BASE_TYPE_INVALID' }] } };
    expect(answer.json).toMatchObject({ code: 50_035, errors });
  });
});
