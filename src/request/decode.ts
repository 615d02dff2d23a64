/** One key or value of a query string as the client meant it: `+` is a space; bad escapes stay as sent. */
export function decodeQueryComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
