import { describe, expect, it } from 'vitest';
import { recordNames } from '../../src/init/columns.js';
import type { ColumnPlan } from '../../src/init/plan-types.js';

/** A short text column (varchar), NOT NULL unless said. */
function text(name: string, options: Partial<ColumnPlan> = {}): ColumnPlan {
  return {
    name,
    type: 'string',
    text: 'short',
    nullable: false,
    primaryKey: false,
    hidden: false,
    required: true,
    notes: [],
    ...options,
  };
}
const key = (name: string): ColumnPlan => ({
  ...text(name),
  type: 'integer',
  primaryKey: true,
  text: undefined,
});
const names = (table: string, columns: ColumnPlan[]) => {
  const { label, title } = recordNames(table, columns);
  return { label: label?.name, title: title?.map((column) => column.name) };
};

describe('what names a record, as init decides it', () => {
  it('a name column first, then a person by first and last names, labelled by the last', () => {
    expect(names('Artist', [key('ArtistId'), text('Name', { nullable: true })])).toEqual({
      label: 'Name',
      title: ['Name'],
    });
    expect(
      names('Customer', [key('CustomerId'), text('FirstName'), text('LastName'), text('Company')]),
    ).toEqual({
      label: 'LastName',
      title: ['FirstName', 'LastName'],
    });
    // An employee's Title is a job: the person's names come before it.
    expect(
      names('Employee', [key('EmployeeId'), text('LastName'), text('FirstName'), text('Title')]),
    ).toEqual({
      label: 'LastName',
      title: ['FirstName', 'LastName'],
    });
    expect(names('users', [key('id'), text('first_name'), text('name')])).toEqual({
      label: 'name',
      title: ['name'],
    });
  });

  it('a title, a column named as its table, a *_name, then identifying text', () => {
    expect(names('Album', [key('AlbumId'), text('Title')])).toEqual({ label: 'Title', title: ['Title'] });
    expect(names('city', [key('city_id'), text('city'), text('postal_code')])).toEqual({
      label: 'city',
      title: ['city'],
    });
    expect(names('products', [key('id'), text('sku'), text('product_name')])).toEqual({
      label: 'product_name',
      title: ['product_name'],
    });
    expect(names('accounts', [key('id'), text('email')])).toEqual({ label: 'email', title: ['email'] });
    // NOT NULL before nullable at each step.
    expect(names('tags', [key('id'), text('title', { nullable: true }), text('label')])).toEqual({
      label: 'label',
      title: ['label'],
    });
  });

  it('never an address, a note or long text: such a resource is titled by its name and key', () => {
    expect(
      names('Invoice', [
        key('InvoiceId'),
        text('BillingAddress'),
        text('BillingCity'),
        text('BillingPostalCode'),
      ]),
    ).toEqual({ label: undefined, title: undefined });
    expect(names('notes', [key('id'), text('note'), text('description', { text: 'long' })])).toEqual({
      label: undefined,
      title: undefined,
    });
    // A hidden column or the key never names it either.
    expect(names('secrets', [key('name'), text('title', { hidden: true })])).toEqual({
      label: undefined,
      title: undefined,
    });
  });
});
