// The backtick too: old browsers treated it as an attribute quote.
const replacements: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text and attribute values for server-rendered pages: every value rendered goes through here. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (character) => replacements[character] ?? character);
}
