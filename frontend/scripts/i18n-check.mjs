// The page's literal-string check: every text a person sees comes from the message catalog
// (src/i18n), so a string literal in the page's code that a person would read is an error. Two
// rules, on the TypeScript syntax tree of each file under src/ (src/i18n excepted):
//
//  visible  A literal in a place that puts text on screen — a child of h(), the text, title,
//           placeholder, label or aria-label of an element, textContent/title/placeholder
//           assignments, setAttribute of those, mount/append/badge/showError arguments — fails
//           when it holds a letter, unless it is a code token (has one of . / : _ ~ @ $, or is a
//           --flag): file names, paths and commands are shown as they are.
//  prose    Anywhere else, a literal that reads as words (two words, or a capitalised word) fails,
//           except where the language needs it to be code: imports, property names, comparisons,
//           case labels, types, selectors and event names, class and data-* attributes (also when
//           assigned: x.className = …), errors thrown to the developer, console output, the names
//           of backend methods (call/invoke).
//
// A deliberate exception carries `i18n-ignore` in a comment on its line. Usage:
//   node scripts/i18n-check.mjs            (exit 1 and a file:line list when anything is found)

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const VISIBLE_KEYS = new Set([
  'text',
  'title',
  'placeholder',
  'aria-label',
  'aria-description',
  'aria-roledescription',
  'aria-valuetext',
  'aria-placeholder',
  'alt',
  'label',
  'help',
  'message',
  'confirmLabel',
  'cancelLabel',
]);
const CODE_KEYS = new Set([
  'class',
  'className',
  'role',
  'type',
  'id',
  'name',
  'value',
  'href',
  'for',
  'list',
  'autocomplete',
  'spellcheck',
  'inputmode',
  'pattern',
  'method',
  'key',
  'testid',
  'idPrefix',
  'datetime',
  'style',
  'lang',
  'tone',
  'kind',
  'icon',
  'accept',
  'target',
  'rel',
  'download',
  'min',
  'max',
  'step',
  'dir',
]);
const VISIBLE_PROPS = new Set(['textContent', 'innerText', 'innerHTML', 'title', 'placeholder', 'ariaLabel', 'label']);
// functions whose arguments from the given index on (or at the listed indices) are text on screen
const VISIBLE_CALLS = new Map([
  ['h', 2],
  ['mount', 1],
  ['append', 1],
  ['prepend', 0],
  ['replaceChildren', 0],
  ['after', 0],
  ['before', 0],
  ['badge', [0, 2]],
  ['showError', 1],
  ['setTitle', 0],
  ['alert', 0],
  ['confirm', 0],
  ['prompt', 0],
  ['Option', 0],
]);
// functions whose arguments are code: selectors, event names, keys, developer messages
const CODE_CALLS = new Set([
  'querySelector',
  'querySelectorAll',
  'closest',
  'matches',
  'addEventListener',
  'removeEventListener',
  'on',
  'escape',
  'mark',
  'measure',
  'getItem',
  'setItem',
  'removeItem',
  'getAttribute',
  'hasAttribute',
  'removeAttribute',
  'toggleAttribute',
  'add',
  'remove',
  'toggle',
  'contains',
  'Error',
  'TypeError',
  'RangeError',
  'log',
  'warn',
  'error',
  'debug',
  'info',
  'createElement',
  'getElementById',
  't',
  'format',
  'startsWith',
  'endsWith',
  'includes',
  'split',
  'join',
  'replace',
  'indexOf',
  'RegExp',
  'postMessage',
  'call',
  'invoke',
]);
const ATTR_VISIBLE = new Set(['title', 'placeholder', 'aria-label', 'aria-description', 'aria-valuetext', 'alt']);

const hasLetter = (s) => /\p{L}/u.test(s);
const codeToken = (s) => !/\s/.test(s.trim()) && (/[./:_~@$]/.test(s) || /^--?[a-z]/.test(s.trim()));
const prose = (s) => /\p{L}{2,}[\s,]+\p{L}{2,}/u.test(s) || /^\s*\p{Lu}\p{Ll}+/u.test(s);

function calleeName(call) {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return '';
}

function propName(n) {
  if (!n) return '';
  if (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return n.text;
  return '';
}

/** The literal texts of an expression that reach its value (branches, concatenation, templates). */
function texts(e, out = []) {
  if (!e) return out;
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) out.push([e, e.text]);
  else if (ts.isTemplateExpression(e)) {
    out.push([e, [e.head.text, ...e.templateSpans.map((s) => s.literal.text)].join(' ')]);
    for (const s of e.templateSpans) texts(s.expression, out);
  } else if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e))
    texts(e.expression, out);
  else if (ts.isConditionalExpression(e)) {
    texts(e.whenTrue, out);
    texts(e.whenFalse, out);
  } else if (ts.isBinaryExpression(e)) {
    const k = e.operatorToken.kind;
    if (k === ts.SyntaxKind.PlusToken) {
      texts(e.left, out);
      texts(e.right, out);
    } else if (
      k === ts.SyntaxKind.BarBarToken ||
      k === ts.SyntaxKind.QuestionQuestionToken ||
      k === ts.SyntaxKind.AmpersandAmpersandToken
    ) {
      if (k !== ts.SyntaxKind.AmpersandAmpersandToken) texts(e.left, out);
      texts(e.right, out);
    }
  } else if (ts.isArrayLiteralExpression(e)) for (const x of e.elements) texts(x, out);
  return out;
}

