import { useEffect } from 'react';

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

export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    if (title) document.title = `${title} · Admin`;
  }, [title]);
}
