import type { RecordData } from '../../src/client/index.js';
import { Dialog } from './Dialog.js';
import { type Input, initialValue } from './RecordForm.js';

/** How a value reads in the conflict dialog: an option's label, Yes/No, never a password. */
function shown(input: Input, value: unknown): string {
  if (input.type === 'password') return value ? '(a new password)' : '—';
  if (value === null || value === undefined || value === '') return '—';
  if (input.type === 'checkbox' || input.type === 'switch') return value ? 'Yes' : 'No';
  const option = input.options?.find((candidate) => candidate.value === value);
  return option ? option.label : String(value);
}

/**
 * The rows of the conflict dialog: the fields I changed, then those the other save changed (their value
 * now differs from the one this form opened with), so both sides of the choice are visible.
 */
function conflictRows(
  visible: readonly Input[],
  changed: readonly Input[],
  initial: RecordData,
  stored: RecordData,
): Input[] {
  const theirs = visible.filter(
    (input) =>
      !changed.includes(input) &&
      input.type !== 'password' &&
      initialValue(input, stored) !== initial[input.name],
  );
  return [...changed, ...theirs];
}

export function ConflictDialog({
  noun,
  label,
  visible,
  changed,
  initial,
  edits,
  stored,
  onReload,
  onOverwrite,
  onCancel,
}: {
  noun: string;
  label: string;
  visible: readonly Input[];
  changed: readonly Input[];
  initial: RecordData;
  edits: RecordData;
  stored: RecordData;
  onReload: () => void;
  onOverwrite: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog
      title={`This ${noun} changed since you opened it`}
      testId="conflict-dialog"
      onCancel={onCancel}
      actions={
        <>
          <button type="button" onClick={onReload}>
            Reload (discard my changes)
          </button>
          <button type="button" className="danger" onClick={onOverwrite}>
            Overwrite (save mine anyway)
          </button>
        </>
      }
    >
      <p>Someone saved {label} after you opened it. Your changes are not saved yet.</p>
      <table className="conflict">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Your change</th>
            <th scope="col">Stored now</th>
          </tr>
        </thead>
        <tbody>
          {conflictRows(visible, changed, initial, stored).map((input) => {
            const mine = changed.includes(input);
            return (
              <tr key={input.name} data-field={input.name}>
                <th scope="row">{input.label}</th>
                <td className={mine ? undefined : 'muted'}>
                  {mine
                    ? shown(input, edits[input.name])
                    : `${shown(input, initial[input.name])} (unchanged)`}
                </td>
                <td>{shown(input, initialValue(input, stored))}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Dialog>
  );
}
