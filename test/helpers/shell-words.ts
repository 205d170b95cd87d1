/**
 * The words a POSIX shell passes to the command of one line, for the tests that put the commands
 * of the help and the docs through the CLI's parser: single and double quotes and backslashes as
 * sh reads them, up to the first unquoted `|`, `<`, `>`, `;`, `&` or `#` comment (what follows is
 * the shell's, not the command's). `~` and `$NAME` are left as written: either way the parser
 * sees one word in their place.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const add = (text: string): void => {
    word = (word ?? '') + text;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated ' in: ${line}`);
      add(line.slice(i + 1, end));
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        // Inside double quotes a backslash escapes only $ ` " \ and a newline.
        if (line[j] === '\\' && '$`"\\\n'.includes(line[j + 1] ?? '')) j++;
        text += line[j];
      }
      if (j >= line.length) throw new Error(`unterminated " in: ${line}`);
      add(text);
      i = j;
    } else if (ch === '\\') {
      add(line[++i] ?? '');
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if ('|<>;&'.includes(ch) || (ch === '#' && word === undefined)) {
      break;
    } else add(ch);
  }
  if (word !== undefined) words.push(word);
  return words;
}
