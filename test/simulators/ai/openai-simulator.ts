import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  bearerToken, jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { synthesizedMedia } from '../../support/synthesized-media.ts';

/** The three routes SPS calls on an OpenAI-compatible provider. */
const aiRoutes = ['/v1/chat/completions', '/v1/images/generations', '/v1/audio/speech'] as const;
export type AiRoute = (typeof aiRoutes)[number];

export interface ScriptedScene {
  text: string;
  imagePrompt?: string;
}

/** A refusal as OpenAI words it, for `failNext`. */
export interface ProviderRefusal {
  status: number;
  message: string;
}

const models = { text: 'sim-text-1', image: 'sim-image-1', speech: 'sim-speech-1' } as const;
export const simulatedVoices = ['alloy', 'nova'] as const;

/** OpenAI's error shape: `{error: {message, type, code}}`. */
function refusal(status: number, message: string, type = 'invalid_request_error'): SimulatedAnswer {
  return { status, body: { error: { message, type, code: null } } };
}

/** A mono 16-bit PCM WAV of a soft tone lasting `seconds`: real audio ffmpeg reads, made without a tool. */
function toneWav(seconds: number): Buffer {
  const sampleRate = 24_000;
  const samples = Math.round(seconds * sampleRate);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples * 2, 40);
  for (let index = 0; index < samples; index += 1) {
    wav.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * index) / sampleRate) * 3000), 44 + index * 2);
  }
  return wav;
}

/** A PNG picture made once with ffmpeg, what the image route returns as b64_json. */
function picture(): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-ai-sim-'));
  try {
    const file = path.join(dir, 'picture.png');
    const source = ['-f', 'lavfi', '-i', 'testsrc2=size=512x512'];
    synthesizedMedia([...source, '-frames:v', '1'], file);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A local stand-in for an OpenAI-compatible provider: chat completions answering with a slideshow
 * script, image generations answering b64_json, and audio speech answering WAV. It checks the key,
 * the model and the fields SPS must send, records what it got, and can refuse or stall on demand.
 */
export class AiProviderSimulator {
  readonly apiKey = 'sk-sim-0123456789';
  readonly models = models;
  /** What the next chat completions answer (the model's script). */
  script: ScriptedScene[] = [
    { text: 'Tea grows on hills.', imagePrompt: 'green tea hills at dawn' },
    { text: 'Then it is picked.', imagePrompt: 'hands picking tea leaves' },
  ];
  #server: RunningSimulator | null = null;
  readonly #picture = picture();
  readonly #failures = new Map<AiRoute, ProviderRefusal>();
  readonly #stalls = new Map<AiRoute, number>();

  get baseUrl(): string {
    if (this.#server === null) throw new Error('the AI provider simulator is not started');
    return `${this.#server.url}/v1`;
  }

  get received(): SimulatedRequest[] {
    return this.#server?.received ?? [];
  }

  /** The JSON bodies sent to one route, in order. */
  bodiesOf(route: AiRoute): Record<string, unknown>[] {
    return this.received
      .filter((request) => request.path === route)
      .map((request) => jsonBody(request) as Record<string, unknown>);
  }

  /** The next call of `route` is refused as the provider would refuse it. */
  failNext(route: AiRoute, failure: ProviderRefusal): void {
    this.#failures.set(route, failure);
  }

  /** The next call of `route` answers only after `ms` (longer than SPS waits, to test its time limit). */
  stallNext(route: AiRoute, ms: number): void {
    this.#stalls.set(route, ms);
  }

  async start(): Promise<void> {
    this.#server = await startSimulatorServer((request) => this.#handle(request), refusal(404, 'Unknown route'));
  }

  async close(): Promise<void> {
    await this.#server?.close();
  }

  async #handle(request: SimulatedRequest): Promise<SimulatedAnswer> {
    const unknownRoute = refusal(404, `Unknown request URL: ${request.method} ${request.path}`);
    if (request.method !== 'POST') return unknownRoute;
    const route = aiRoutes.find((known) => known === request.path);
    if (route === undefined) return unknownRoute;
    if (bearerToken(request) !== this.apiKey) {
      return refusal(401, 'Incorrect API key provided', 'authentication_error');
    }
    const stall = this.#stalls.get(route);
    if (stall !== undefined) {
      this.#stalls.delete(route);
      await new Promise((resolve) => setTimeout(resolve, stall));
    }
    const failure = this.#failures.get(route);
    if (failure !== undefined) {
      this.#failures.delete(route);
      return refusal(failure.status, failure.message, 'server_error');
    }
    const body = jsonBody(request);
    if (typeof body !== 'object' || body === null) {
      return refusal(400, 'We could not parse the JSON body of your request.');
    }
    const fields = body as Record<string, unknown>;
    if (route === '/v1/chat/completions') return this.#chat(fields);
    if (route === '/v1/images/generations') return this.#image(fields);
    return this.#speech(fields);
  }

  #chat(fields: Record<string, unknown>): SimulatedAnswer {
    if (fields.model !== models.text) return refusal(404, `The model \`${String(fields.model)}\` does not exist`);
    if (!Array.isArray(fields.messages) || fields.messages.length === 0) {
      return refusal(400, '\'messages\' is required');
    }
    const content = JSON.stringify({ scenes: this.script });
    return {
      status: 200,
      body: {
        id: 'chatcmpl-sim', object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content } }],
      },
    };
  }

  #image(fields: Record<string, unknown>): SimulatedAnswer {
    if (fields.model !== models.image) return refusal(404, `The model \`${String(fields.model)}\` does not exist`);
    if (typeof fields.prompt !== 'string' || fields.prompt === '') return refusal(400, '\'prompt\' is required');
    if (fields.response_format !== 'b64_json') return refusal(400, 'this simulator only answers b64_json');
    return { status: 200, body: { created: 1, data: [{ b64_json: this.#picture.toString('base64') }] } };
  }

  #speech(fields: Record<string, unknown>): SimulatedAnswer {
    if (fields.model !== models.speech) return refusal(404, `The model \`${String(fields.model)}\` does not exist`);
    if (typeof fields.input !== 'string' || fields.input === '') return refusal(400, '\'input\' is required');
    if (!simulatedVoices.some((voice) => voice === fields.voice)) {
      return refusal(400, `unknown voice ${String(fields.voice)}`);
    }
    const words = fields.input.split(/\s+/).filter(Boolean).length;
    const seconds = Math.min(1.2, Math.max(0.3, words * 0.15));
    return { status: 200, body: toneWav(seconds), headers: { 'content-type': 'audio/wav' } };
  }
}
