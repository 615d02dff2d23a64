/**
 * The load generator: wrk (Debian's package), a native process of its own, so that generating the load
 * takes no CPU from the JavaScript of either server measured (autocannon, in the benchmark's own Node
 * process, did: on 2 cores it hid a 15 % difference between two servers). And the CPU time each server
 * spent per request, read from /proc: it moves far less than req/s when the machine's speed drifts.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `command` on PATH; installed from Debian's package of that name when missing and this process may (root). */
export function ensureDebianPackage(command: string, why: string): void {
  if (spawnSync(command, ['--version']).error === undefined) return;
  if (process.getuid?.() !== 0)
    throw new Error(`${command} is missing: install it (apt-get install ${command}), ${why}.`);
  console.log(`installing ${command} (apt-get install ${command})…`);
  execFileSync('apt-get', ['install', '-y', '-q', command], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** wrk on PATH (see `ensureDebianPackage`). */
export function ensureWrk(): void {
  ensureDebianPackage('wrk', 'the benchmark loads servers with it');
}

export interface WrkResult {
  rps: number;
  requests: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
}

/** wrk's durations (`812.00us`, `1.23ms`, `2.01s`) in milliseconds. */
function ms(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) throw new Error(`wrk: unreadable duration "${text}"`);
  const value = Number(match[1]);
  return { us: value / 1000, ms: value, s: value * 1000, m: value * 60_000 }[match[2] as 'us'];
}

/** One load of wrk's. */
export interface WrkLoad {
  readonly url: string;
  readonly seconds: number;
  /** Connections, all from one wrk thread. */
  readonly connections: number;
  /** Requested in turn instead of `url`'s path (a Lua script cycles through them): each request can differ. */
  readonly paths?: readonly string[];
  /** The one CPU wrk runs on (`taskset`). */
  readonly cpu?: number;
}

/** A load of `seconds` on `url`, and what wrk measured of it. */
export function wrk({ url, seconds, connections, paths, cpu }: WrkLoad): Promise<WrkResult> {
  // wrk's own timeout (2 s) would count a slow query's queued requests as socket errors: on a busy
  // machine a query that sorts thousands of rows waits longer than that behind 16 connections, and is
  // a measure, not a failure.
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '60s'];
  let folder: string | undefined;
  if (paths) {
    folder = mkdtempSync(join(tmpdir(), 'rqs-wrk-'));
    const script = join(folder, 'paths.lua');
    writeFileSync(
      script,
      `local paths = {${paths.map((path) => JSON.stringify(path)).join(',')}}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n`,
    );
    args.push('-s', script);
  }
  args.push(url);
  return new Promise((resolve, reject) => {
    const [command, argv] =
      cpu === undefined ? ['wrk', args] : ['taskset', ['-c', String(cpu), 'wrk', ...args]];
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (folder) rmSync(folder, { recursive: true, force: true });
      if (code !== 0) return reject(new Error(`wrk exited with ${code}:\n${out}`));
      const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
      const errors = /Socket errors: (.*)/.exec(out);
      if (bad || errors) return reject(new Error(`${url}: ${bad?.[0] ?? ''} ${errors?.[0] ?? ''}\n${out}`));
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      const requests = /(\d+) requests in/.exec(out);
      const p50 = /\n\s+50%\s+(\S+)/.exec(out);
      const p99 = /\n\s+99%\s+(\S+)/.exec(out);
      if (!rps || !requests || !p50 || !p99) return reject(new Error(`wrk: unreadable output:\n${out}`));
      resolve({
        rps: Number(rps[1]),
        requests: Number(requests[1]),
        p50: ms(p50[1] as string),
        p99: ms(p99[1] as string),
      });
    });
  });
}

/** Every thread of process `pid` (and those it starts later) on CPU `cpu` only. */
export function pin(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-c', '-p', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/** The CPU time a process has used so far (user + system), in microseconds, from /proc. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, in parentheses): utime is 14th, stime 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}
