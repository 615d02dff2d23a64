/**
 * The react-admin example (examples/react-admin) in Chromium over the demo: list, sort, page, filter
 * with an operator, open a record, save it, and see the service's 422 under the input.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { demoTokens } from '../../examples/demo/auth.js';
import { type Users, useExampleApp } from './example-app.js';

/** With EXAMPLES_DOCS_SCREENSHOTS=1, the list is also saved as docs/react-admin.png. */
const docsShot =
  process.env.EXAMPLES_DOCS_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../../docs/react-admin.png', import.meta.url))
    : undefined;

describe('react-admin example (Chromium)', () => {
  const example = useExampleApp('react-admin');

  it('lists, sorts, pages, filters, opens, saves, and shows a 422 under the field', async () => {
    const { page, api, usersList: listRequest } = example;
    const rows = page.locator('table tbody tr');
    const cell = (row: number, column: string) => rows.nth(row).locator(`td.column-${column}`);

    // 1. The list: ten rows, the total, the best score first (the List's sort).
    const all = await api<Users>('/api/users');
    const first = listRequest('sort=-score');
    await page.goto(example.url);
    expect((await first).status()).toBe(200);
    await expect.poll(() => rows.count()).toBe(10);
    await expect
      .poll(() => page.locator('.MuiTablePagination-displayedRows').textContent())
      .toBe(`1-10 of ${all.total}`);
    const top = await api<Users>('/api/users?sort=-score&per_page=10');
    await expect.poll(() => cell(0, 'name').textContent()).toBe(top.data[0]?.name);
    if (docsShot) await page.screenshot({ path: docsShot });
    await example.screenshot('react-admin-1-list');

    // 2. Sort by name (ascending), then page 2 of that order.
    const sorted = listRequest('sort=name&');
    await page.locator('thead th.column-name').getByText('Name').click();
    expect((await sorted).status()).toBe(200);
    const byName = await api<Users>('/api/users?sort=name&per_page=10&page=2');
    const second = listRequest('page=2');
    await page.getByRole('button', { name: 'Go to next page' }).click();
    expect((await second).status()).toBe(200);
    await expect.poll(() => cell(0, 'name').textContent()).toBe(byName.data[0]?.name);
    await expect.poll(() => rows.count()).toBe(byName.data.length);

    // 3. A filter with an operator: score_gte → filter[score][gte]; back to page 1.
    const filtered = listRequest('filter[score][gte]=90');
    await page.getByLabel('Score at least').fill('90');
    expect((await filtered).status()).toBe(200);
    const high = await api<Users>('/api/users?filter[score][gte]=90&sort=name&per_page=10');
    await expect
      .poll(() => page.locator('.MuiTablePagination-displayedRows').textContent())
      .toBe(`1-${high.data.length} of ${high.total}`);
    for (let row = 0; row < high.data.length; row += 1)
      expect(Number(await cell(row, 'score').textContent())).toBeGreaterThanOrEqual(90);
    await example.screenshot('react-admin-2-filtered');

    // 4. Open the first record: the edit form holds its values.
    const record = high.data[0];
    if (!record) throw new Error('no user with a score of 90 or more in the demo');
    await rows.first().click();
    const name = page.getByLabel('Name');
    await expect.poll(() => name.inputValue()).toBe(record.name);
    expect(await page.getByLabel('Email').inputValue()).toBe(record.email);

    // 5. Save a new name: one PATCH, with only that field, and the list shows it.
    await name.fill(`${record.name} (edited)`);
    const patch = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await patch).postDataJSON()).toEqual({ name: `${record.name} (edited)` });
    await expect
      .poll(async () => (await api<{ name: string }>(`/api/users/${record.id}`)).name)
      .toBe(`${record.name} (edited)`);
    await expect.poll(() => page.url()).toMatch(/#\/users(\?|$)/);

    // 6. A 422: the service's message under the email input, nothing saved.
    const refusal = await example.app.inject({
      method: 'PATCH',
      url: `/api/users/${record.id}`,
      headers: { authorization: `Bearer ${demoTokens.editor}` },
      payload: { email: 'not-an-email' },
    });
    expect(refusal.statusCode).toBe(422);
    const message = (refusal.json() as { errors: { email: string[] } }).errors.email[0] ?? '';
    expect(message).not.toBe('');
    await page.goto(`${example.url}#/users/${record.id}`);
    const email = page.getByLabel('Email');
    await expect.poll(() => email.inputValue()).toBe(record.email);
    await email.fill('not-an-email');
    example.expectStatus(422);
    const refused = page.waitForResponse((response) => response.request().method() === 'PATCH');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await refused).status()).toBe(422);
    await expect
      .poll(() => page.locator('.ra-input-email .MuiFormHelperText-root').textContent())
      .toBe(message);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    await example.screenshot('react-admin-3-422');
    expect((await api<{ email: string }>(`/api/users/${record.id}`)).email).toBe(record.email);

    // 7. The posts, from react-admin's guessers: the published ones (the endpoint's default filter),
    // newest first, each author's name fetched with getMany (filter[id][in]).
    const posts = await api<{ total: number; data: { title: string }[] }>(
      '/api/posts?sort=-created_at&per_page=10',
    );
    const authors = page.waitForResponse((response) =>
      decodeURIComponent(response.url()).includes('/api/users?filter[id][in][0]='),
    );
    await page.goto(`${example.url}#/posts`);
    expect((await authors).status()).toBe(200);
    await expect
      .poll(() => page.locator('.MuiTablePagination-displayedRows').textContent())
      .toBe(`1-10 of ${posts.total}`);
    await expect.poll(() => cell(0, 'title').textContent()).toBe(posts.data[0]?.title);

    expect(example.problems).toEqual([]);
  });
});
