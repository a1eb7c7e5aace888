import { escapeHtml } from '../shared/html/escape-html.ts';

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
  input { font-size: 1.4rem; letter-spacing: .15em; text-transform: uppercase; padding: .5rem; width: 12ch; }
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

export function verifyPage(input: { code: string; csrf: string; error?: string | undefined }): string {
  const error = input.error === undefined ? '' : `<p class="error" role="alert">${escapeHtml(input.error)}</p>`;
  return layout('Connect the command-line client', `
<h1>Connect the SPS command-line client</h1>
<p>Enter the code shown in your terminal. You will then be asked to approve access for your organization.</p>
${error}
<form method="post" action="/device/verify">
  <input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
  <label for="user_code">Code</label>
  <input id="user_code" name="user_code" value="${escapeHtml(input.code)}" autocomplete="one-time-code" autofocus required maxlength="12" placeholder="XXXX-XXXX">
  <div><button type="submit">Continue</button></div>
</form>`);
}

export function resultPage(title: string, message: string, kind: 'done' | 'error'): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p class="${kind}">${escapeHtml(message)}</p>`);
}
