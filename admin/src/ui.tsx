import type { RecordData } from '../../src/client/index.js';

/** The rows the lists showed last, by `<path>/<id>`: the record of an endpoint that cannot filter by id. */
export const shownRecords = new Map<string, RecordData>();

export function hrefFor(path: string, id?: string | number, edit = false): string {
  return `#/${encodeURIComponent(path)}${id !== undefined ? `/${encodeURIComponent(String(id))}` : ''}${edit ? '/edit' : ''}`;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function Loading() {
  return (
    <p className="loading" data-testid="loading" role="status">
      Loading…
    </p>
  );
}

export function ErrorBox({ message }: { message: string }) {
  return (
    <div className="error-box" role="alert" data-testid="error">
      {message}
    </div>
  );
}
