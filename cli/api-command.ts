import { activeCredential } from './active-credential.ts';
import { callApi, type ApiAnswer, type ApiRequest } from './api-client.ts';
import { printJson } from './output.ts';

/** What most commands do: call the public API with the active credential and print its JSON. */
export async function requestAndPrint(request: ApiRequest): Promise<ApiAnswer> {
  const credential = await activeCredential();
  const answer = await callApi(credential, request);
  printJson(answer.body);
  return answer;
}