/** Whether the literal n stands where the language needs code (the prose rule's exceptions). */
function codePlace(n) {
  let child = n;
  for (let p = n.parent; p; child = p, p = p.parent) {
    if (ts.isImportDeclaration(p) || ts.isExportDeclaration(p) || ts.isImportTypeNode?.(p)) return true;
    if (ts.isLiteralTypeNode(p) || ts.isTypeNode(p)) return true;
    if (ts.isCaseClause(p) && p.expression === child) return true;
    if (ts.isElementAccessExpression(p) && p.argumentExpression === child) return true;
    if (ts.isPropertyAssignment(p)) {
      if (p.name === child) return true;
      const k = propName(p.name);
      if (CODE_KEYS.has(k) || k.startsWith('data-') || k.startsWith('on')) return true;
      return false;
    }
    if (ts.isBinaryExpression(p)) {
      const k = p.operatorToken.kind;
      if (
        k === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        k === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
        k === ts.SyntaxKind.EqualsEqualsToken ||
        k === ts.SyntaxKind.ExclamationEqualsToken ||
        k === ts.SyntaxKind.InKeyword
      )
        return true;
      // x.className = '…', x.name = '…', x.dataset.state = '…': code
      if (k === ts.SyntaxKind.EqualsToken && p.right === child && ts.isPropertyAccessExpression(p.left)) {
        const target = p.left;
        if (CODE_KEYS.has(target.name.text)) return true;
        if (ts.isPropertyAccessExpression(target.expression) && target.expression.name.text === 'dataset') return true;
      }
    }
    if (ts.isCallExpression(p) || ts.isNewExpression(p)) {
      const name = calleeName(p);
      if (CODE_CALLS.has(name)) return true;
      if (name === 'h' && p.arguments?.[0] === child) return true;
      if (name === 'setAttribute' && p.arguments?.[0] === child) return true;
      return false;
    }
    if (ts.isThrowStatement(p)) return true;
    if (ts.isBlock(p) || ts.isSourceFile(p)) return false;
  }
  return false;
}

/** The findings for one file's text: [{line, text, rule}]. */
export function checkSource(fileName, source) {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const lines = source.split('\n');
  const found = new Map();
  const report = (node, text, rule) => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
    if (/i18n-ignore/.test(lines[line] ?? '') || /i18n-ignore/.test(lines[line - 1] ?? '')) return;
    const key = `${node.pos}:${rule}`;
    if (!found.has(node.pos))
      found.set(node.pos, { file: fileName, line: line + 1, text: text.trim().slice(0, 80), rule });
    void key;
  };
  const visible = (e) => {
    for (const [node, text] of texts(e)) if (hasLetter(text) && !codeToken(text)) report(node, text, 'visible');
  };
  const walk = (n) => {
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const name = calleeName(n);
      const span = VISIBLE_CALLS.get(name);
      const args = n.arguments ?? [];
      if (typeof span === 'number') args.slice(span).forEach(visible);
      else if (span) for (const i of span) visible(args[i]);
      if (name === 'setAttribute' && n.arguments?.length === 2) {
        const a = n.arguments[0];
        if (ts.isStringLiteral(a) && ATTR_VISIBLE.has(a.text)) visible(n.arguments[1]);
      }
    } else if (ts.isPropertyAssignment(n) && VISIBLE_KEYS.has(propName(n.name))) {
      visible(n.initializer);
    } else if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isPropertyAccessExpression(n.left) &&
      VISIBLE_PROPS.has(n.left.name.text)
    ) {
      visible(n.right);
    } else if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) {
      if (prose(n.text) && !codePlace(n)) report(n, n.text, 'prose');
    } else if (ts.isTemplateExpression(n)) {
      const text = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' ');
      if (prose(text) && !codePlace(n)) report(n, text, 'prose');
    }
    ts.forEachChild(n, walk);
  };
  walk(sf);
  return [...found.values()].sort((a, b) => a.line - b.line);
}

function tsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'i18n') out.push(...tsFiles(p));
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** The findings for every file of the page (src/, src/i18n excepted), paths relative to frontend/. */
export function checkPage(frontendDir) {
  const out = [];
  for (const f of tsFiles(join(frontendDir, 'src')))
    out.push(...checkSource(relative(frontendDir, f), readFileSync(f, 'utf8')));
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const only = process.argv.slice(2);
  const found = checkPage(root).filter((f) => !only.length || only.some((o) => f.file.includes(o)));
  for (const f of found) console.log(`${f.file}:${f.line}: ${f.rule}: ${JSON.stringify(f.text)}`);
  if (found.length) {
    console.log(`${found.length} literal strings a person would read; put them in src/i18n/messages and use t()`);
    process.exit(1);
  }
  console.log('i18n-check: no literal user-visible strings');
}
