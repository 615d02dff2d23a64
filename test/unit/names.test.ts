import { describe, expect, it } from 'vitest';
import { type DatabaseModel, planConfig, type ResourcePlan } from '../../src/init/index.js';
import { pluralize, singularize, toManyName, toOneName } from '../../src/init/names.js';

/**
 * `init`'s singular and plural forms: the `pluralize` package's English (irregular and uncountable
 * words included), on the last word of a name in any case style.
 */
describe('singular and plural forms of table names', () => {
  it.each([
    // singular, plural
    ['staff', 'staff'],
    ['person', 'people'],
    ['status', 'statuses'],
    ['address', 'addresses'],
    ['category', 'categories'],
    ['media', 'media'],
    ['data', 'data'],
    ['metadata', 'metadata'],
    ['post', 'posts'],
    ['box', 'boxes'],
    ['child', 'children'],
    ['entry', 'entries'],
    ['series', 'series'],
  ])('%s ↔ %s', (singular, plural) => {
    expect(pluralize(singular)).toBe(plural);
    expect(pluralize(plural)).toBe(plural);
    expect(singularize(plural)).toBe(singular);
    expect(singularize(singular)).toBe(singular);
  });

  it('changes only the last word, in its case style', () => {
    expect(pluralize('blog_entry')).toBe('blog_entries');
    expect(pluralize('blogEntry')).toBe('blogEntries');
    expect(pluralize('SalesPerson')).toBe('SalesPeople');
    expect(pluralize('SUPPORT_STAFF')).toBe('SUPPORT_STAFF');
    expect(pluralize('ORDER_STATUS')).toBe('ORDER_STATUSES');
    expect(singularize('shipping_addresses')).toBe('shipping_address');
    expect(singularize('ProductCategories')).toBe('ProductCategory');
    expect(singularize('film_data')).toBe('film_data');
  });

  it('names to-many and to-one relations after a table', () => {
    expect(toManyName('staff')).toBe('staff');
    expect(toManyName('person')).toBe('people');
    expect(toManyName('people')).toBe('people');
    expect(toManyName('order_status')).toBe('orderStatuses');
    expect(toManyName('InvoiceLine')).toBe('invoiceLines');
    expect(toManyName('media')).toBe('media');
    expect(toManyName('data')).toBe('data');
    expect(toOneName('staff')).toBe('staff');
    expect(toOneName('people')).toBe('person');
    expect(toOneName('statuses')).toBe('status');
    expect(toOneName('addresses')).toBe('address');
    expect(toOneName('categories')).toBe('category');
    expect(toOneName('media')).toBe('media');
    expect(toOneName('data')).toBe('data');
  });
});

describe('relation names of a catalog, by the plural forms', () => {
  const column = (name: string, type = 'int(11)', extra: { autoIncrement?: boolean } = {}) => ({
    name,
    type,
    baseType: type.replace(/\(.*$/, ''),
    nullable: false,
    autoIncrement: false,
    hasDefault: false,
    ...extra,
  });
  const table = (
    name: string,
    columns: ReturnType<typeof column>[],
    foreignKeys: { column: string; table: string }[] = [],
  ): DatabaseModel['tables'][number] => ({
    name,
    isView: false,
    columns,
    primaryKey: [columns[0]?.name as string],
    foreignKeys: foreignKeys.map((key) => ({
      columns: [key.column],
      referencedTable: key.table,
      referencedColumns: [`${key.table}_id`],
    })),
    indexes: [],
  });
  // Sakila's store and staff (each keyed <table>_id, each pointing at the other), and tables whose
  // names are irregular or uncountable.
  const model: DatabaseModel = {
    dialect: 'mysql',
    schema: 'shop',
    tables: [
      table(
        'store',
        [column('store_id', 'int(11)', { autoIncrement: true }), column('manager_staff_id')],
        [{ column: 'manager_staff_id', table: 'staff' }],
      ),
      table(
        'staff',
        [column('staff_id', 'int(11)', { autoIncrement: true }), column('store_id'), column('person_id')],
        [
          { column: 'store_id', table: 'store' },
          { column: 'person_id', table: 'person' },
        ],
      ),
      table('person', [
        column('person_id', 'int(11)', { autoIncrement: true }),
        column('name', 'varchar(50)'),
      ]),
      table(
        'media',
        [column('media_id', 'int(11)', { autoIncrement: true }), column('person_id')],
        [{ column: 'person_id', table: 'person' }],
      ),
    ],
  };
  const names = (plan: ReturnType<typeof planConfig>, resource: string) =>
    (plan.resources.find((candidate) => candidate.name === resource)?.relations ?? []).map(
      (relation: ResourcePlan['relations'][number]) => `${relation.kind} ${relation.name}`,
    );

  it('names a store’s staff "staff", a person’s media "media", and staff’s person "person"', () => {
    const plan = planConfig(model);
    expect(names(plan, 'store')).toEqual(['belongsTo managerStaff', 'hasMany staff']);
    expect(names(plan, 'staff')).toEqual(['belongsTo store', 'belongsTo person', 'hasMany stores']);
    expect(names(plan, 'person')).toEqual(['hasMany staff', 'hasMany media']);
    expect(names(plan, 'media')).toEqual(['belongsTo person']);
  });
});
