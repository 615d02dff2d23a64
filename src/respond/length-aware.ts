import { decodeQueryComponent } from '../request/decode.js';

/** Laravel's length-aware paginator envelope, field for field. */
export interface LengthAwarePage<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  links: PageLink[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
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

export function lengthAwarePage<T>(
  data: T[],
  options: { page: number; perPage: number; total: number; path: string; rawQuery: string },
): LengthAwarePage<T> {
  const { page, perPage, total, path } = options;
  const url = urlWithParam(path, options.rawQuery, 'page');
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  const prev = page > 1 ? url(page - 1) : null;
  const next = page < lastPage ? url(page + 1) : null;
  const links: PageLink[] = [
    { url: prev, label: '&laquo; Previous', active: false },
    ...linkWindow(page, lastPage).map((n) =>
      n === null
        ? { url: null, label: '...', active: false }
        : { url: url(n), label: String(n), active: n === page },
    ),
    { url: next, label: 'Next &raquo;', active: false },
  ];
  return {
    current_page: page,
    data,
    first_page_url: url(1),
    from,
    last_page: lastPage,
    last_page_url: url(lastPage),
    links,
    next_page_url: next,
    path,
    per_page: perPage,
    prev_page_url: prev,
    to: from === null ? null : from + data.length - 1,
    total,
  };
}
