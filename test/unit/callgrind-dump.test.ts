import { describe, expect, it } from 'vitest';
import { byFunction, nameAt, readCodeMap, selfCosts } from '../../bench/callgrind-dump.js';

// A dump in callgrind's format: compressed names, a call whose line is the callee's inclusive cost,
// two blocks of compiled JavaScript named by address, and ids that files and functions share.
const DUMP = `# callgrind format
version: 1
positions: line
events: Ir D1mr

ob=(1) /usr/bin/node
fl=(1) ???
fn=(1) Builtins_LoadIC
0 100 4
fn=(2) 0x0000000000001010
0 30 1
cfn=(1)
calls=2 0
0 200 8
fn=(3) 0x0000000000001080
+2 20 2
fn=(1)
0 50
fn=(4) 0x0000000000005000
0 7 0
`;

const MAP = `1000 40 JS:*handle file:///service.js:1:1
1040 60 JS:*read file:///service.js:9:1
1000 60 JS:*handle file:///service.js:1:1
`;

describe('reading a callgrind dump with V8’s code map (bench/callgrind-dump.ts)', () => {
  it('sums each function’s own costs, leaving out the inclusive cost of its calls', () => {
    const { events, costs } = selfCosts(DUMP);
    expect(events).toEqual(['Ir', 'D1mr']);
    expect(costs.get('Builtins_LoadIC')).toEqual([150, 4]);
    expect(costs.get('0x0000000000001010')).toEqual([30, 1]);
    expect(costs.get('0x0000000000001080')).toEqual([20, 2]);
  });

  it('names an address by the map’s range holding it, the later entry winning at the same start', () => {
    const ranges = readCodeMap(MAP);
    expect(nameAt(ranges, 0x1010)).toBe('JS:*handle file:///service.js:1:1');
    expect(nameAt(ranges, 0x105f)).toBe('JS:*handle file:///service.js:1:1');
    expect(nameAt(ranges, 0x1060)).toBe('JS:*read file:///service.js:9:1');
    expect(nameAt(ranges, 0x10a0)).toBeUndefined();
    expect(nameAt(ranges, 0x0fff)).toBeUndefined();
  });

  it('groups compiled code under its function, and what the map does not hold as unnamed', () => {
    const { events, costs } = selfCosts(DUMP);
    const grouped = byFunction(costs, readCodeMap(MAP), events.length);
    expect(grouped.get('JS:*handle file:///service.js:1:1')).toEqual([30, 1]);
    expect(grouped.get('JS:*read file:///service.js:9:1')).toEqual([20, 2]);
    expect(grouped.get('compiled code, unnamed')).toEqual([7, 0]);
    expect(grouped.get('Builtins_LoadIC')).toEqual([150, 4]);
  });
});
