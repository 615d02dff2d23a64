/**
 * RFC 4180 records (quoted fields may hold commas, doubled quotes and line breaks; records end with
 * CRLF), as the exports write them: the tests' independent reading of a CSV answer.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += char;
  }
  // A last record without its CRLF.
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
