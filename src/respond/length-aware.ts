import { decodeQueryComponent } from '../request/decode.js';

/**
 * Laravel's length-aware paginator envelope, field for field. With a `total` strategy other than
 * `'exact'` (docs/count-strategies.md): `total_is_estimate` says whether `total` is the planner's
 * estimate; with `'none'`, `total`, `last_page` and `last_page_url` are null.
 */
export interface LengthAwarePage<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number | null;
  last_page_url: string | null;
  links: PageLink[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number | null;
  /** Present with the `exactUpTo` and `estimated` strategies: true when `total` is an estimate. */
  total_is_estimate?: boolean;
}

export interface PageLink {
  url: string | null;
  label: string;
  active: boolean;
}

/**
 * URLs that keep the client's query string as sent, with one parameter (`page`, `cursor`) replaced and
 * put last, as Laravel does.
 */
export function urlWithParam(
  path: string,
  rawQuery: string,
  param: string,
): (value: string | number) => string {
  const kept = rawQuery
    .split('&')
    .filter((part) => part !== '' && decodeQueryComponent(part.split('=')[0] as string) !== param);
  const prefix = kept.length > 0 ? `${path}?${kept.join('&')}&${param}=` : `${path}?${param}=`;
  return (value) => `${prefix}${value}`;
}

const ON_EACH_SIDE = 3;

/** The page numbers shown in `links`, with `null` for a "..." gap (Laravel's UrlWindow). */
export function linkWindow(current: number, last: number): (number | null)[] {
  const range = (from: number, to: number) =>
    Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  const window = ON_EACH_SIDE * 2;
  if (last < window + 8) return range(1, last);
  if (current <= window) return [...range(1, window + 2), null, ...range(last - 1, last)];
  if (current > last - window) return [1, 2, null, ...range(last - (window + 2), last)];
  return [1, 2, null, ...range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), null, last - 1, last];
}

/**
 * What a length-aware page says of its total: a number (`isEstimate` set by the strategies that may
 * estimate, left out by `'exact'`), or none (`'none'`), with whether a next page has rows.
 */
export type PageTotal =
  | { readonly value: number; readonly isEstimate?: boolean }
  | { readonly value: null; readonly hasMore: boolean };

/**
 * The total a page's own rows prove, fetched with one row more than the page (`fetched` ≤ perPage + 1):
 * a short page, or an empty first page, ends the list.
 */
export function totalShownByPage(offset: number, perPage: number, fetched: number): number | undefined {
  return fetched <= perPage && (fetched > 0 || offset === 0) ? offset + fetched : undefined;
}

/**
 * An estimate made consistent with the rows known to exist: at least `atLeast` (a bounded count that
 * saw more than its limit), at least one row past a full page when the extra row came back, and at
 * most the offset of a page past the end. Rounded to a whole number of rows.
 */
export function boundedEstimate(
  estimate: number,
  facts: { offset: number; perPage: number; fetched: number; atLeast?: number },
): number {
  const { offset, perPage, fetched } = facts;
  const lower = Math.max(facts.atLeast ?? 0, fetched > perPage ? offset + perPage + 1 : 0);
  const upper = fetched === 0 ? offset : Number.POSITIVE_INFINITY;
  return Math.max(lower, Math.min(Math.round(estimate), upper));
}

export function lengthAwarePage<T>(
  data: T[],
  options: { page: number; perPage: number; total: number | PageTotal; path: string; rawQuery: string },
): LengthAwarePage<T> {
  const { page, perPage, path } = options;
  const total: PageTotal = typeof options.total === 'number' ? { value: options.total } : options.total;
  const url = urlWithParam(path, options.rawQuery, 'page');
  const lastPage = total.value === null ? undefined : Math.max(1, Math.ceil(total.value / perPage));
  const hasNext = total.value === null ? total.hasMore : page < (lastPage as number);
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  const prev = page > 1 ? url(page - 1) : null;
  const next = hasNext ? url(page + 1) : null;
  // Without a total, the pages known to exist: up to this one, and the next when it has rows.
  const shownLast = lastPage ?? (hasNext ? page + 1 : page);
  const links: PageLink[] = [
    { url: prev, label: '&laquo; Previous', active: false },
    ...linkWindow(page, shownLast).map((n) =>
      n === null
        ? { url: null, label: '...', active: false }
        : { url: url(n), label: String(n), active: n === page },
    ),
    { url: next, label: 'Next &raquo;', active: false },
  ];
  const body: LengthAwarePage<T> = {
    current_page: page,
    data,
    first_page_url: url(1),
    from,
    last_page: lastPage ?? null,
    last_page_url: lastPage === undefined ? null : url(lastPage),
    links,
    next_page_url: next,
    path,
    per_page: perPage,
    prev_page_url: prev,
    to: from === null ? null : from + data.length - 1,
    total: total.value,
  };
  if ('isEstimate' in total && total.isEstimate !== undefined) body.total_is_estimate = total.isEstimate;
  return body;
}
