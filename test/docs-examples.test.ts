/**
 * Every request the README and the guide show against the demo — a `curl` to port 3000 in a sh or bash
 * code block of README.md or docs/*.md — is sent to the demo's own service, in-process, on a SQLite file
 * created and seeded as `npm start` does, and must be answered as the text says: with the status its
 * comment names (`# 422, both problems at once`, `# 401: sign in first`), else with a 2xx; a json block
 * right after the request's block is its answer, compared with the demo's (`"…"` where it leaves out). The shell
 * variables a block sets (the demo's tokens) are the ones its requests use. Blocks about another server
 * are left to that server's tests: a block with an `x-api-key` header is docs/hosts.md's example
 * application, a block whose requests name a path the demo does not serve is init's database.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import demo from '../examples/demo/config.js';
import { createSchema } from '../examples/demo/schema.js';
import { seedDemo } from '../examples/demo/seed.js';
import { buildService } from '../src/server/standalone.js';
import { type Connection, connect } from '../src/sql/connect.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const documents = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];

interface Shown {
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

/** The demo's list paths (`users`, …), as served under /api and /api/v1/<path>/schema. */
const demoPaths = new Set(demo.endpoints.map((endpoint) => endpoint.path ?? endpoint.resource));
const servedByDemo = (url: URL): boolean => {
  const [first, second] = url.pathname.replace(/^\/api\//, '').split('/');
  return url.pathname.startsWith('/api/') && demoPaths.has((first === 'v1' ? second : first) as string);
};

/**
 * The requests to the demo in every sh/bash block of the documents; a json block that follows such a
 * block with nothing but blank lines between is the answer to its last request.
 */
function shownRequests(): Shown[] {
  const shown: Shown[] = [];
  for (const file of documents) {
    const name = relative(root, file);
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
        const requests = demoRequests(name, block.start, block.lines);
        shown.push(...requests);
        answered = requests[requests.length - 1];
      }
      block = undefined;
    });
  }
  return shown;
}

/**
 * Where an answer differs from what the text shows of it, or undefined when it shows it: every member
 * shown, with the value shown, and no other member unless the object shows `"…": "…"`; the elements of
 * an array in order, where an element `"…"` stands for any number of them; the string `"…"` for any value.
 */
function differs(shown: unknown, actual: unknown, path = '$'): string | undefined {
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

function demoRequests(file: string, start: number, lines: string[]): Shown[] {
  const vars = new Map<string, string>();
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
  const another = requests.some((shown) => 'x-api-key' in shown.headers || !servedByDemo(shown.url));
  return another ? [] : requests;
}

const shown = shownRequests();

describe('the requests the README and the guide show, sent to the demo', () => {
  let temp = '';
  let connection: Connection;
  let app: FastifyInstance;

  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), 'rqs-docs-examples-'));
    connection = connect(`sqlite:${join(temp, 'demo.db')}`);
    await createSchema(connection);
    await seedDemo(connection);
    app = await buildService({ config: demo, connection });
  });
  afterAll(async () => {
    await app?.close();
    await connection?.db.destroy();
    if (temp) rmSync(temp, { recursive: true, force: true });
  });

  it('finds them in the README and in the guide', () => {
    const files = new Set(shown.map((request) => request.where.split(':')[0]));
    expect(files).toContain('README.md');
    expect(files).toContain('docs/demo.md');
    expect(shown.length).toBeGreaterThanOrEqual(20);
  });

  it.each(
    shown.map(
      (request) =>
        [`${request.where} ${request.method} ${request.url.pathname}${request.url.search}`, request] as const,
    ),
  )('%s', async (_title, request) => {
    const answer = await app.inject({
      method: request.method as 'GET',
      url: `${request.url.pathname}${request.url.search}`,
      // As curl sends it: the page links of an answer are made from the Host.
      headers: { host: request.url.host, ...request.headers },
      ...(request.body !== undefined && { payload: request.body }),
    });
    if (request.status === undefined) {
      expect(answer.statusCode, answer.body.slice(0, 500)).toBeGreaterThanOrEqual(200);
      expect(answer.statusCode, answer.body.slice(0, 500)).toBeLessThan(300);
    } else expect(answer.statusCode, answer.body.slice(0, 500)).toBe(request.status);
    if (request.answer)
      expect(
        differs(JSON.parse(request.answer.text), JSON.parse(answer.body)),
        `the answer ${request.answer.where} shows`,
      ).toBeUndefined();
  });

  it('compares the answers the text shows, and would see one changed', () => {
    expect(shown.filter((request) => request.answer).length).toBeGreaterThanOrEqual(3);
    expect(differs({ a: 1, b: ['x', '…'] }, { a: 1, b: ['x', 'y', 'z'] })).toBeUndefined();
    expect(differs({ a: 1 }, { a: 2 })).toBe('$.a: 1 shown, 2 answered');
    expect(differs({ a: 1 }, { a: 1, b: 2 })).toBe('$: answered b, not shown');
    expect(differs({ a: 1, '…': '…' }, { a: 1, b: 2 })).toBeUndefined();
    expect(differs(['…', 3], [1, 2])).toBeDefined();
    expect(differs([1, '…', 4], [1, 2, 3, 4])).toBeUndefined();
  });
});
