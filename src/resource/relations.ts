import type { BelongsTo, BelongsToMany, HasOneOrMany } from './types.js';

/** This table holds `foreignKey`, pointing at the related resource's `ownerKey` (its primary key by default). */
export function belongsTo(resource: string, foreignKey: string, ownerKey?: string): BelongsTo {
  return { kind: 'belongsTo', resource, foreignKey, ...(ownerKey ? { ownerKey } : {}) };
}

/** The related table holds `foreignKey`, pointing at this table's `localKey` (its primary key by default). */
export function hasOne(resource: string, foreignKey: string, localKey?: string): HasOneOrMany {
  return { kind: 'hasOne', resource, foreignKey, ...(localKey ? { localKey } : {}) };
}

export function hasMany(resource: string, foreignKey: string, localKey?: string): HasOneOrMany {
  return { kind: 'hasMany', resource, foreignKey, ...(localKey ? { localKey } : {}) };
}

/** Many-to-many through a pivot table. */
export function belongsToMany(
  resource: string,
  through: Omit<BelongsToMany, 'kind' | 'resource'>,
): BelongsToMany {
  return { kind: 'belongsToMany', resource, ...through };
}
