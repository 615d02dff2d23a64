import { useEffect, useRef, useState } from 'react';
import { Dialog } from './Dialog.js';

/**
 * Unsaved changes and the navigation that would lose them. Forms say they are dirty with
 * `useUnsavedChanges`; a reload or a closed tab then gets the browser's own prompt (beforeunload),
 * and a move inside the app (a link, Back, a typed address) gets the app's dialog first.
 */
const dirtyForms = new Map<symbol, string>();

window.addEventListener('beforeunload', (event) => {
  if (dirtyForms.size === 0) return;
  event.preventDefault();
  // Older Chromium shows the prompt only when returnValue is set.
  event.returnValue = '';
});

export function useUnsavedChanges(dirty: boolean, what: string): void {
  const key = useRef(Symbol('form')).current;
  useEffect(() => {
    if (!dirty) return;
    dirtyForms.set(key, what);
    return () => {
      dirtyForms.delete(key);
    };
  }, [dirty, what, key]);
}

/** What the open forms would lose (`the new user, user "Ana"`), or '' when nothing is unsaved. */
export function unsavedWork(): string {
  return [...new Set(dirtyForms.values())].join(', ');
}

/**
 * Forgets the unsaved forms once the user chose to lose them for something other than a move (a new
 * access token reloads every view).
 */
export function discardUnsaved(): void {
  dirtyForms.clear();
}

/** Messages to show once the address they were left for is reached (`Created user "Ana".`). */
const notices = new Map<string, string>();

/** Set by the mounted app: shows an address now, not when the browser's hashchange event comes. */
let show: ((hash: string) => void) | undefined;

/**
 * Moves to an address without asking: the list's own moves (it has nothing unsaved), and the app's
 * moves after a create or a delete, when what the guard protects is stored or gone. The address is
 * shown in the same event, so a control that caused it (a checkbox) already shows its new state.
 */
export function go(href: string, notice?: string): void {
  dirtyForms.clear();
  window.location.hash = href;
  // Keyed as the browser writes the address back (percent-encoded), which is what the app reads.
  if (notice) notices.set(window.location.hash, notice);
  show?.(window.location.hash);
}

export function takeNotice(hash: string): string | undefined {
  const notice = notices.get(hash);
  notices.clear();
  return notice;
}

/**
 * The current hash, kept only for moves the user confirms while a form is dirty. Link clicks are
 * stopped before the hash changes; Back and typed addresses cannot be stopped, so the left address is
 * pushed back and the move waits for the answer.
 */
export function useGuardedHash(): { location: { hash: string }; dialog: React.ReactNode } {
  // A new object on every accepted move, even to the same address: a notice for it is then shown.
  const [location, setLocation] = useState(() => ({ hash: window.location.hash }));
  const [pending, setPending] = useState<string>();
  const current = useRef(location.hash);

  useEffect(() => {
    const accept = (next: string) => {
      current.current = next;
      setLocation({ hash: next });
    };
    show = accept;
    const onHash = () => {
      const next = window.location.hash;
      // Already shown by `go`, or the address pushed back below.
      if (next === current.current) return;
      if (dirtyForms.size === 0) return accept(next);
      window.history.pushState(null, '', current.current || window.location.pathname);
      setPending(next);
    };
    const onClick = (event: MouseEvent) => {
      if (dirtyForms.size === 0 || event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = (event.target as Element | null)?.closest?.('a[href^="#"]');
      const href = link?.getAttribute('href');
      if (!href || href === current.current) return;
      event.preventDefault();
      setPending(href);
    };
    window.addEventListener('hashchange', onHash);
    document.addEventListener('click', onClick, true);
    return () => {
      show = undefined;
      window.removeEventListener('hashchange', onHash);
      document.removeEventListener('click', onClick, true);
    };
  }, []);

  const dialog =
    pending === undefined ? null : (
      <DiscardDialog
        title="Leave without saving?"
        testId="leave-dialog"
        keep="Stay on this page"
        discard="Leave (discard changes)"
        onKeep={() => setPending(undefined)}
        onDiscard={() => {
          setPending(undefined);
          go(pending);
        }}
      >
        <p>Your changes{unsavedWork() ? ` to ${unsavedWork()}` : ''} are not saved.</p>
      </DiscardDialog>
    );
  return { location, dialog };
}

/**
 * The question before something that loses unsaved changes: keeping them is the focused, harmless
 * choice (and what Escape does); discarding is marked dangerous.
 */
export function DiscardDialog({
  title,
  testId,
  keep,
  discard,
  onKeep,
  onDiscard,
  children,
}: {
  title: string;
  testId: string;
  keep: string;
  discard: string;
  onKeep: () => void;
  onDiscard: () => void;
  children: React.ReactNode;
}) {
  return (
    <Dialog
      title={title}
      testId={testId}
      onCancel={onKeep}
      actions={
        <>
          <button type="button" data-autofocus onClick={onKeep}>
            {keep}
          </button>
          <button type="button" className="danger" onClick={onDiscard}>
            {discard}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
