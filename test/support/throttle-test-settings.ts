/**
 * The publish settings of an e2e file that loses a platform's answer in one test and throttles
 * it in another. Two attempts: a throttle that spent one would leave none for the send that
 * follows it, so a test sees whether the wait was counted as an attempt. Backoff is short so a
 * wait that ends late can only be the platform's reset; waits and calls are capped at 3 seconds
 * so a wrong wait fails the test quickly instead of hanging it.
 */
export const throttleTestSettings: Readonly<Record<string, string>> = {
  PUBLISH_ATTEMPTS: '2',
  PUBLISH_BACKOFF_MS: '20',
  PUBLISH_MAX_RETRY_AFTER_MS: '3000',
  PLATFORM_TIMEOUT_MS: '3000',
};
