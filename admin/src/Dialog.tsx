import { type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal question. The native `<dialog>` opened with `showModal()` keeps focus inside, makes the page
 * behind it inert and closes on Escape (`onCancel`) without any code of ours; the element marked
 * `data-autofocus` (the harmless choice) gets the focus.
 */
export function Dialog({
  title,
  children,
  actions,
  onCancel,
  testId,
}: {
  title: string;
  children: ReactNode;
  actions: ReactNode;
  onCancel: () => void;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => dialog.close();
  }, []);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      data-testid={testId}
      onCancel={(event) => {
        // React, not the browser, decides when the dialog goes: it is closed by unmounting.
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div id={bodyId} className="dialog-body">
        {children}
      </div>
      <div className="buttons dialog-actions">{actions}</div>
    </dialog>
  );
}
