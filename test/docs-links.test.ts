/**
 * The guide's links hold: in README.md and every docs/*.md, each relative markdown link or image
 * (`[text](target)`, `![alt](target)`; not http, https, mailto or another scheme) names a file or folder
 * that exists, and a `#anchor` names a heading of the markdown file it points to, by GitHub's slug.
 * Links inside fenced code blocks and code spans are not links, and are left alone. No database, no
 * network: only the files of the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** The pages checked: the README and the guide. */
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** A line of a page outside fenced code blocks, with its 1-based number. */
interface ProseLine {
  readonly number: number;
  readonly text: string;
}

function proseLines(markdown: string): ProseLine[] {
  const lines: ProseLine[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && opening !== undefined) fence = opening;
    else if (
      fence !== undefined &&
      opening !== undefined &&
      opening[0] === fence[0] &&
      opening.length >= fence.length
    )
      fence = undefined;
    else if (fence === undefined) lines.push({ number: index + 1, text });
  });
  return lines;
}

/** Text whose code spans go through `code` and everything else through `prose`. */
function outsideCode(text: string, prose: (part: string) => string, code: (part: string) => string): string {
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, index) => (index % 2 === 1 ? code(part) : prose(part)))
    .join('');
}

/**
 * GitHub's heading anchor (what the github-slugger package computes; it is not among this project's
 * packages, so the rule is written here): the heading as rendered — emphasis markers, code backticks and
 * link targets gone — in lower case, every character that is not a letter, a digit, `_`, `-` or a space
 * removed, each space a hyphen. A repeated slug gets `-1`, `-2`… in the order the headings come.
 */
function headingText(raw: string): string {
  return outsideCode(
    raw,
    (part) =>
      part
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/<[^>]+>/g, '')
        .replace(/(^|[^\p{L}\p{N}_])_([^_]+)_(?=[^\p{L}\p{N}_]|$)/gu, '$1$2'),
    (code) => code.replace(/^`+|`+$/g, ''),
  ).trim();
}

function githubSlug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors of a page's ATX headings (outside code blocks), in order, repeated slugs numbered. */
function headingAnchors(markdown: string): string[] {
  const anchors: string[] = [];
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.push(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = new Set(headingAnchors(readFileSync(file, 'utf8')));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

interface Link {
  readonly line: number;
  readonly target: string;
}

/** The paragraphs of a page outside code blocks: runs of consecutive non-blank lines. */
function paragraphs(markdown: string): ProseLine[][] {
  const runs: ProseLine[][] = [];
  let run: ProseLine[] = [];
  for (const line of proseLines(markdown)) {
    const last = run[run.length - 1];
    if (last && (line.text.trim() === '' || line.number !== last.number + 1)) {
      runs.push(run);
      run = [];
    }
    if (line.text.trim() !== '') run.push(line);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * The inline links and images of a page, outside code blocks and code spans, by the line each starts
 * on. A paragraph is read whole, so a link whose text runs over two lines is found too.
 */
function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  for (const run of paragraphs(markdown)) {
    const first = run[0]?.number ?? 0;
    // Code spans blanked out, newlines kept: offsets still tell the line.
    const prose = run
      .map((line) => line.text)
      .join('\n')
      .replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
    for (const match of prose.matchAll(
      /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g,
    )) {
      const line = first + (prose.slice(0, match.index).match(/\n/g)?.length ?? 0);
      links.push({ line, target: match[1] ?? '' });
    }
  }
  return links;
}

/** What is wrong with one link of `page`, or undefined when it holds. */
function brokenBecause(page: string, target: string): string | undefined {
  if (target === '') return 'an empty target';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // http, https, mailto: not checked here
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = path === '' ? join(root, page) : resolve(dirname(join(root, page)), path);
  if (!existsSync(file)) return `${relative(root, file)} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return `#${anchor} points into ${relative(root, file)}, which is not a markdown file`;
  if (!anchorsOf(file).has(anchor))
    return `${relative(root, file)} has no heading whose anchor is #${anchor}`;
  return undefined;
}

describe('GitHub heading anchors', () => {
  it.each([
    ['Filters', 'filters'],
    [
      'Sorting by a relation: `department.name`, `posts_count`',
      'sorting-by-a-relation-departmentname-posts_count',
    ],
    [
      'Records: read one, create, delete, restore — and no lost updates',
      'records-read-one-create-delete-restore--and-no-lost-updates',
    ],
    ['Wildcards in `allowedFilters`', 'wildcards-in-allowedfilters'],
    ['Conditional reads: ETag, If-None-Match, 304', 'conditional-reads-etag-if-none-match-304'],
    ['Many-to-many links: a `references` input', 'many-to-many-links-a-references-input'],
    ['Workers: `--workers N`', 'workers---workers-n'],
    ['The *emphasised* and _underlined_ [linked](x.md) words', 'the-emphasised-and-underlined-linked-words'],
  ])('%s → #%s', (heading, slug) => {
    expect(githubSlug(heading)).toBe(slug);
  });

  it('numbers repeated headings, and reads none in code blocks', () => {
    const page = ['# Guide', '## Example', '```sh', '# a comment', '```', '### Example', '## Example ##'];
    expect(headingAnchors(page.join('\n'))).toEqual(['guide', 'example', 'example-1', 'example-2']);
  });
});

describe('relative links of the README and the guide', () => {
  it.each(pages)('%s', (page) => {
    const broken = linksOf(readFileSync(join(root, page), 'utf8')).flatMap(({ line, target }) => {
      const reason = brokenBecause(page, target);
      return reason === undefined ? [] : [`${page}:${line}: (${target}) — ${reason}`];
    });
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('finds links in prose and images, and none in code', () => {
    const links = linksOf(
      [
        'See [a](a.md#x) and ![b](b.png "title").',
        '`[not](a link)` here',
        '```md',
        '[inside](a fence)',
        '```',
        '[`code` text](c.md), `a span',
        'over [two](lines) lines` and [a link over',
        'two lines](d.md#y)',
      ].join('\n'),
    );
    expect(links).toEqual([
      { line: 1, target: 'a.md#x' },
      { line: 1, target: 'b.png' },
      { line: 6, target: 'c.md' },
      { line: 7, target: 'd.md#y' },
    ]);
  });
});
