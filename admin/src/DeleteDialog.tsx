import { Dialog } from './Dialog.js';

export function DeleteDialog({
  label,
  noun,
  softDeletes,
  onCancel,
  onDelete,
}: {
  label: string;
  noun: string;
  softDeletes: boolean;
  onCancel: () => void;
  onDelete: () => void;
}) {
  return (
    <Dialog
      title={`Delete ${label}?`}
      testId="delete-dialog"
      onCancel={onCancel}
      actions={
        <>
          <button type="button" data-autofocus onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="danger" onClick={onDelete}>
            Delete
          </button>
        </>
      }
    >
      <p>
        {softDeletes
          ? `The ${noun} disappears from the lists; it stays under "Show deleted", where it can be restored.`
          : `The ${noun} is removed for good: this cannot be undone.`}
      </p>
    </Dialog>
  );
}
