import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** Text a page would show that is written in code rather than taken from the catalog. */
export interface StrayText {
  file: string;
  line: number;
  text: string;
}

/** A word a reader reads: two letters or more (a lone `×` or `·` is a sign, not a word). */
const word = /\p{L}{2,}/u;
/**
 * Prose in a string: words with a space between ("Delivery log", "Not moved: "), or one word a
 * person reads ("Copied", "Switch.") rather than a name for code ("nav.compose", "no-store").
 */
const prose = /\p{L}{2}[,.:;!?'’)]*\s+[("“]?\p{L}|^\s*\p{Lu}\p{Ll}+[.!?:]?\s*$/u;
/** Attributes whose values a person reads or hears. */
const spokenAttributes = /\b(?:aria-label|aria-roledescription|title|placeholder|alt)="([^"]*)"/g;
/** A template that is only attributes (`${on && html` selected`}`): markup, not text. */
const attributesOnly = /^(?:\s+[a-z-]+(?:="[^"<>]*")?)+\s*$/;

function visibleParts(markup: string): string[] {
  const spoken = [...markup.matchAll(spokenAttributes)].map((match) => match[1] ?? '');
  const text = markup
    .replace(/<!--[\s\S]*?-->/g, ' ')
    // Scripts, styles and code samples are not prose to translate.
    .replace(/<(script|style|code)\b[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^<>]*>/g, ' ')
    .replace(/&[#a-z0-9]+;/gi, ' ');
  return [...spoken, text].flatMap((part) => part.split('\u0000'));
}

const codeOnlyCallee = new RegExp([
  String.raw`(^|\.)(log|logger)\.\w+$`,
  String.raw`\.(set|setHeader|setRequestHeader|setAttribute|querySelector|querySelectorAll|getAttribute)$`,
].join('|'));

/** Calls whose string arguments are for programmers and the wire: errors, logs, headers. */
function inCodeOnlyCall(node: ts.Node): boolean {
  for (let at: ts.Node = node.parent; !ts.isSourceFile(at); at = at.parent) {
    if (ts.isNewExpression(at) && /^(Error|TypeError|RangeError)$/.test(at.expression.getText())) return true;
    if (ts.isCallExpression(at)) {
      const callee = at.expression.getText();
      if (codeOnlyCallee.test(callee)) return true;
    }
    if (ts.isTypeNode(at) || ts.isImportDeclaration(at) || ts.isExportDeclaration(at)) return true;
  }
  return false;
}

type TextLiteral = ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateLiteralLikeNode;

function isTextLiteral(node: ts.Node): node is TextLiteral {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
    || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node);
}

function isHtmlTemplate(node: ts.Node): node is ts.TaggedTemplateExpression {
  return ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'html';
}

function templateStatics(template: ts.TemplateLiteral): string[] {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return [template.text];
  return [template.head.text, ...template.templateSpans.map((span) => span.literal.text)];
}

/** Finds the strays of one source file (TypeScript or a browser script). */
export function strayTextIn(file: string, source: string): StrayText[] {
  const kind = file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const strays: StrayText[] = [];
  const report = (node: ts.Node, text: string): void => {
    strays.push({ file, line: tree.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: text.trim() });
  };
  const lines = source.split('\n');
  const lineOf = (node: ts.Node): string => lines[tree.getLineAndCharacterOfPosition(node.getStart()).line] ?? '';
  /**
   * Strings that are not for a reader: `'use strict'`, object keys, markup and media types
   * (`text/html; charset=utf-8`), arguments of errors and logs, and a line that says of itself
   * `not-ui-text` (a date format, a toolbar layout).
   */
  const notText = (node: TextLiteral): boolean => {
    const parent = node.parent;
    return ts.isExpressionStatement(parent)
      || (ts.isPropertyAssignment(parent) && parent.name === node) || ts.isElementAccessExpression(parent)
      || /[=<>{}]/.test(node.text) || lineOf(node).includes('not-ui-text') || inCodeOnlyCall(node);
  };
  const visit = (node: ts.Node): void => {
    if (isHtmlTemplate(node)) {
      const statics = templateStatics(node.template);
      const markup = statics.join('\u0000');
      if (!attributesOnly.test(markup)) {
        for (const part of visibleParts(markup)) if (word.test(part)) report(node, part);
      }
      // Expressions inside the template are visited as any other code.
      if (!ts.isNoSubstitutionTemplateLiteral(node.template)) {
        for (const span of node.template.templateSpans) visit(span.expression);
      }
      return;
    }
    if (isTextLiteral(node) && prose.test(node.text) && !notText(node)) report(node, node.text);
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return strays;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'i18n' ? [] : sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every stray in the dashboard's pages, views and islands (the catalogs themselves excepted). */
export function dashboardStrayText(root: string): StrayText[] {
  const folder = join(root, 'api/dashboard');
  return sourceFiles(folder).flatMap((path) =>
    strayTextIn(relative(root, path), readFileSync(path, 'utf8')));
}
