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

/** `department` → "Department", `created_at` → "Created at" (the service's own labels). */
export function labelFor(key: string): string {
  const words = key.replace(/[._*]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    if (title) document.title = `${title} · Admin`;
  }, [title]);
}
