import { describe, expect, it } from 'vitest';
import { labelFor as clientLabelFor } from '../../src/client/index.js';
import { snakeCase } from '../../src/init/names.js';
import { titleFor } from '../../src/resource/plurals.js';
import { labelFor, valueLabel, words } from '../../src/resource/words.js';

describe('the words of a name, in any style', () => {
  it.each([
    ['created_at', ['created', 'at']],
    ['InvoiceDate', ['Invoice', 'Date']],
    ['invoiceDate', ['invoice', 'Date']],
    ['BillingPostalCode', ['Billing', 'Postal', 'Code']],
    ['HTTPStatus', ['HTTP', 'Status']],
    ['userIDs', ['user', 'IDs']],
    ['CustomerID', ['Customer', 'ID']],
    ['address2Line', ['address2', 'Line']],
    ['roles.name', ['roles', 'name']],
    ['settings.*', ['settings']],
    ['first name', ['first', 'name']],
    ['order-lines', ['order', 'lines']],
    ['CUSTOMER_NAME', ['CUSTOMER', 'NAME']],
  ])('%s', (name, expected) => {
    expect(words(name)).toEqual(expected);
  });

  it('makes snake_case as init reads names', () => {
    expect(snakeCase('passwordHash')).toBe('password_hash');
    expect(snakeCase('isAdmin')).toBe('is_admin');
    expect(snakeCase('HTTPStatus')).toBe('http_status');
    expect(snakeCase('deletedAt')).toBe('deleted_at');
    expect(snakeCase('DeletedAt')).toBe('deleted_at');
    expect(snakeCase('userIDs')).toBe('user_ids');
    expect(snakeCase('_prisma_migrations')).toBe('_prisma_migrations');
  });
});

describe('labels of columns and filters', () => {
  it.each([
    ['created_at', 'Created at'],
    ['name', 'Name'],
    ['InvoiceDate', 'Invoice date'],
    ['BillingPostalCode', 'Billing postal code'],
    ['HTTPStatus', 'HTTP status'],
    ['customer_id', 'Customer'],
    ['CustomerId', 'Customer'],
    ['customerId', 'Customer'],
    ['CustomerID', 'Customer'],
    ['CUSTOMER_ID', 'Customer'],
    ['support_rep_id', 'Support rep'],
    ['id', 'ID'],
    ['Id', 'ID'],
    ['ID', 'ID'],
    ['user.id', 'User ID'],
    ['tag_ids', 'Tag IDs'],
    ['roles.name', 'Roles name'],
    ['department.name', 'Department name'],
    ['settings.*', 'Settings'],
    ['posts_count', 'Posts count'],
    ['api_key', 'API key'],
    ['ip_address', 'IP address'],
    ['homepage_url', 'Homepage URL'],
    ['SKU', 'SKU'],
    ['productSKU', 'Product SKU'],
    ['FIRST_NAME', 'First name'],
    ['is_admin', 'Is admin'],
    ['trashed', 'Trashed'],
    ['reportsTo', 'Reports to'],
  ])('%s → %s', (key, label) => {
    expect(labelFor(key)).toBe(label);
  });

  it('is the one the client module gives a frontend', () => {
    expect(clientLabelFor).toBe(labelFor);
  });

  it('labels values with their own words and case', () => {
    expect(valueLabel('in_progress')).toBe('In progress');
    expect(valueLabel('active')).toBe('Active');
    expect(valueLabel('PG-13')).toBe('PG-13');
    expect(valueLabel('Deleted Scenes')).toBe('Deleted Scenes');
    expect(valueLabel('customer_id')).toBe('Customer id');
  });
});

describe('titles of resources', () => {
  it.each([
    ['users', 'Users'],
    ['InvoiceLine', 'Invoice lines'],
    ['Invoice', 'Invoices'],
    ['MediaType', 'Media types'],
    ['invoice_lines', 'Invoice lines'],
    ['person', 'People'],
    ['people', 'People'],
    ['staff', 'Staff'],
    ['category', 'Categories'],
    ['address', 'Addresses'],
    ['status', 'Statuses'],
    ['media', 'Media'],
    ['data', 'Data'],
    ['film_actor', 'Film actors'],
    ['HTTPLog', 'HTTP log'],
    ['sales_by_store', 'Sales by store'],
    ['sales_by_film_category', 'Sales by film category'],
    ['film_list', 'Film list'],
    ['actor_info', 'Actor info'],
    ['SKU', 'SKU'],
    ['api_keys', 'API keys'],
  ])('%s → %s', (name, title) => {
    expect(titleFor(name)).toBe(title);
  });
});
