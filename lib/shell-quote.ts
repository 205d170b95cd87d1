/** A word (a path, an argument) as one POSIX shell word, so that a command we print can be pasted
 * as it is. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
