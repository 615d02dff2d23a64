/** One key or value of a query string as the client meant it: `+` is a space; bad escapes stay as sent. */
export function decodeQueryComponent(text: string): string {
  // Most keys and values have no escape: decoding them would only cost a call, a copy and a try.
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
