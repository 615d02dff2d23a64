/**
 * A map that keeps at most `max` entries, dropping the oldest insertion first: what a per-endpoint
 * cache needs so that a client varying its requests cannot grow memory. (Insertion order, not LRU:
 * a hot entry dropped is rebuilt once, and reads stay a plain `Map.get`.)
 */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    if (this.max <= 0) return;
    if (this.entries.size >= this.max && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, value);
  }
}
