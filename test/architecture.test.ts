/**
 * The structure's rules, checked from the imports themselves: each folder of src/ imports only from
 * folders below it in the order that docs/architecture.md declares, and no file imports itself back
 * through others. The order is read from the document, so the picture and the code cannot drift.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** The `layers` block of docs/architecture.md: the top layer first. */
function declaredLayers(): string[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const block = /```layers\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/architecture.md has no ```layers block');
  return block
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line.length > 0)
    .map((line) => line.split(/\s+/)[0] as string);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files a source file imports (static, type-only, re-exports and `import()` alike), within `within`. */
function importsOf(file: string, within: string): string[] {
  const source = readFileSync(file, 'utf8');
  const { module, errors } = parseSync(file, source);
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]?.message}`);
  const specifiers = [
    ...module.staticImports.map((entry) => entry.moduleRequest.value),
    ...module.staticExports.flatMap((entry) => entry.entries.map((part) => part.moduleRequest?.value)),
    // A dynamic import's argument as written: a string literal's text without its quotes.
    ...module.dynamicImports.map(({ moduleRequest }) =>
      source.slice(moduleRequest.start + 1, moduleRequest.end - 1),
    ),
  ];
  return specifiers
    .filter((name): name is string => name?.startsWith('.') === true)
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, ''))
    .map((base) => [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => isFile(path)))
    .filter((path): path is string => path?.startsWith(within) === true);
}

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** The layer of a file of src/: its top folder, or the file's own name for a file at the top. */
const layerOf = (file: string): string => relative(join(root, 'src'), file).split('/')[0] as string;

/** Files that import each other in a loop (Tarjan's strongly connected components of more than one file). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(relative(root, member));
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('structure', () => {
  const src = join(root, 'src');
  const graph = new Map(sourceFiles(src).map((file) => [file, importsOf(file, src)]));
  const layers = declaredLayers();
  const rank = new Map(layers.map((layer, i) => [layer, layers.length - i]));

  it('places every folder and top-level file of src/ in the declared layers', () => {
    const present = [...new Set([...graph.keys()].map(layerOf))].map((layer) =>
      layer.replace(/\.tsx?$/, '.ts'),
    );
    expect(present.filter((layer) => !rank.has(layer)).sort()).toEqual([]);
    expect(layers.filter((layer) => !present.includes(layer))).toEqual([]);
  });

  it('imports only downward: no folder imports one above it', () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      for (const target of imports) {
        const to = layerOf(target);
        if (to !== from && (rank.get(to) ?? 0) > (rank.get(from) ?? 0))
          upward.push(`${relative(root, file)} -> ${relative(root, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no circle of imports, in src/ or in the admin UI', () => {
    const admin = join(root, 'admin/src');
    const adminGraph = new Map(sourceFiles(admin).map((file) => [file, importsOf(file, admin)]));
    expect([...circles(graph), ...circles(adminGraph)]).toEqual([]);
  });

  it('finds what it looks for: the graph holds the pipeline', () => {
    // A reader that found no imports would pass the rules above without checking anything.
    const list = [...graph.keys()].find((file) => file.endsWith(join('core', 'list', 'handlers.ts')));
    expect(list && graph.get(list)?.some((target) => target.endsWith(join('plan', 'endpoint.ts')))).toBe(
      true,
    );
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toHaveLength(1);
  });
});
