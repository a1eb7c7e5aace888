import { escapeHtml } from '../shared/escape-html.ts';

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · SPS</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #1a1a1a; }
  h1 { font-size: 1.4rem; }
  label { display: block; margin: 1rem 0 .4rem; font-weight: 600; }
  #user_code { font-size: 1.4rem; letter-spacing: .15em; text-transform: uppercase; padding: .5rem; width: 12ch; }
  .code { font: 700 2rem ui-monospace, monospace; letter-spacing: .2em; border: 2px solid;
    padding: .4rem 1rem; display: inline-block; }
  label.confirm { font-weight: 400; display: flex; gap: .6rem; align-items: baseline; }
  button { font-size: 1rem; padding: .6rem 1.2rem; margin-top: 1rem; }
  .error { color: #a40000; background: #fdecea; padding: .6rem .8rem; border-radius: 4px; }
  .done { color: #0a5d1a; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

/** This server signs in one client only; the page names it, so nobody approves an unknown one. */
const requestingClient = 'The SPS command-line client (<code>sps auth:login</code>)';

/**
 * The code on the verify page: `shown` came in a link (the CLI opens one; so can a phisher) and is
 * displayed as large text to compare with the terminal; `typed` is what the user entered, put back
 * in the field after a problem.
 */
export type VerifyCode = { shown: string } | { typed: string };

/**
 * The verify page. Either way the form wants the box ticked that says the code is the one the
 * user's own terminal shows (checked again by the server): a link with someone else's code in it
 * must not lead to approval in one click without the code ever being looked at.
 */
export function verifyPage(input: { code: VerifyCode; csrf: string; error?: string | undefined }): string {
  const error = input.error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(input.error)}</p>`;
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">`;
  const confirm = `<label class="confirm"><input type="checkbox" name="confirm" value="yes" required>
    I started this login myself, and my terminal shows this exact code</label>`;
  const intro = `<p>${requestingClient} asks to act for your SPS organization.
  Continue only if you started this login yourself, just now.</p>`;
  if ('shown' in input.code) {
    const code = escapeHtml(input.code.shown);
    return layout('Confirm the code', `
<h1>Connect the SPS command-line client</h1>
${intro}
${error}
<p id="code-hint">Check that your terminal shows this code:</p>
<p class="code" aria-describedby="code-hint">${code}</p>
<form method="post" action="/device/verify">
  ${csrf}
  <input type="hidden" name="user_code" value="${code}">
  ${confirm}
  <div><button type="submit">Continue</button></div>
</form>
<p>Another code, or none, in your terminal? Close this page: someone else may have sent you this link.
Or <a href="/device/verify">enter the code from your terminal</a>.</p>`);
  }
  return layout('Connect the command-line client', `
<h1>Connect the SPS command-line client</h1>
${intro}
${error}
<form method="post" action="/device/verify">
  ${csrf}
  <label for="user_code">Code shown in your terminal</label>
  <input id="user_code" name="user_code" value="${escapeHtml(input.code.typed)}" autocomplete="one-time-code"
    autofocus required maxlength="12" placeholder="XXXX-XXXX">
  ${confirm}
  <div><button type="submit">Continue</button></div>
</form>
<p>You will then be asked to approve access for your organization.</p>`);
}

export function resultPage(title: string, message: string, kind: 'done' | 'error'): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p class="${kind}">${escapeHtml(message)}</p>`);
}
