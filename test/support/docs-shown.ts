/**
 * What the README and the guide show, read from their Markdown for the tests that run it: the requests
 * (each `curl` to port 3000 in a sh or bash code block) and the answers shown after them
 * (test/docs-examples.test.ts sends them to the demo, test/examples.test.ts to docs/hosts.md's example
 * applications), and the code blocks of a language (the TypeScript that test/package.test.ts compiles and
 * test/docs-examples.test.ts serves).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Shown {
  /** Where it is written: `docs/demo.md:46`. */
  where: string;
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
  /** The status the text says, or undefined for "a 2xx". */
  status: number | undefined;
  /** The answer the text shows: a json block right after the sh block, for the block's last request. */
  answer?: { where: string; text: string };
}

/**
 * A command line's words as a POSIX shell splits them — '…' literal, "…" and bare words with `$NAME`
 * replaced — and the comment after an unquoted `#`. Written here: the few forms the docs use need no
 * shell-parsing library, and a library would not know the block's variables.
 */
function words(line: string, vars: Map<string, string>): { words: string[]; comment: string } {
  const out: string[] = [];
  const expand = (text: string) =>
    text.replace(/\$([A-Z_][A-Z0-9_]*)/g, (_, name: string) => vars.get(name) ?? '');
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length) break;
    if (line[i] === '#') return { words: out, comment: line.slice(i + 1).trim() };
    let word = '';
    while (i < line.length && line[i] !== ' ' && line[i] !== '\t') {
      const c = line[i] as string;
      if (c === "'") {
        const end = line.indexOf("'", i + 1);
        word += line.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        const end = line.indexOf('"', i + 1);
        word += expand(line.slice(i + 1, end));
        i = end + 1;
      } else {
        const start = i;
        while (i < line.length && !/[\s'"]/.test(line[i] as string)) i++;
        word += expand(line.slice(start, i));
      }
    }
    out.push(word);
  }
  return { words: out, comment: '' };
}

/** A curl command's request, or undefined when it is not one to port 3000. */
function request(args: string[], comment: string, where: string): Shown | undefined {
  let method: string | undefined;
  let url: URL | undefined;
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-X') method = args[++i];
    else if (arg === '-H') {
      const [name, ...value] = (args[++i] as string).split(':');
      headers[(name as string).trim().toLowerCase()] = value.join(':').trim();
    } else if (arg === '-d' || arg === '--data') body = args[++i];
    else if (/^https?:\/\//.test(arg)) url = new URL(arg);
    else if (!/^-[a-zA-Z]+$/.test(arg)) throw new Error(`${where}: curl's ${arg} is not read by this test`);
  }
  if (url?.port !== '3000') return undefined;
  const status = /^(\d{3})\b/.exec(comment)?.[1];
  return {
    where,
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    url,
    headers,
    body,
    status: status === undefined ? undefined : Number(status),
  };
}

/**
 * The requests to port 3000 in every sh/bash block of `files` (paths from the repository's root) whose
 * requests `keep` takes; a json block that follows such a block with nothing but blank lines between is
 * the answer to its last request. `vars` are shell variables the blocks use without setting them.
 */
export function shownRequests(
  files: readonly string[],
  keep: (requests: readonly Shown[]) => boolean,
  vars: Readonly<Record<string, string>> = {},
): Shown[] {
  const shown: Shown[] = [];
  for (const name of files) {
    const file = join(root, name);
    const lines = readFileSync(file, 'utf8').split('\n');
    let block: { start: number; lines: string[]; json: boolean } | undefined;
    // The last request of the sh block just closed, while only blank lines follow it.
    let answered: Shown | undefined;
    lines.forEach((line, index) => {
      if (block === undefined) {
        const opened = /^```(sh|bash|json)\s*$/.exec(line)?.[1];
        if (opened) block = { start: index + 1, lines: [], json: opened === 'json' };
        else if (line.trim() !== '') answered = undefined;
        return;
      }
      if (!line.startsWith('```')) {
        block.lines.push(line);
        return;
      }
      if (block.json) {
        if (answered) answered.answer = { where: `${name}:${block.start + 1}`, text: block.lines.join('\n') };
        answered = undefined;
      } else {
        const requests = blockRequests(name, block.start, block.lines, vars);
        const kept = keep(requests) ? requests : [];
        shown.push(...kept);
        answered = kept[kept.length - 1];
      }
      block = undefined;
    });
  }
  return shown;
}

/** The requests to port 3000 of one sh block. */
function blockRequests(
  file: string,
  start: number,
  lines: string[],
  known: Readonly<Record<string, string>>,
): Shown[] {
  const vars = new Map<string, string>(Object.entries(known));
  const requests: Shown[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = i;
    let line = lines[i] as string;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i]}`;
    const assignment = /^([A-Z_][A-Z0-9_]*)=(\S+)$/.exec(line.trim());
    if (assignment) vars.set(assignment[1] as string, assignment[2] as string);
    const { words: args, comment } = words(line, vars);
    if (args[0] !== 'curl') continue;
    const shown = request(args, comment, `${file}:${start + first + 1}`);
    if (shown) requests.push(shown);
  }
  return requests;
}

/**
 * Where an answer differs from what the text shows of it, or undefined when it shows it: every member
 * shown, with the value shown, and no other member unless the object shows `"…": "…"`; the elements of
 * an array in order, where an element `"…"` stands for any number of them; the string `"…"` for any value.
 */
export function differs(shown: unknown, actual: unknown, path = '$'): string | undefined {
  if (shown === '…') return undefined;
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return `${path}: an array is shown, ${JSON.stringify(actual)} answered`;
    const match = (i: number, j: number): string | undefined => {
      if (i === shown.length)
        return j === actual.length ? undefined : `${path}[${j}]: more elements than shown`;
      if (shown[i] === '…') {
        let last: string | undefined;
        for (let k = j; k <= actual.length; k++) {
          last = match(i + 1, k);
          if (last === undefined) return undefined;
        }
        return last;
      }
      if (j === actual.length) return `${path}[${j}]: fewer elements than shown`;
      return differs(shown[i], actual[j], `${path}[${j}]`) ?? match(i + 1, j + 1);
    };
    return match(0, 0);
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return `${path}: an object is shown, ${JSON.stringify(actual)} answered`;
    const members = Object.keys(shown).filter((key) => key !== '…');
    for (const key of members) {
      if (!(key in actual)) return `${path}.${key}: shown, not answered`;
      const difference = differs(
        (shown as Record<string, unknown>)[key],
        (actual as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (difference) return difference;
    }
    if (!('…' in shown)) {
      const more = Object.keys(actual).filter((key) => !members.includes(key));
      if (more.length > 0) return `${path}: answered ${more.join(', ')}, not shown`;
    }
    return undefined;
  }
  return Object.is(shown, actual)
    ? undefined
    : `${path}: ${JSON.stringify(shown)} shown, ${JSON.stringify(actual)} answered`;
}

/** The code blocks of one language in a document (a path from the repository's root), where each begins. */
export function codeBlocks(file: string, language: string): { where: string; code: string }[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: { where: string; code: string }[] = [];
  lines.forEach((line, index) => {
    if (line !== `\`\`\`${language}`) return;
    const end = lines.indexOf('```', index + 1);
    blocks.push({ where: `${file}:${index + 2}`, code: lines.slice(index + 1, end).join('\n') });
  });
  return blocks;
}
