/**
 * LinkedIn's "little text" format, which `commentary` and comment texts are written in: these
 * characters are markup (mentions `@[Name](urn)`, hashtag templates `{hashtag|\#|tag}`...) and
 * must be backslash-escaped to appear as themselves. LinkedIn accepts an unescaped one and
 * silently cuts the text there, so every one is escaped: SPS posts plain text.
 * Facts: ../shared/platforms/oauth-majors.md, section 2.2.
 */
const reserved = /[\\|{}@[\]()<>#*_~]/g;

export function escapeLittleText(text: string): string {
  return text.replace(reserved, (character) => `\\${character}`);
}
