import { urlWithParam } from './length-aware.js';

/** Laravel's simple paginator envelope: no total, no last page. */
export interface SimplePage<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
}

export function simplePage<T>(
  data: T[],
  options: { page: number; perPage: number; hasMore: boolean; path: string; rawQuery: string },
): SimplePage<T> {
  const { page, perPage, path } = options;
  const url = urlWithParam(path, options.rawQuery, 'page');
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  return {
    current_page: page,
    data,
    first_page_url: url(1),
    from,
    next_page_url: options.hasMore ? url(page + 1) : null,
    path,
    per_page: perPage,
    prev_page_url: page > 1 ? url(page - 1) : null,
    to: from === null ? null : from + data.length - 1,
  };
}

/** Laravel's cursor paginator envelope. */
export interface CursorPage<T> {
  data: T[];
  path: string;
  per_page: number;
  next_cursor: string | null;
  next_page_url: string | null;
  prev_cursor: string | null;
  prev_page_url: string | null;
}

export function cursorPage<T>(
  data: T[],
  options: { perPage: number; next: string | null; prev: string | null; path: string; rawQuery: string },
): CursorPage<T> {
  const url = urlWithParam(options.path, options.rawQuery, 'cursor');
  return {
    data,
    path: options.path,
    per_page: options.perPage,
    next_cursor: options.next,
    next_page_url: options.next === null ? null : url(options.next),
    prev_cursor: options.prev,
    prev_page_url: options.prev === null ? null : url(options.prev),
  };
}
