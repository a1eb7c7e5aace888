import { z } from 'zod';
import type { MultipartBody } from '../kit/platform-http.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadable, VkRefusal, vkErrorBody } from './vk-errors.ts';
import { VkPacer } from './vk-pacer.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

const provider = 'vk';

/** The API version every call names (`v` is mandatory); the public schema describes 5.199. */
export const vkApiVersion = '5.199';

const successBody = z.object({ response: z.unknown() });

/**
 * Calls api.vk.com methods for one adapter: `POST {apiUrl}/method/{name}` with a form body
 * holding the parameters, the token and the version (in the body, so the token stays out of
 * URLs and access logs), each call paced per token. VK answers refusals with HTTP 200, so the
 * body decides: `{response}` is returned, `{error}` is thrown as a VkRefusal.
 */
export class VkApi {
  readonly #apiUrl: string;
  readonly #timeoutMs: number;
  readonly #pacer: VkPacer;

  constructor(apiUrl: string, timeoutMs: number, pacer: VkPacer = new VkPacer()) {
    this.#apiUrl = apiUrl.replace(trailingSlashes, '');
    this.#timeoutMs = timeoutMs;
    this.#pacer = pacer;
  }

  async call<T>(token: string, method: string, parameters: Record<string, string>, shape: z.ZodType<T>): Promise<T> {
    const body = await this.#pacer.paced(token, () => platformRequest({
      provider,
      serverName: 'VK',
      method: 'POST',
      url: `${this.#apiUrl}/method/${method}`,
      form: { ...parameters, access_token: token, v: vkApiVersion },
      timeoutMs: this.#timeoutMs,
      errorMessage: (answer) => {
        const refused = vkErrorBody.safeParse(answer);
        return refused.success ? `VK ${method}: ${refused.data.error.error_msg}` : undefined;
      },
    }));
    const refused = vkErrorBody.safeParse(body);
    if (refused.success) throw new VkRefusal(refused.data.error, method);
    const success = successBody.safeParse(body);
    const parsed = shape.safeParse(success.success ? success.data.response : undefined);
    if (!parsed.success) throw unreadable(`a ${method} answer`);
    return parsed.data;
  }

  /**
   * Sends a file to an upload host VK named (`upload_url`). Those hosts answer plain JSON,
   * without VK's `{response}` envelope, and are not method calls: they are not paced.
   */
  async upload<T>(uploadUrl: string, multipart: MultipartBody, shape: z.ZodType<T>, what: string): Promise<T> {
    const body = await platformRequest({
      provider,
      serverName: 'VK\'s upload server',
      method: 'POST',
      url: uploadUrl,
      multipart,
      // A video takes longer to send than a method call to answer: allow for a slow 1 MB a second.
      timeoutMs: this.#timeoutMs + Math.ceil(multipart.file.size / 1_000),
    });
    const parsed = shape.safeParse(body);
    if (!parsed.success) throw unreadable(what);
    return parsed.data;
  }
}
