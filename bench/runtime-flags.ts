/**
 * Flags both servers run with. The rounds alternate, so each server idles while the other is measured,
 * and V8's memory reducer then shrinks its heap at moments of its own; afterwards a cheap request costs
 * about a fifth more for as long as a minute, in the hand-written server as in the service (measured:
 * read-one 25 → 30 µs after idling, in both; unchanged without the reducer). Where it struck one server
 * and not the other, the same code read 1.03 in one run and 1.17 in the next (docs/benchmarks.md).
 */
export const RUNTIME_FLAGS = ['--no-memory-reducer'];
