import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take long for their size, started first so that the run does not end on one of them
 * alone: the package packed, installed and compiled in a new project, and those that mostly wait (a
 * replica stopped and back, statement timeouts, a server cut off), whose waits the others' work fills.
 * Vitest would order a clean clone's files by size alone, and these are small.
 */
export const longFiles = [
  'test/package.test.ts',
  'test/topology.test.ts',
  'test/timeouts.test.ts',
  'test/faults.test.ts',
];

export class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = longFiles.indexOf(relative(this.ctx.config.root, file.moduleId));
      return index === -1 ? longFiles.length : index;
    };
    // Array.prototype.sort is stable: the others keep the base order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
