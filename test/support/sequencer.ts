import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that spend most of their time waiting (a replica stopped and back, statement timeouts, a
 * server cut off): started first, so the others' work fills that time instead of the run ending on them.
 * Vitest would order a clean clone's files by size alone, and these are small.
 */
export const waitingFiles = ['test/topology.test.ts', 'test/timeouts.test.ts', 'test/faults.test.ts'];

export class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = waitingFiles.indexOf(relative(this.ctx.config.root, file.moduleId));
      return index === -1 ? waitingFiles.length : index;
    };
    // Array.prototype.sort is stable: the others keep the base order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
