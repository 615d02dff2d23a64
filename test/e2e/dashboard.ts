import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** `YYYY-MM-DD` of an instant in this process's zone: the browser runs on this machine's clock and zone. */
const localDay = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

/**
 * A resource's dashboard in the admin: it opens on the first day of the data (`min:<column>`, as the API
 * answers it), and a past range picked in it shows the API's own monthly counts for that range, in the
 * zone the page says it uses.
 */
export async function dashboardAnswersAsTheApi(
  page: Page,
  base: string,
  api: <T>(url: string) => Promise<T>,
  { path, column, from, to }: { path: string; column: string; from: string; to: string },
): Promise<void> {
  const extent = await api<{ data: Record<string, unknown>[] }>(
    `/api/${path}/aggregate?metrics=min:${column}`,
  );
  const oldest = new Date(String(extent.data[0]?.[`min:${column}`]));
  await page.goto(`${base}/admin/#/${path}/dashboard`);
  const fromInput = page.getByLabel('From');
  await expect.poll(() => fromInput.inputValue()).toBe(localDay(oldest));
  const zone =
    (await page.getByTestId('time-zone').textContent())?.match(/Buckets in (\S+?)(;|$)/)?.[1] ?? '';
  await fromInput.fill(from);
  await page.getByLabel('To (exclusive)').fill(to);
  const expected = await api<{ data: { count: number }[] }>(
    `/api/${path}/aggregate?metrics=count&group_by=${column}:month&from=${from}&to=${to}&tz=${encodeURIComponent(zone)}`,
  );
  expect(expected.data.reduce((sum, group) => sum + group.count, 0)).toBeGreaterThan(0);
  const buckets = page.getByTestId('bucket');
  await expect
    .poll(async () => Promise.all((await buckets.all()).map((bucket) => bucket.getAttribute('data-count'))))
    .toEqual(expected.data.map((group) => String(group.count)));
}
