/** Every problem of a request, keyed by the parameter it concerns (`filter.<name>`, `page`, …). */
export class ErrorBag {
  private readonly entries = new Map<string, string[]>();

  add(key: string, message: string): void {
    const messages = this.entries.get(key);
    if (messages) {
      if (!messages.includes(message)) messages.push(message);
    } else this.entries.set(key, [message]);
  }

  get isEmpty(): boolean {
    return this.entries.size === 0;
  }

  /** The 422 envelope: `message` is the first message, with Laravel's "(and N more errors)". */
  toEnvelope(): ErrorEnvelope {
    const errors: Record<string, string[]> = {};
    let total = 0;
    let first = '';
    for (const [key, messages] of this.entries) {
      errors[key] = [...messages];
      if (total === 0) first = messages[0] ?? '';
      total += messages.length;
    }
    const more = total - 1;
    const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
    return { message, errors };
  }
}

export interface ErrorEnvelope {
  message: string;
  errors: Record<string, string[]>;
}
