/**
 * Engine type names shared by several kinds' `serves` lists (pg_type names; information_schema
 * DATA_TYPE on MariaDB/MySQL). A type no kind lists is not checked at start-up.
 */
export const pgText = ['text', 'varchar', 'bpchar', 'citext'] as const;
export const pgNumbers = ['int2', 'int4', 'int8', 'numeric', 'float4', 'float8'] as const;
export const pgTemporal = ['date', 'timestamp', 'timestamptz'] as const;

export const myText = ['char', 'varchar', 'tinytext', 'text', 'mediumtext', 'longtext'] as const;
// MySQL's BOOLEAN is tinyint(1); every integer and decimal type can hold 0/1.
export const myNumbers = [
  'tinyint',
  'smallint',
  'mediumint',
  'int',
  'integer',
  'bigint',
  'bit',
  'decimal',
  'numeric',
  'float',
  'double',
] as const;
export const myIntegers = ['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'year'] as const;
export const myTemporal = ['date', 'datetime', 'timestamp'] as const;
export const myBinary = ['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'] as const;
