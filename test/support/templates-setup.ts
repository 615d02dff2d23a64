import type { TestProject } from 'vitest/node';
import { makeTemplates } from './templates.js';

/**
 * Global set-up: the demo schema with the fixture, made once per run on the engines that copy a
 * database (PostgreSQL, SQLite), which `fixtureDatabase` then copies instead of creating and filling.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { templates, drop } = await makeTemplates();
  project.provide('fixtureTemplates', templates);
  return drop;
}
