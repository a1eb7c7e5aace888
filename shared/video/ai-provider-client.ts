import { z } from 'zod';
import { trailingSlashes } from '../net/trailing-slashes.ts';

/** The operator's AI provider (AI_* settings): any API that speaks OpenAI's chat, image and speech routes. */
export interface AiProviderSettings {
  /** e.g. https://api.openai.com/v1; the routes are appended to it. */
  baseUrl: string;
  apiKey: string;
  textModel: string;
  /** null: scenes get the style's plain background. */
  imageModel: string | null;
  /** null: espeak-ng narrates. */
  speechModel: string | null;
  voices: readonly string[];
  /** Time limit of each request, its answer included. */
  timeoutMs: number;
}

/** The provider refused, failed, answered what SPS cannot read, or did not answer in time. */
export class AiProviderFailure extends Error {
  readonly timedOut: boolean;
  constructor(message: string, options: { timedOut?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'AiProviderFailure';
    this.timedOut = options.timedOut ?? false;
  }
}

/** Largest answer read from the provider: a script is small, an image or a narration a few MB. */
const maxAnswerBytes = 32 * 1024 * 1024;

const providerError = z.object({ error: z.object({ message: z.string().min(1) }) });
const chatAnswer = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});
const imageAnswer = z.object({ data: z.array(z.object({ b64_json: z.string().min(1) })).min(1) });

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

async function readCapped(response: Response): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxAnswerBytes) throw new AiProviderFailure('the AI provider\'s answer is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  if (response.body === null) return Buffer.alloc(0);
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxAnswerBytes) throw new AiProviderFailure('the AI provider\'s answer is too large');
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** A body that may not be JSON at all (a proxy's HTML error page): null then, and the text speaks for itself. */
function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

/** The provider's own words for a refusal: OpenAI's `{error: {message}}`, else the start of the body. */
function refusalMessage(status: number, body: Buffer): string {
  const text = body.toString('utf8');
  const said = providerError.safeParse(jsonOrNull(text)).data?.error.message ?? text.trim().slice(0, 300);
  return `the AI provider answered HTTP ${status}${said === '' ? '' : `: ${said}`}`;
}

/** JSON of an answer, checked against what SPS reads of it. */
function parseAnswer<T>(schema: z.ZodType<T>, body: Buffer, what: string): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new AiProviderFailure(`the AI provider's ${what} is not JSON`, { cause: error });
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    throw new AiProviderFailure(`the AI provider's ${what} could not be read: ${result.error.message}`);
  }
  return result.data;
}

/**
 * The AI provider over HTTP: one POST per call with the key as a Bearer token, a time limit on
 * the whole exchange, answers read with a size cap and parsed before use. Every failure is an
 * AiProviderFailure whose message says what the provider said.
 */
export class AiProviderClient {
  readonly settings: AiProviderSettings;

  constructor(settings: AiProviderSettings) {
    this.settings = settings;
  }

  /** The assistant's text for the messages; `json` asks for a JSON object (response_format). */
  async chat(messages: readonly ChatMessage[], options: { json: boolean }): Promise<string> {
    const body = {
      model: this.settings.textModel,
      messages,
      ...(options.json ? { response_format: { type: 'json_object' } } : {}),
    };
    const answer = parseAnswer(chatAnswer, (await this.#post('/chat/completions', body)).body, 'chat answer');
    const content = answer.choices[0]?.message.content ?? '';
    if (content.trim() === '') throw new AiProviderFailure('the AI provider wrote an empty script');
    return content;
  }

  /** One image for the prompt, as the bytes of the file the provider made. */
  async image(prompt: string, model: string): Promise<Buffer> {
    const body = { model, prompt, n: 1, response_format: 'b64_json' };
    const answer = parseAnswer(imageAnswer, (await this.#post('/images/generations', body)).body, 'image answer');
    return Buffer.from(answer.data[0]?.b64_json ?? '', 'base64');
  }

  /** The text spoken in `voice`, asked for as WAV (ffmpeg reads whatever comes back). */
  async speech(text: string, model: string, voice: string): Promise<{ bytes: Buffer; contentType: string }> {
    const answer = await this.#post('/audio/speech', { model, input: text, voice, response_format: 'wav' });
    if (answer.body.length === 0) throw new AiProviderFailure('the AI provider answered with no audio');
    return { bytes: answer.body, contentType: answer.contentType };
  }

  async #post(route: string, body: unknown): Promise<{ body: Buffer; contentType: string }> {
    const url = `${this.settings.baseUrl.replace(trailingSlashes, '')}${route}`;
    const seconds = +(this.settings.timeoutMs / 1000).toFixed(1);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${this.settings.apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
        redirect: 'error',
      });
      const answer = await readCapped(response);
      if (!response.ok) throw new AiProviderFailure(refusalMessage(response.status, answer));
      return { body: answer, contentType: response.headers.get('content-type') ?? '' };
    } catch (error) {
      if (error instanceof AiProviderFailure) throw error;
      if (error instanceof Error && error.name === 'TimeoutError') {
        const message = `the AI provider did not answer within ${seconds} s`;
        throw new AiProviderFailure(message, { timedOut: true, cause: error });
      }
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new AiProviderFailure(`the AI provider could not be reached: ${reason}`, { cause: error });
    }
  }
}
