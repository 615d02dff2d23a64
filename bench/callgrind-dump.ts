/**
 * Reading a callgrind dump with V8's map of its compiled code: which functions the counts fall in.
 * callgrind_annotate cannot name the JavaScript: V8 writes machine code at run time, outside any
 * file's symbols, so callgrind names each such block by its address alone. V8's map
 * (`--perf-basic-prof`) gives each piece of code its address range and name; the blocks are summed
 * into the function whose range holds them. Written by hand because no tool joins the two: perf reads
 * the map but not callgrind's dumps, and callgrind_annotate reads dumps but not the map.
 *
 * Counts are each function's own (self) costs, calls excluded. V8 does not move code while its map is
 * written (`--perf-basic-prof` keeps the code space in place); code collected and replaced at the
 * same address is named by the map's last entry for it, so a name is right for the code that ran
 * longest there, which is the warmed code being measured.
 */
export interface CodeRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/** V8's map: one line per piece of code, `START SIZE NAME` with hexadecimal numbers. */
export function readCodeMap(text: string): CodeRange[] {
  const byStart = new Map<number, CodeRange>();
  for (const line of text.split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (!match) continue;
    const start = Number.parseInt(match[1] as string, 16);
    // A later entry at the same address is newer code there.
    byStart.set(start, {
      start,
      end: start + Number.parseInt(match[2] as string, 16),
      name: match[3] as string,
    });
  }
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}

export function nameAt(ranges: readonly CodeRange[], address: number): string | undefined {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const range = ranges[middle] as CodeRange;
    if (address < range.start) high = middle - 1;
    else if (address >= range.end) low = middle + 1;
    else return range.name;
  }
  return undefined;
}

/**
 * Self costs per function from callgrind's format: `fn=` opens a function, cost lines (a position
 * then one number per event) add to it, and the cost line after `calls=` is the callee's inclusive
 * cost, which is not the caller's own. Names are compressed: `(7) name` the first time, `(7)` after.
 */
export function selfCosts(text: string): { events: string[]; costs: Map<string, number[]> } {
  // Objects, files and functions each number their names apart.
  const tables = {
    ob: new Map<string, string>(),
    fl: new Map<string, string>(),
    fn: new Map<string, string>(),
  };
  const tableOf = (key: string) =>
    key.endsWith('ob') ? tables.ob : key.endsWith('fn') ? tables.fn : tables.fl;
  const costs = new Map<string, number[]>();
  let events: string[] = [];
  let current: number[] | undefined;
  let callCost = false;
  const named = (table: Map<string, string>, value: string) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(value.trim());
    if (!match) return value.trim();
    if (match[2] !== undefined) table.set(match[1] as string, match[2]);
    return table.get(match[1] as string) ?? value.trim();
  };
  for (const line of text.split('\n')) {
    const key = /^(c?(?:ob|fl|fi|fe|fn))=/.exec(line)?.[1];
    if (line.startsWith('events:')) events = line.slice(7).trim().split(/\s+/);
    else if (key === 'fn') {
      const name = named(tables.fn, line.slice(3));
      current = costs.get(name) ?? new Array<number>(events.length).fill(0);
      costs.set(name, current);
    } else if (key) {
      // Only to fill the name tables: these lines do not change whose cost a line is.
      named(tableOf(key), line.slice(key.length + 1));
    } else if (line.startsWith('calls=')) callCost = true;
    else if (/^[0-9+*-]/.test(line)) {
      if (callCost) callCost = false;
      else if (current) {
        const numbers = line.trim().split(/\s+/).slice(1);
        for (let i = 0; i < numbers.length; i++) current[i] = (current[i] ?? 0) + Number(numbers[i]);
      }
    }
  }
  return { events, costs };
}

/**
 * Self costs summed by function, the compiled JavaScript (named by callgrind `0x…`) under its name
 * in V8's map, or "compiled code, unnamed" where the map has no range holding it.
 */
export function byFunction(
  costs: ReadonlyMap<string, readonly number[]>,
  ranges: readonly CodeRange[],
  eventCount: number,
): Map<string, number[]> {
  const grouped = new Map<string, number[]>();
  for (const [name, cost] of costs) {
    const address = /^0x([0-9a-f]+)$/.exec(name);
    const label = address
      ? (nameAt(ranges, Number.parseInt(address[1] as string, 16)) ?? 'compiled code, unnamed')
      : name;
    const sum = grouped.get(label) ?? new Array<number>(eventCount).fill(0);
    for (let i = 0; i < cost.length; i++) sum[i] = (sum[i] as number) + (cost[i] as number);
    grouped.set(label, sum);
  }
  return grouped;
}
