import { expect } from 'vitest';
import type { TestService } from './service.js';

type Rec = Record<string, unknown>;

/** A page link without its origin: what `TestService.get` takes. */
export const pathOf = (url: string): string => url.replace(/^https?:\/\/[^/]+/, '');

/** The ids of a page's records (or of an `all=true` array). */
export const idsOf = (body: { data: Rec[] } | Rec[]): number[] =>
  (Array.isArray(body) ? body : body.data).map((record) => record.id as number);

/**
 * Every page from `first` on, by its `next_page_url`: the ids in the order seen. `between` runs after
 * each page (to change the data while a client walks).
 */
export async function walkPages(
  svc: TestService,
  first: string,
  between?: (page: number) => Promise<void>,
): Promise<number[]> {
  const seen: number[] = [];
  let url: string | null = first;
  for (let page = 0; url; page++) {
    const res = await svc.get(pathOf(url));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...idsOf(res.body));
    url = res.body.next_page_url;
    await between?.(page);
  }
  return seen;
}

/**
 * The cursor pages from `first` forwards, and the same pages walked back from the last by
 * `prev_page_url`: equal when the cursors are right both ways.
 */
export async function pagesBothWays(
  svc: TestService,
  first: string,
): Promise<{ forwards: number[][]; backwards: number[][] }> {
  const forwards: number[][] = [];
  let url: string | null = first;
  let last: Rec = {};
  while (url) {
    const res = await svc.get(pathOf(url));
    forwards.push(idsOf(res.body));
    last = res.body;
    url = res.body.next_page_url;
  }
  const backwards: number[][] = [forwards[forwards.length - 1] as number[]];
  let prev = last.prev_page_url as string | null;
  while (prev) {
    const res = await svc.get(pathOf(prev));
    expect(res.status).toBe(200);
    backwards.unshift(idsOf(res.body));
    prev = res.body.prev_page_url;
  }
  return { forwards, backwards };
}
