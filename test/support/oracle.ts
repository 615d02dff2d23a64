import { expect } from 'vitest';
import { type UserRow, users } from './fixture.js';
import type { TestService } from './service.js';

/** A list response as the tests read it. */
export interface ListResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON of a response, as the harness types it.
  body: any;
}

/** The ids of a list response's records, in the response's order. */
export function ids(res: ListResponse): number[] {
  return (res.body.data as { id: number }[]).map((record) => record.id);
}

/** Descending, as the default order (primary key descending) returns them. */
export const byIdDesc = (a: number, b: number): number => b - a;

/** The users a request without `trashed` sees. */
export const visibleUsers: UserRow[] = users.filter((user) => user.deleted_at === null);

/** Ids of the visible users matching `predicate`, in the default order. */
export function expectedUsers(predicate: (user: UserRow) => boolean, withTrashed = false): number[] {
  return users
    .filter((user) => (withTrashed || user.deleted_at === null) && predicate(user))
    .map((user) => user.id)
    .sort(byIdDesc);
}

/** Milliseconds of an ISO instant, for datetime comparisons in the oracle. */
export const ms = (iso: string): number => Date.parse(iso);

/** The UTC day (`YYYY-MM-DD`) of an ISO instant. */
export const utcDay = (iso: string): string => new Date(iso).toISOString().slice(0, 10);

/** Case-insensitive (ASCII) substring tests, as the textual operators do them. */
export const lower = (text: string): string => text.toLowerCase();

/** GET `/api/users` with `query` and check the ids and total against the oracle. */
export async function expectUsers(
  service: TestService,
  query: string,
  predicate: (user: UserRow) => boolean,
): Promise<void> {
  const res = await service.get(`/api/users?per_page=100&${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const expected = expectedUsers(predicate);
  expect(ids(res)).toEqual(expected);
  expect(res.body.total).toBe(expected.length);
}
